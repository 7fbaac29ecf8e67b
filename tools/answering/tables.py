"""Financial statement tables recovered from a page: row labels, one column per period, units and scale.

Two readers share one output (`Table`):

* `tables_from_words` works on PyMuPDF's word boxes (`page.get_text("words")`): words are grouped into
  visual rows by their vertical position, the period columns are the x positions of the year headers
  ("2018", "December 31, 2017", "Fiscal 2019"), and every number of a row goes to the nearest column.
  Labels keep their spaces and numbers their signs ("(1,577)" is -1577). This is the default when the
  filing's PDF is at hand (`page_tables`); a page takes a few milliseconds.
* `tables_from_text` works on the page text the index stores (one cell per line, as PyMuPDF's plain
  text puts it): a label line followed by its numbers, assigned to the year columns in order when the
  count matches. It is the fallback for documents without a PDF (.txt, .htm).

`bench/reader_tables.py` compares these with PyMuPDF's `page.find_tables()` and `pymupdf4llm`.
"""
from __future__ import annotations

import functools
import logging
import re
import stat as stat_mode
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Optional, cast

from finrag.tools.answering.page_heads import (  # noqa: F401 - re-exported: the page-heading readers' first home
    page_scale,
    page_statement,
    page_title,
    page_titles,
    statement_titles,
    table_scope,
)
from finrag.tools.answering.table_file import PageTableFile, page_key
from finrag.tools.answering.table_types import Column, Row, Table
from finrag.tools.cache import LruCache
from finrag.tools.documents.file_identity import CHANGED, file_state
from finrag.tools.documents.parsing import quiet_mupdf
from finrag.tools.numbers import SCALES, parse_number
from finrag.tools.numbers import is_dash as _is_dash

__all__ = ["SCALES", "Column", "Row", "Table", "parse_number", "page_scale", "page_statement", "statement_titles", "page_titles", "tables_from_words",
           "tables_from_text", "page_tables", "clean_label", "table_scope"]

log = logging.getLogger(__name__)

YEAR = re.compile(r"^(?:FY|fy|Fiscal|fiscal)?'?((?:19|20)\d\d)[,:;)*]?$")
_YEAR_ANY = re.compile(r"\b((?:19|20)\d\d)\b")
_GROUP_WORDS = re.compile(r"(?i)\b(three|six|nine|twelve|fiscal|year|years|months|quarter|weeks|ended|ending|"
                          r"as of|q[1-4])\b")


def clean_label(text: str) -> str:
    """A row label without footnote markers, leaders and trailing punctuation."""
    t = re.sub(r"\s*\(\d\)\s*", " ", text)
    t = re.sub(r"[.\u2026]{3,}", " ", t)
    t = re.sub(r"\s+", " ", t).strip(" :$.")
    return t


# --------------------------------------------------------------------------- word geometry
def _visual_rows(words: list) -> list[list]:
    """Words grouped into visual rows (by vertical centre), each sorted left to right."""
    ws = sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0]))
    rows: list[list] = []
    total = 0.0  # the sum of the last row's vertical centres, added in order (its mean is the row's centre)
    for w in ws:
        yc = (w[1] + w[3]) / 2
        h = max(1.0, w[3] - w[1])
        if rows:
            last = rows[-1]
            if abs(yc - total / len(last)) <= max(2.0, 0.45 * h):
                last.append(w)
                total += yc
                continue
        rows.append([w])
        total = 0.0 + yc
    return [sorted(r, key=lambda w: w[0]) for r in rows]


def _merge_cells(row: list) -> list[tuple[float, float, str]]:
    """Adjacent pieces of one cell joined: '$' + '5,363', '(1,577' + ')', '12.5' + '%'."""
    out: list[list] = []
    for w in row:
        x0, x1, t = w[0], w[2], w[4]
        if out:
            px0, px1, pt = out[-1]
            gap = x0 - px1
            if gap < 4.0 and (pt in ("$", "(", "($", "$(") or t in (")", "%", ")%", "%)")
                              or (pt.endswith("$") and parse_number(t) is not None)):
                out[-1] = [px0, x1, (pt + t) if pt not in ("$",) else t]
                continue
        out.append([x0, x1, t])
    return [(a, b, c) for a, b, c in out]


@functools.lru_cache(maxsize=65_536)  # pure, and asked of every cell of every visual row
def _year_of(tok: str) -> Optional[int]:
    m = YEAR.match(tok.strip())
    return int(m.group(1)) if m else None


