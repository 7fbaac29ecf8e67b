"""A document's id from its path, and printable ids.

`doc_id_for` keeps a file's name without extension, except where the layouts finrag reads would make it
ambiguous (`layout_doc_id`: sec-edgar-downloader's folders, the paper's `{year}/{TICKER}.pdf`, a folder per
company), and replaces control characters (`safe_id`). What a file name says about the filing (company, period,
form) is routing's reading of it (`finrag.tools.routing.filenames.parse_path`).
"""
from __future__ import annotations

import re
from pathlib import Path, PurePath
from typing import Optional

__all__ = ["PAPER_TICKER", "doc_id_for", "downloader_parts", "is_period_only", "layout_doc_id", "printable", "safe_id"]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
PAPER_TICKER = re.compile(r"[A-Za-z]{1,5}(?:[.\-][A-Za-z]{1,2})?")


PERIOD_WORDS = re.compile(
    r"(?:19|20)\d{2}(?:[-_]?\d{2}){0,2}|FY|CY|Q[1-4]|[1-4]Q|H[12]|10-?K(?:A|405)?|10-?Q(?:A)?|8-?K(?:A)?|"
    r"annual|report|quarterly|earnings|release|press|form|filing|transcript|dated|final|amended|amendment|v\d+|"
    r"\d{1,2}", re.IGNORECASE)


def safe_id(text: str) -> str:
    """`text` with every control character (see `_UNSAFE`) replaced by `_`: a document id is one printable
    word in `info` lines, citations and JSON, whatever the file was called."""
    return _UNSAFE.sub("_", text)


def printable(text: object) -> str:
    """`text` for one line of output: control characters written as escapes (`\\n`, `\\x1b`), so a file
    name can neither break a line (and forge the next one) nor send terminal escape codes."""
    return _UNSAFE.sub(lambda m: repr(m.group())[1:-1], str(text))


def is_period_only(stem: str) -> bool:
    """'2023', 'FY2023', '10-K_2023', '2023Q2_10Q': names that carry no company."""
    if not re.search(r"(?:19|20)\d{2}|10-?[KQ]|8-?K", stem, re.I):
        return False
    text = re.sub(r"(?<![A-Za-z0-9])(?:10-?K(?:A|405)?|10-?Q(?:A)?|8-?K(?:A)?)(?![A-Za-z])", " ", stem, flags=re.I)
    words = [w for w in re.split(r"[^A-Za-z0-9]+", text) if w]
    return all(PERIOD_WORDS.fullmatch(w) or re.fullmatch(r"(?:FY|Q[1-4])?\d+(?:Q[1-4])?", w, re.I) for w in words)


_DOWNLOADER_FILES = re.compile(r"(?i)primary-document\.html?|full-submission\.txt")
_ACCESSION = re.compile(r"\d{10}-\d{2}-\d{6}")


def downloader_parts(p: PurePath) -> Optional[tuple[str, str, str]]:
    """sec-edgar-downloader's `sec-edgar-filings/TICKER/FORM/ACCESSION/primary-document.html` (or
    `full-submission.txt`): (ticker, form, accession), else None."""
    parts = p.parts
    if len(parts) < 4 or not _DOWNLOADER_FILES.fullmatch(p.name) or not _ACCESSION.fullmatch(parts[-2]):
        return None
    return parts[-4], parts[-3], parts[-2]


def layout_doc_id(path: str | PurePath) -> str:
    """A document id that stays unique in every supported layout.

    FinanceBench and generic names keep their file name without extension (`3M_2018_10K`); the
    paper's `{year}/{TICKER}.pdf` becomes `TICKER_year` (`2022/MMM.pdf` -> `MMM_2022`); a name that
    only gives a period, inside a folder per company, is prefixed with the folder
    (`AAPL/10-K_2023.pdf` -> `AAPL_10-K_2023`). The indexer qualifies the rare remaining clashes."""
    try:
        p = PurePath(str(path))
    except Exception:
        return ""
    stem, parent = p.stem, p.parent.name
    downloaded = downloader_parts(p)
    if downloaded:
        return "_".join(downloaded)
    if re.fullmatch(r"(?:19|20)\d{2}", parent or "") and PAPER_TICKER.fullmatch(stem or ""):
        return f"{stem.upper()}_{parent}"
    if stem and parent and parent not in (".", "..") and is_period_only(stem) \
            and not re.fullmatch(r"(?:19|20)\d{2}", parent):
        folder = re.sub(r"[^A-Za-z0-9&.\-]+", "_", parent).strip("_")
        return f"{folder}_{stem}" if folder else stem
    return stem


def doc_id_for(path: str | Path) -> str:
    """A document's id: its file name without extension, except where that would not be unique (the paper's
    `{year}/{TICKER}.pdf` -> `TICKER_year`; see `layout_doc_id`), with control characters replaced by `_`
    (`safe_id`; the indexer keeps ids unique)."""
    return safe_id(layout_doc_id(path) or Path(path).stem)
