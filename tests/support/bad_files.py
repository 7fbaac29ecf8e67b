"""Bad (and a few good non-PDF) inputs for indexing tests.

`make_bad_files(out_dir)` writes one file per case below and returns `{key: path}`. `BAD_FILES[key]`
documents each case: its file name, what an indexer is expected to do (`expect`) and the reason it
should report. Expectations:

- "error":   the file cannot be indexed; report it (path + reason) and carry on with the other files.
- "no_text": the file opens but has no text layer; report it (it would need OCR) and index nothing.
- "ok":      a good file in another format (.txt / .htm) for testing those parsers.

| key         | file            | expect  | what it is                                                          |
|-------------|-----------------|---------|---------------------------------------------------------------------|
| corrupt     | corrupt.pdf     | error   | `%PDF-1.7` header followed by seeded garbage; PyMuPDF raises         |
|             |                 |         | `FileDataError` on open                                             |
| encrypted   | encrypted.pdf   | error   | a real 10-K-like PDF, AES-256 with a user password; opens, but      |
|             |                 |         | `doc.needs_pass` is True and pages cannot be read without it        |
| empty       | empty.pdf       | error   | 0 bytes; PyMuPDF raises `EmptyFileError`                             |
| scanned     | scanned.pdf     | no_text | valid 2-page PDF of images and drawn shapes, no text layer          |
| notapdf     | notapdf.pdf     | error   | HTML bytes with a .pdf name. NOTE: MuPDF sniffs the content and     |
|             |                 |         | opens it as HTML (`doc.is_pdf` False) instead of failing, so check   |
|             |                 |         | the `%PDF-` magic bytes or `doc.is_pdf`                              |
| dangling    | dangling.pdf    | error   | a symlink to a file that does not exist (`exists()` is False)       |
| directory   | directory.pdf   | error   | a directory whose name ends in .pdf (`is_file()` is False)          |
| good_txt    | good.txt        | ok      | plain-text 10-K (Acme Widgets FY2023 of the demo corpus), pages     |
|             |                 |         | separated by form feeds (\\f), cover page first                      |
| good_htm    | good.htm        | ok      | EDGAR-like HTML 10-K excerpt (Borealis Energy FY2023): cover page,  |
|             |                 |         | HTML entities, page-break rules and an income-statement <table>     |

A chmod-000 file is not provided: tests run as root, for whom permissions do not block reading;
`dangling.pdf` and `directory.pdf` are the portable "cannot be read" cases.

All files are deterministic except `encrypted.pdf` (AES encryption uses a random IV).
"""
from __future__ import annotations

import html
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Union

try:  # PyMuPDF >= 1.24 ships `pymupdf`; `fitz` is the legacy alias (deprecated in 2.0)
    import pymupdf as fitz
except ImportError:  # pragma: no cover
    import fitz  # type: ignore

from finrag.tools.demo.corpus import company_by, demo_filing_pages, demo_financials

__all__ = ["BadFile", "BAD_FILES", "ENCRYPTED_USER_PASSWORD", "ENCRYPTED_OWNER_PASSWORD",
           "GOOD_TXT_SOURCE", "GOOD_HTM_SOURCE", "make_bad_files"]

ENCRYPTED_USER_PASSWORD = "finrag-user"
ENCRYPTED_OWNER_PASSWORD = "finrag-owner"
GOOD_TXT_SOURCE = ("ACME", 2023)   # demo company (ticker) and fiscal year written to good.txt
GOOD_HTM_SOURCE = ("BORL", 2023)   # ... and to good.htm


@dataclass(frozen=True)
class BadFile:
    key: str
    file_name: str
    expect: str   # "error" | "no_text" | "ok"
    reason: str   # what an indexer should report


BAD_FILES: dict[str, BadFile] = {b.key: b for b in (
    BadFile("corrupt", "corrupt.pdf", "error",
            "corrupt PDF: a %PDF header followed by garbage, no readable objects (PyMuPDF FileDataError)"),
    BadFile("encrypted", "encrypted.pdf", "error",
            "encrypted PDF: a user password is required to read it (doc.needs_pass)"),
    BadFile("empty", "empty.pdf", "error", "empty file: 0 bytes (PyMuPDF EmptyFileError)"),
    BadFile("scanned", "scanned.pdf", "no_text",
            "no text layer: pages contain only images/vector shapes (scanned document, needs OCR)"),
    BadFile("notapdf", "notapdf.pdf", "error",
            "not a PDF: content is HTML despite the .pdf extension (no %PDF- magic bytes; "
            "MuPDF would open it as HTML)"),
    BadFile("dangling", "dangling.pdf", "error", "unreadable: broken symbolic link (target does not exist)"),
    BadFile("directory", "directory.pdf", "error", "unreadable: path is a directory, not a file"),
    BadFile("good_txt", "good.txt", "ok", "plain-text filing; pages separated by form feeds"),
    BadFile("good_htm", "good.htm", "ok", "EDGAR-like HTML filing with a cover page and a table"),
)}