def _is_value(tok: str) -> bool:
    """A number that is a table's value, not a date's day ('29,' of 'July 29, 2023')."""
    return parse_number(tok) is not None and not re.fullmatch(r"\d{1,2},?", tok.strip())


def _header_columns(cells: list[tuple[float, float, str]], label_end: float) -> list[tuple[float, int, str]]:
    """Year headers of a row: (x centre, year, header text) for cells right of the label area."""
    out = []
    for i, (x0, _x1, t) in enumerate(cells):
        y = _year_of(t)
        if y is None or x0 < label_end:
            continue
        # the words just before the year on the same row belong to its header ('December 31,', 'Fiscal')
        prefix: list[str] = []
        j = i - 1
        while j >= 0 and x0 - cells[j][1] < 40 and _year_of(cells[j][2]) is None and (
                parse_number(cells[j][2]) is None or re.fullmatch(r"\d{1,2},", cells[j][2].strip())):  # 'July 29,'
            prefix.insert(0, cells[j][2])
            x0 = cells[j][0]
            j -= 1
        out.append(((cells[i][0] + cells[i][1]) / 2, y, " ".join(prefix + [t]).strip()))
    return out


def _is_header_row(cells: list[tuple[float, float, str]], page_width: float) -> bool:
    """A row whose cells right of the page's first third are years (and date words), with no other numbers."""
    right = [c for c in cells if c[0] > page_width * 0.3]
    years = [c for c in right if _year_of(c[2]) is not None]
    if len(years) < 1:
        return False
    for c in right:
        t = c[2].strip().lower().strip(",.")
        if _year_of(c[2]) is not None:
            continue
        if parse_number(c[2]) is not None and not re.fullmatch(r"\d{1,2},?", t):
            return False
    # a data row that happens to have a year-like value ('2019' of 2,019 units) has a long label and one value
    label_words = [c for c in cells if c[0] <= page_width * 0.3]
    if len(years) == 1 and len(right) == 1 and len(label_words) > 3:
        return False
    # prose that ends in a year ('... the results of fiscal 2022') is not a header
    words = [c for c in cells if _year_of(c[2]) is None]
    if len(words) > 8 or len(right) - len(years) > 3 * len(years):
        return False
    return True