# --------------------------------------------------------------------------------------------------
def _fixed_metadata(doc, title: str) -> None:
    date = "D:20240221120000Z"
    doc.set_metadata({"title": title, "author": "", "subject": "", "keywords": "",
                      "creator": "finrag bad_files", "producer": "finrag",
                      "creationDate": date, "modDate": date})


def _write_corrupt(path: Path) -> None:
    rng = random.Random("finrag-bad|corrupt")
    # A plausible header, then bytes that contain no parsable object: MuPDF's repair finds nothing.
    path.write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + rng.randbytes(4096))


def _write_encrypted(path: Path) -> None:
    doc = fitz.open()
    _fixed_metadata(doc, "Form 10-K")
    page = doc.new_page(width=612, height=792)
    lines = demo_filing_pages(*GOOD_TXT_SOURCE)[0].splitlines()[:14]
    y = 72.0
    for line in lines:
        page.insert_text((54, y), line, fontname="helv", fontsize=9)
        y += 13
    doc.save(str(path), encryption=fitz.PDF_ENCRYPT_AES_256, user_pw=ENCRYPTED_USER_PASSWORD,
             owner_pw=ENCRYPTED_OWNER_PASSWORD,
             permissions=int(fitz.PDF_PERM_ACCESSIBILITY | fitz.PDF_PERM_PRINT))
    doc.close()


def _scan_pixmap(seed: str, w: int = 306, h: int = 396):
    """A grey 'scanned page': light paper with dark bars where text lines would be."""
    rng = random.Random(seed)
    paper = bytes([238]) * w
    rows = []
    y = 0
    while y < h:
        if 24 <= y < h - 24 and rng.random() < 0.55:
            row = bytearray(paper)
            x = 22
            while x < w - 22:
                word = rng.randint(6, 26)
                row[x:min(x + word, w - 22)] = bytes([40 + rng.randint(0, 30)]) * (min(x + word, w - 22) - x)
                x += word + rng.randint(3, 6)
            for _ in range(3):  # a text line is a few pixels high
                rows.append(bytes(row))
            y += 3
            rows.append(paper)
            rows.append(paper)
            y += 2
        else:
            rows.append(paper)
            y += 1
    samples = b"".join(rows[:h])
    return fitz.Pixmap(fitz.csGRAY, w, h, samples, False)


def _write_scanned(path: Path) -> None:
    doc = fitz.open()
    _fixed_metadata(doc, "")
    for i in range(2):
        page = doc.new_page(width=612, height=792)
        page.insert_image(fitz.Rect(0, 0, 612, 792), pixmap=_scan_pixmap(f"finrag-bad|scan|{i}"))
        shape = page.new_shape()
        shape.draw_rect(fitz.Rect(40, 30, 572, 60))            # a drawn letterhead box
        shape.finish(color=(0.2, 0.2, 0.2), fill=(0.85, 0.85, 0.85), width=0.8)
        for k in range(6):                                      # and some signature-like strokes
            shape.draw_line(fitz.Point(380 + 12 * k, 740 - 4 * (k % 2)), fitz.Point(390 + 12 * k, 748))
        shape.finish(color=(0, 0, 0.4), width=1.2)
        shape.commit()
    doc.save(str(path), garbage=3, deflate=True, no_new_id=True)
    doc.close()


_NOTAPDF = b"""<!DOCTYPE html>
<html><head><title>404 Not Found</title></head>
<body><h1>Not Found</h1>
<p>The requested document /Archives/edgar/data/0000000/000000000024000012/acme-20231231.pdf was not
found on this server. This is what a failed download saved under a .pdf name looks like.</p>
</body></html>
"""


def _good_txt() -> str:
    return "\f".join(demo_filing_pages(*GOOD_TXT_SOURCE)) + "\n"


def _good_htm() -> str:
    c = company_by(GOOD_HTM_SOURCE[0])
    year = GOOD_HTM_SOURCE[1]
    f, p = demo_financials(c, year), demo_financials(c, year - 1)
    e = html.escape

    def num(t: int) -> str:
        return f"({abs(t) / 10:,.1f})" if t < 0 else f"{t / 10:,.1f}"

    def row(label: str, a: int, b: int, bold: bool = False) -> str:
        st = ' style="font-weight:bold"' if bold else ""
        return (f'<tr><td{st}>{e(label)}</td><td>$</td><td style="text-align:right">{num(a)}</td>'
                f'<td>$</td><td style="text-align:right">{num(b)}</td></tr>')

    s1, s2 = c.segments
    rows = "\n".join([
        row(s1, f["seg1_revenue"], p["seg1_revenue"]),
        row(s2, f["seg2_revenue"], p["seg2_revenue"]),
        row("Total revenue", f["revenue"], p["revenue"], True),
        row("Cost of revenue", f["cost_of_revenue"], p["cost_of_revenue"]),
        row("Operating income", f["operating_income"], p["operating_income"]),
        row("Provision for income taxes", f["tax"], p["tax"]),
        row("Net income", f["net_income"], p["net_income"], True),
    ])
    rev = f"{f['revenue'] / 10:,.1f}"
    return f"""<!DOCTYPE html>
<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL">
<head><meta charset="utf-8"><title>{c.ticker.lower()}-{year}1231</title></head>
<body>
<div style="text-align:center">
<p><b>UNITED STATES<br/>SECURITIES AND EXCHANGE COMMISSION</b></p>
<p>Washington, D.C. 20549</p>
<p><b>FORM 10-K</b></p>
<p>&#9746; ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934</p>
<p>For the fiscal year ended {c.fiscal_year_end}, {year}</p>
<p><b>{e(c.name)}</b><br/>(Exact name of registrant as specified in its charter)</p>
<p>{e(c.state)}&#160;&#160;&#160;&#160;{c.irs_number}</p>
<p>{e(c.address)}, {e(c.hq_city)} {c.zip_code}<br/>(Address of principal executive offices)</p>
</div>
<p>Securities registered pursuant to Section 12(b) of the Act:</p>
<table border="1">
<tr><th>Title of each class</th><th>Trading Symbol(s)</th><th>Name of each exchange on which registered</th></tr>
<tr><td>Common Stock, $0.01 par value per share</td><td>{c.ticker}</td><td>{e(c.exchange)}</td></tr>
</table>
<hr style="page-break-after:always"/>
<h2>Item 7. Management&#8217;s Discussion and Analysis of Financial Condition and Results of Operations</h2>
<p>Total revenue for fiscal {year} was $<ix:nonFraction name="us-gaap:Revenues" unitRef="usd" decimals="-5"
scale="6">{rev}</ix:nonFraction> million. Research &amp; development and selling, general &amp;
administrative expenses are discussed below.</p>
<hr style="page-break-after:always"/>
<h2>Item 8. Financial Statements and Supplementary Data</h2>
<h3>Consolidated Statements of Operations</h3>
<p>(In millions) Fiscal years ended {c.fiscal_year_end}</p>
<table>
<tr><th></th><th colspan="2">{year}</th><th colspan="2">{year - 1}</th></tr>
{rows}
</table>
</body>
</html>
"""


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def make_bad_files(out_dir: Union[str, Path]) -> dict[str, Path]:
    """Create every case of `BAD_FILES` in `out_dir` (replacing earlier copies); return {key: path}."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {k: out / b.file_name for k, b in BAD_FILES.items()}
    for pth in paths.values():
        _clear(pth)
    _write_corrupt(paths["corrupt"])
    _write_encrypted(paths["encrypted"])
    paths["empty"].write_bytes(b"")
    _write_scanned(paths["scanned"])
    paths["notapdf"].write_bytes(_NOTAPDF)
    os.symlink(out / "does-not-exist" / "missing_10K.pdf", paths["dangling"])
    paths["directory"].mkdir()
    paths["good_txt"].write_text(_good_txt(), encoding="utf-8")
    paths["good_htm"].write_text(_good_htm(), encoding="utf-8")
    return paths


# --------------------------------------------------------------------------------------------------
# Hostile filings (issue 34, cases 2, 3, 8, 9): kept out of BAD_FILES, whose every case other tests index.
HOSTILE_FILES: dict[str, BadFile] = {b.key: b for b in (
    BadFile("nul_htm", "nul.htm", "no_text", "2 MB of NUL bytes (a sparse file) named .htm"),
    BadFile("nul_txt", "nul.txt", "no_text", "2 MB of NUL bytes (a sparse file) named .txt"),
    BadFile("nul_pdf", "nul.pdf", "no_text", "2 MB of NUL bytes (a sparse file) named .pdf"),
    BadFile("blank_htm", "blank.htm", "no_text", "whitespace only (spaces, tabs, newlines, form feeds)"),
    BadFile("blank_txt", "blank.txt", "no_text", "whitespace only (spaces, tabs, newlines, form feeds)"),
    BadFile("binary_htm", "binary.htm", "no_text", "64 KB of seeded random bytes named .htm"),
    BadFile("binary_txt", "binary.txt", "no_text", "64 KB of seeded random bytes named .txt"),
    BadFile("binary_pdf", "binary.pdf", "error", "64 KB of seeded random bytes named .pdf (no %PDF header)"),
    BadFile("truncated_pdf", "truncated.pdf", "error",
            "a 20-page text PDF cut at 70% of its bytes: MuPDF repairs it and reads 15 pages (damaged)"),
    BadFile("tail_cut_pdf", "tail_cut.pdf", "error",
            "the same PDF cut at 98%: every page reads, but the xref and %%EOF are gone (truncated)"),
)}


def text_pdf_bytes(pages: int = 20) -> bytes:
    """A compressed PDF of `pages` pages of text (30 lines each), deterministic."""
    doc = fitz.open()
    _fixed_metadata(doc, "Form 10-K")
    for i in range(pages):
        page = doc.new_page(width=612, height=792)
        for k in range(30):
            page.insert_text((50, 50 + k * 20), f"Page {i} line {k}: total revenue was {1000 + i * k} million.",
                             fontname="helv", fontsize=9)
    data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return data


_IX_HEADER = ('<ix:header><ix:resources><xbrli:context id="FY2023"><xbrli:entity>'
              '<xbrli:identifier scheme="http://www.sec.gov/CIK">0000000001</xbrli:identifier></xbrli:entity>'
              '<xbrli:period><xbrli:startDate>2023-01-01</xbrli:startDate><xbrli:endDate>2023-12-31'
              '</xbrli:endDate></xbrli:period></xbrli:context></ix:resources></ix:header>')


def ixbrl_filing(pages: int = 20, hostile_page: int = 3, scale: str = "6", decimals: str = "-6",
                 digits: str = "1,234") -> str:
    """An inline-XBRL filing of `pages` pages, one `us-gaap:Revenues` fact on each (scale 6); the fact on
    `hostile_page` has the given `scale`, `decimals` and displayed `digits`."""
    body = []
    for i in range(pages):
        s, d, v = (scale, decimals, digits) if i == hostile_page else ("6", "-6", f"{1000 + i:,}")
        body.append(f'<div><p>Page {i}: total revenue was $<ix:nonFraction name="us-gaap:Revenues" '
                    f'contextRef="FY2023" unitRef="usd" decimals="{d}" scale="{s}">{v}</ix:nonFraction> million.'
                    f'</p></div><hr style="page-break-after:always"/>')
    return f'<html><body>{_IX_HEADER}{"".join(body)}</body></html>'


def make_hostile_files(out_dir: Union[str, Path]) -> dict[str, Path]:
    """Create every case of `HOSTILE_FILES` in `out_dir` (replacing earlier copies); return {key: path}."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {k: out / b.file_name for k, b in HOSTILE_FILES.items()}
    for pth in paths.values():
        _clear(pth)
    for key in ("nul_htm", "nul_txt", "nul_pdf"):
        with open(paths[key], "wb") as fh:  # sparse: 2 MB of NULs without writing them
            fh.truncate(2 << 20)
    for key in ("blank_htm", "blank_txt"):
        paths[key].write_text(" \t\n\f\r\n" * 1000 + "\u3000\xa0\n", encoding="utf-8")
    for key in ("binary_htm", "binary_txt", "binary_pdf"):
        paths[key].write_bytes(random.Random(f"finrag-hostile|{key}").randbytes(64 << 10))
    pdf = text_pdf_bytes()
    paths["truncated_pdf"].write_bytes(pdf[: int(len(pdf) * 0.7)])
    paths["tail_cut_pdf"].write_bytes(pdf[: int(len(pdf) * 0.98)])
    return paths