def tables_from_words(words: list, *, doc_id: str = "", page: int = 0, page_width: float = 612.0,
                      text: str = "") -> list[Table]:
    """Tables of one page from PyMuPDF word boxes `(x0, y0, x1, y1, text, ...)`."""
    vrows = [_merge_cells(r) for r in _visual_rows(words)]
    scale = page_scale(text or " ".join(w[4] for w in words[:400]))
    statement = page_statement(text or " ".join(w[4] for w in words[:120]))
    tables: list[Table] = []
    current: Optional[Table] = None
    label_end = page_width * 0.3
    pending_label = ""
    group_row: list[tuple[float, float, str]] = []
    section = ""
    above: list[str] = []  # label-only lines since the last row with values: the next table's caption
    for cells in vrows:
        line = " ".join(c[2] for c in cells)
        titled = statement_titles(line) if len(cells) <= 14 else []
        if titled:
            statement = titled[0]
        if _is_header_row(cells, page_width):
            heads = _header_columns(cells, page_width * 0.3)
            if not heads:
                continue
            xs = [h[0] for h in heads]
            # a second header row right under the first (e.g. 'December 31,' then '2018 2017') extends it
            if current is not None and not current.rows and len(current.columns) == len(heads):
                for c, h in zip(current.columns, heads):
                    c.header = f"{c.header} {h[2]}".strip()
                    c.year = h[1]
                continue
            cols = [Column(year=h[1], header=h[2], x=h[0]) for h in heads]
            for gx0, gx1, gt in group_row:
                for c in cols:
                    if gx0 - 30 <= cast(float, c.x) <= gx1 + 30:  # x set from the header just above
                        c.group = f"{c.group} {gt}".strip()
            gap = min((b - a for a, b in zip(xs, xs[1:])), default=80.0)
            label_end = min(xs) - max(25.0, 0.55 * gap)
            current = Table(doc_id=doc_id, page=page, columns=cols, rows=[], scale=scale, statement=statement,
                            method="words", caption="\n".join(above[-6:]))
            tables.append(current)
            pending_label, section, group_row, above = "", "", [], []
            continue
        if current is None or not any(_is_value(c[2]) for c in cells if c[0] > page_width * 0.3):
            above.append(line)
        else:
            above = []
        # a period group line ('Three Months Ended ... Six Months Ended') above the next header, the first table's
        # or a later one's
        right = [c for c in cells if c[0] > page_width * 0.3]
        if right and _GROUP_WORDS.search(" ".join(c[2] for c in right)) and not any(_is_value(c[2]) for c in right):
            group_row = _group_spans(right)
        if current is None:
            continue
        label_words = [c[2] for c in cells if c[1] <= label_end + 2 or parse_number(c[2]) is None and c[0] < label_end]
        value_cells = [c for c in cells if c[0] >= label_end - 2 and (parse_number(c[2]) is not None or _is_dash(c[2]))]
        label = clean_label(" ".join(t for t in label_words if t not in ("$",)))
        if not value_cells:
            if label and not any(_year_of(t) for t in label.split()[-1:]):
                # a label continued on the next line, or a section heading
                if pending_label and label[:1].islower():
                    pending_label = f"{pending_label} {label}"
                else:
                    pending_label = label
                    if label.endswith(":") or len(label) < 80:
                        section = label
            continue
        if label and label[:1].islower() and pending_label:
            label = f"{pending_label} {label}"
        elif not label:
            # a total printed without a label closes its section ('Revenues' ... then the sum)
            label = pending_label or (f"Total {section.rstrip(':').lower()}" if section else "")
        pending_label = ""
        if not label:
            continue
        row = Row(label=label, section=section)
        for x0, x1, t in value_cells:
            xc = (x0 + x1) / 2
            best = min(range(len(current.columns)), key=lambda i: abs((current.columns[i].x or 0) - xc))
            if best in row.values:
                continue
            v = 0.0 if _is_dash(t) else parse_number(t)
            if v is None:
                continue
            row.values[best] = v
            row.raw[best] = t
        if row.values:
            current.rows.append(row)
    scope = table_scope("\n".join(text.splitlines()[:15]))
    for tb in tables:
        tb.title = page_title(text)
        tb.scope = scope
    return [t for t in tables if t.rows]


def _group_spans(cells: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """Header words grouped into phrases by horizontal gaps: 'Three Months Ended' | 'Six Months Ended'."""
    spans: list[list] = []
    for x0, x1, t in cells:
        if spans and x0 - spans[-1][1] < 12:
            spans[-1][1] = x1
            spans[-1][2] += " " + t
        else:
            spans.append([x0, x1, t])
    return [(a, b, c) for a, b, c in spans]


# --------------------------------------------------------------------------- plain text
def _year_cell(ln: str) -> bool:
    """A header cell that is a year or a date ('2024', 'FY2024', 'June 28, 2025', 'At June 30, 2025')."""
    return bool(YEAR.match(ln) or re.fullmatch(r"(?i)(?:(?:at|as of)\s+)?(?:[a-z]+\.?\s+\d{1,2},?\s*)?(?:19|20)\d\d", ln))


def tables_from_text(text: str, *, doc_id: str = "", page: int = 0) -> list[Table]:
    """Tables of one page from its plain text (one cell per line): the fallback without a PDF.

    Rows written one per line with ` | ` between cells (EDGAR HTML, `tools/documents/html.py`) are split
    into their cells first."""
    raw_rows = text.splitlines()
    cells = [(r, cell.strip()) for r, ln in enumerate(raw_rows) for cell in ln.split(" | ")]
    cells = [(r, c) for r, c in cells if c and c != "$"]
    lines, row_of = [c for _r, c in cells], [r for r, _c in cells]
    scale = page_scale(text)
    page_head = "\n".join(raw_rows[:15])
    # the statement only from a title line at the top of the page: a note that mentions "the Consolidated Statements
    # of Operations" in its prose holds no statement (its share-based compensation 'Research and development' row
    # is not the income statement's)
    titles = statement_titles(page_head)
    statement = titles[0] if titles else None
    tables: list[Table] = []
    i = 0
    while i < len(lines):
        # a header: two or more consecutive lines that are years (possibly after a date prefix)
        years, j, heads = [], i, []
        while j < len(lines):
            ln = lines[j]
            m = _YEAR_ANY.search(ln)
            only_year = m and _year_cell(ln)
            if m and only_year:
                years.append(int(m.group(1)))
                heads.append(ln)
                j += 1
            elif years and re.fullmatch(r"(?i)[a-z]+\.?\s+\d{1,2},?", ln):
                j += 1
            else:
                break
        if len(years) < 2:
            i += 1
            continue
        cols = [Column(year=y, header=h) for y, h in zip(years, heads)]
        caption = _caption(raw_rows, row_of[i])
        _group_columns(cols, raw_rows, row_of[i])
        table = Table(doc_id=doc_id, page=page, columns=cols, rows=[], scale=page_scale(caption) or scale,
                      statement=statement, method="text", title=page_title(text),
                      scope=table_scope(caption) or table_scope(page_head),
                      caption="\n".join(" ".join(ln.split()) for ln in caption.splitlines() if ln.strip()))
        k, section, label = j, "", ""
        while k < len(lines):
            ln = lines[k]
            toks = ln.replace("($", "(").replace("$", " ").split()  # '($820)' is one number
            nums = [t for t in toks if parse_number(t) is not None or _is_dash(t)]
            if toks and len(nums) == len(toks):
                if label:
                    # nums holds numbers and dashes only, so parse_number gives a number here
                    vals = [0.0 if _is_dash(t) else cast(float, parse_number(t)) for t in nums]
                    pend = table.rows[-1] if table.rows and table.rows[-1].label == label else None
                    if pend is None:
                        pend = Row(label=label, section=section)
                        table.rows.append(pend)
                    for t, v in zip(nums, vals):
                        n = len(pend.values)
                        if n < len(cols):
                            pend.values[n] = v
                            pend.raw[n] = t
                k += 1
                continue
            # the next header starts another table ('2025 | 2024', 'June 28, 2025 | June 29, 2024')
            if _year_cell(ln) and k + 1 < len(lines) and _year_cell(lines[k + 1]):
                break
            if table.rows and table.rows[-1].label == label and len(table.rows[-1].values) != len(cols):
                table.rows.pop()
            label = clean_label(ln)
            if label.endswith(":") or (k + 1 < len(lines) and parse_number(lines[k + 1].replace("$", "").split()[0]
                                                                           if lines[k + 1].replace("$", "").split()
                                                                           else "") is None):
                section = label
            k += 1
        if table.rows and len(table.rows[-1].values) != len(cols):
            table.rows.pop()
        if table.rows:
            tables.append(table)
        i = max(k, i + 1)
    return tables


_PERIOD_GROUP = re.compile(r"(?i)\b(?:three|six|nine|twelve|thirteen|twenty-six|thirty-nine|fifty-two|fifty-three)\b"
                           r".*\b(?:months?|weeks?)\b|\bquarters? ended\b|\b(?:fiscal )?years? ended\b|\byear[- ]to[- ]date\b")
_DATA_ROW = re.compile(r" \| \(?-?\$?\(?\d[\d,.]*\)?%?\)?(?: \||$)")


def _caption(raw_rows: list[str], header_row: int, max_rows: int = 6) -> str:
    """The heading lines above a table's header row (back to the previous table's last data row)."""
    out: list[str] = []
    r = header_row
    while r >= 0 and len(out) < max_rows + 1:
        ln = raw_rows[r]
        if r < header_row and _DATA_ROW.search(ln):
            break
        if ln.strip():
            out.insert(0, ln)
        r -= 1
    return "\n".join(out)


def _group_columns(cols: list[Column], raw_rows: list[str], header_row: int) -> None:
    """Period groups ('Three Months Ended June 30,' | 'Six Months Ended June 30,') from the line above the year
    header (or its own leading cells), spread over the year columns in order when their counts divide."""
    for r in range(header_row, max(-1, header_row - 3), -1):
        cells = [c.strip() for c in raw_rows[r].split(" | ") if c.strip()]
        groups = [c for c in cells if _PERIOD_GROUP.search(c) and not _YEAR_ANY.fullmatch(c)]
        if r < header_row and _DATA_ROW.search(raw_rows[r]):
            return
        if groups and len(cols) % len(groups) == 0:
            span = len(cols) // len(groups)
            for k, c in enumerate(cols):
                c.group = f"{c.group} {groups[k // span]}".strip()
            return


# --------------------------------------------------------------------------- pages of a filing
_CACHE_SIZE = 4096
_CACHE: LruCache[tuple[str, int, str, str], list[Table]] = LruCache(_CACHE_SIZE)  # a page's tables, per method


_PDFS: "OrderedDict[str, Any]" = OrderedDict()  # open pymupdf Documents
_PDF_LOCK = threading.Lock()
_PDF_OPEN = 8


def _open_pdf(path: str):
    """An open PyMuPDF document, kept open for the next pages (opening a 500-page filing takes ~60 ms);
    the caller holds `_PDF_LOCK` (PyMuPDF documents are not thread-safe)."""

    pymupdf = quiet_mupdf()

    key = str(Path(path).resolve())
    doc = _PDFS.get(key)
    if doc is None:
        doc = pymupdf.open(key)
        _PDFS[key] = doc
        while len(_PDFS) > _PDF_OPEN:
            _PDFS.popitem(last=False)[1].close()
    else:
        _PDFS.move_to_end(key)
    return doc


def page_tables(doc_id: str, page: int, text: str, pdf_path: str = "", method: str = "words",
                shared: Optional[PageTableFile] = None, content_hash: str = "") -> list[Table]:
    """The tables of page `page` of a filing: from the PDF's word boxes when `pdf_path` is a readable PDF
    (`method='words'`), else from the stored page `text`. Cached per (doc, page, method, file) in this process, and
    those read from a PDF also in `shared` (the index's `PageTableFile`, for the other processes).

    `content_hash`: the SHA-256 the index recorded for the file (`StorePages.content_hash`). With it, the PDF is
    read only while the file at `pdf_path` still has that hash (`file_identity.file_state`), and the tables are
    kept under it: a file replaced since indexing (another filing copied over it) is never read as this filing:
    the stored text is, and the log says `file_identity.CHANGED` once. Without it (PDFs read directly, no index)
    the file is known by its path, size and modification time."""
    pdf_named = bool(pdf_path) and method == "words" and pdf_path.lower().endswith(".pdf")
    identity = ""  # what names the PDF's bytes when they are read
    if pdf_named:
        got = _CACHE.get((doc_id, page, "words", content_hash))  # read from this very file before: no disk look
        if got is not None:
            return got
        if content_hash:
            state = file_state(pdf_path, content_hash)
            if state == "ok":
                identity = "sha256:" + content_hash
            elif state == "changed":
                _say_changed(doc_id, pdf_path, content_hash)
        elif (stat := _pdf_stat(pdf_path)) is not None:
            identity = f"stat:{stat[0]}|{stat[1]}|{stat[2]}"
    use_pdf = bool(identity)
    key = (doc_id, page, "words" if use_pdf else "text", content_hash)
    got = _CACHE.get(key)
    if got is not None:
        return got
    disk_key = ""
    if use_pdf and shared is not None:
        disk_key = page_key(doc_id, page, text, identity)
        got = shared.get(disk_key)
        if got is not None:
            _CACHE.put(key, got)
            return got
    tables: list[Table] = []
    if use_pdf:
        try:
            with _PDF_LOCK:
                doc = _open_pdf(pdf_path)
                if 0 <= page < doc.page_count:
                    p = doc[page]
                    words, width = p.get_text("words"), p.rect.width
                    text = text or p.get_text()
                else:
                    words = []
            if words:
                tables = tables_from_words(words, doc_id=doc_id, page=page, page_width=width, text=text)
        except Exception:  # an unreadable PDF falls back to the stored text
            tables = []
    if not tables and text:
        tables = tables_from_text(text, doc_id=doc_id, page=page)
    _CACHE.put(key, tables)
    if disk_key and shared is not None:
        shared.put(disk_key, tables)
    return tables


_SAID: LruCache[tuple[str, str], bool] = LruCache(1024)


def _say_changed(doc_id: str, pdf_path: str, content_hash: str) -> None:
    """Log, once per filing and indexed hash, that its file was replaced since indexing (its tables come from the
    indexed text)."""
    if _SAID.get((doc_id, content_hash)) is None:
        _SAID.put((doc_id, content_hash), True)
        log.warning("%s (%s): %s; its tables are read from the indexed text", doc_id, Path(pdf_path).name, CHANGED)


def _pdf_stat(pdf_path: str) -> Optional[tuple[Path, int, int]]:
    """(resolved path, size, modification time in ns) of a PDF file, None when it is not a file."""
    try:
        path = Path(pdf_path).resolve()
        st = path.stat()
    except (OSError, RuntimeError, ValueError):
        return None
    return (path, st.st_size, st.st_mtime_ns) if stat_mode.S_ISREG(st.st_mode) else None
