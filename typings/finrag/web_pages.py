"""The filings behind the answer page (`finrag.web`): a cited page as an image or as text, the cited passage
located on it, and each filing's identity with where every field came from.

    view = page_view(store, "ACMEWIDGETS_2022_10K", 6, chunk_id=14, marks=["1,476.2"])
    view["boxes"]                 # [{x, y, w, h, kind}] as fractions of the page: "passage" and "mark"
    png, etag = page_png(store, "ACMEWIDGETS_2022_10K", 6, zoom=1.5)

A document is looked up by its id in the store (`store.document_hashes()`), a page by its number in the
store's pages; neither is ever used to build a path: the file that is opened is the path the index recorded
for that id. A PDF page is rendered with PyMuPDF from that file when the file is still the one that was
indexed (same SHA-256 as the index's `content_hash`); otherwise, and for HTML and text filings, the page is
the index's own text with the passage marked in it.

Where a passage is on a PDF page: the index's page text *is* PyMuPDF's `page.get_text()` of that page, and a
chunk is a span of the document's pages joined with newlines (`tools/indexing/chunking.py`), so the chunk's
part of the page is a span of the page text; its words are aligned with the page's positioned words
(`get_text("words")`, difflib on the word sequences) and merged into one box per line. Marks (the figures
and labels of the sentence that cites the page) are word sequences found the same way.

Everything derived is cached by content hash (a rebuilt filing gets new entries): rendered PNGs, positioned
words and page texts, in small LRU caches.
"""
from __future__ import annotations

import difflib
import json
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from finrag.state.forms import FORM_LABELS
from finrag.tools.answering.page_labels import printed_label
from finrag.tools.documents.file_identity import CHANGED
from finrag.tools.visible import shown

if TYPE_CHECKING:
    from finrag.tools.indexing.open_index import OpenIndex

__all__ = ["MAX_CHUNK_ID", "MAX_MARK_QUERY_CHARS", "MAX_MARKS_ASKED", "PageError", "ZOOMS", "check_zoom", "filing",
           "identity", "page_png", "page_view"]

ZOOMS = (1.0, 1.5, 2.0, 3.0)
"""The zoom factors a page image may be rendered at (72 dpi times the factor); others are refused (422), by the
page route and the image route alike (`check_zoom`)."""
MAX_MARKS = 8  # marks located on a page (the first ones asked for) ...
MAX_MARK_CHARS = 120  # ... each from its first characters
MAX_MARKS_ASKED = 16  # more marks in one request are refused (422): the answer page sends at most 6
MAX_MARK_QUERY_CHARS = 1000  # so is a longer mark
MAX_CHUNK_ID = 2 ** 63 - 1  # chunk ids are SQLite integers; a larger one is refused (422), not an OverflowError
_WORD = re.compile(r"\S+")
_EDGE = re.compile(r"^[^0-9A-Za-z]+|[^0-9A-Za-z%]+$")
_FITZ = threading.Lock()  # PyMuPDF is not thread-safe: one document operation at a time


class PageError(LookupError):
    """A page that cannot be served: `status` (404, 422) and a one-line message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class _LRU:
    """A small thread-safe LRU cache: `get(key, make)`."""

    def __init__(self, size: int):
        self.size, self.lock = size, threading.Lock()
        self.data: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key, make: Callable[[], Any]):
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        value = make()
        with self.lock:
            self.data[key] = value
            while len(self.data) > self.size:
                self.data.popitem(last=False)
        return value


_PNGS = _LRU(96)       # (content_hash, page, zoom) -> PNG bytes (~100-200 KB each)
_WORDS = _LRU(256)     # (content_hash, page) -> (width, height, words)
_PAGES = _LRU(16)      # (doc_id, content_hash) -> page texts
_IDENTITY = _LRU(1024)  # (doc_id, content_hash, info json) -> provenance


# ------------------------------------------------------------------ documents
def _file_kind(path: str) -> str:
    suffix = Path(path).suffix.lower()
    return {".pdf": "pdf", ".htm": "html", ".html": "html"}.get(suffix, "text")


def filing(store: OpenIndex, doc_id: str) -> dict:
    """The indexed filing `doc_id`: {doc_id, path, content_hash, kind (pdf|html|text), n_pages, info}; a
    PageError 404 when the index holds no document of that id."""
    hashes = store.document_hashes()
    if not isinstance(doc_id, str) or doc_id not in hashes:
        shown = doc_id if not isinstance(doc_id, str) or len(doc_id) <= 120 else doc_id[:117] + "..."
        raise PageError(404, f"no filing {shown!r} in the index")
    content_hash, path = hashes[doc_id]
    pages = _PAGES.get((doc_id, content_hash), lambda: list(store.pages_of(doc_id)))
    info = next((d for d in store.documents() if d.doc_id == doc_id), None)
    return {"doc_id": doc_id, "path": str(path or ""), "content_hash": str(content_hash or ""),
            "kind": _file_kind(str(path or "")), "pages": pages, "n_pages": len(pages), "info": info}


def file_state(path: str, content_hash: str) -> str:
    """'ok' when the file at `path` is the one that was indexed, else 'missing' or 'changed'
    (`finrag.tools.documents.file_identity.file_state`: a file copied over it is 'changed' even with its size and
    modification time restored)."""
    from finrag.tools.documents.file_identity import file_state as state_of

    return state_of(path, content_hash)


def _page_no(doc: dict, page: Any) -> int:
    try:
        n = int(page)
    except (TypeError, ValueError):
        raise PageError(422, f"page must be a number, not {page!r}") from None
    if not 0 <= n < doc["n_pages"]:
        raise PageError(404, f"{doc['doc_id']} has no page {n} (its pages are 0-{doc['n_pages'] - 1})")
    return n


def check_zoom(zoom: Any) -> float:
    """`zoom` as one of ZOOMS, else PageError 422 (one rule for the page route and the image route, so a page
    view never points at an image URL that is refused)."""
    try:
        z = float(zoom)
    except (TypeError, ValueError, OverflowError):
        raise PageError(422, f"zoom must be one of {', '.join(f'{z:g}' for z in ZOOMS)}, not {zoom!r}") from None
    if z not in ZOOMS:
        raise PageError(422, f"zoom must be one of {', '.join(f'{z:g}' for z in ZOOMS)}, not {z:g}")
    return z


def _chunk_no(chunk_id: Any) -> Optional[int]:
    """`chunk_id` as an int in 0-MAX_CHUNK_ID (None stays None), else PageError 422."""
    if chunk_id is None:
        return None
    try:
        n = int(chunk_id)
    except (TypeError, ValueError, OverflowError):
        raise PageError(422, f"chunk must be a chunk id (a whole number), not {str(chunk_id)[:40]!r}") from None
    if not 0 <= n <= MAX_CHUNK_ID:
        shown = str(n) if len(str(n)) <= 30 else str(n)[:27] + "..."
        raise PageError(422, f"chunk must be a chunk id, 0-{MAX_CHUNK_ID}, not {shown}")
    return n


def _asked_marks(marks: Sequence[str] | None) -> list[str]:
    """The marks asked for, at most MAX_MARKS_ASKED of at most MAX_MARK_QUERY_CHARS characters, else PageError 422."""
    asked = [str(m) for m in (marks or [])]
    if len(asked) > MAX_MARKS_ASKED:
        raise PageError(422, f"mark: at most {MAX_MARKS_ASKED} marks per page, not {len(asked)}")
    for m in asked:
        if len(m) > MAX_MARK_QUERY_CHARS:
            raise PageError(422, f"mark: a mark is at most {MAX_MARK_QUERY_CHARS} characters, not {len(m)}")
    return asked


# ---------------------------------------------------------------- rendering
def _words_of(path: str, content_hash: str, page_no: int) -> tuple[float, float, list]:
    def make():
        from finrag.tools.documents.parsing import quiet_mupdf

        pymupdf = quiet_mupdf()

        with _FITZ, pymupdf.open(path) as pdf:
            page = pdf[page_no]
            rect = page.rect
            return float(rect.width), float(rect.height), [tuple(w[:7]) for w in page.get_text("words")]

    return _WORDS.get((content_hash, page_no), make)


def page_png(store: OpenIndex, doc_id: str, page: Any, zoom: float = 1.5) -> tuple[bytes, str]:
    """A PDF page rendered as PNG at `zoom` (one of ZOOMS) and its ETag; PageError 404 for an unknown filing or
    page, or a filing whose indexed file is missing, changed or not a PDF (the page's text is still served)."""
    zoom = check_zoom(zoom)
    doc = filing(store, doc_id)
    n = _page_no(doc, page)
    if doc["kind"] != "pdf":
        raise PageError(404, f"{doc_id} is an {doc['kind'].upper()} filing: it has no page images, only text")
    state = file_state(doc["path"], doc["content_hash"])
    if state != "ok":
        raise PageError(409 if state == "changed" else 404, f"{doc_id}: {CHANGED}" if state == "changed" else
                        f"the PDF of {doc_id} is missing since it was indexed: no page image, only text")

    def make() -> bytes:
        from finrag.tools.documents.parsing import quiet_mupdf

        pymupdf = quiet_mupdf()

        with _FITZ, pymupdf.open(doc["path"]) as pdf:
            pix = pdf[n].get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
            return pix.tobytes("png")

    png = _PNGS.get((doc["content_hash"], n, zoom), make)
    return png, f'"{doc["content_hash"][:16]}-{n}-{zoom:g}"'


# ----------------------------------------------------------------- passages
def _norm(word: str) -> str:
    return _EDGE.sub("", word).lower()


def _text_words(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), _norm(m.group())) for m in _WORD.finditer(text)]


def _chunk_span(doc: dict, page_no: int, chunk) -> Optional[tuple[int, int]]:
    """The part of `chunk` that lies on page `page_no`, as offsets in that page's text (None if none)."""
    pages = doc["pages"]
    if chunk is None or not (chunk.page_start <= page_no <= chunk.page_end):
        return None
    starts, pos = [], 0
    for text in pages:
        starts.append(pos)
        pos += len(text) + 1
    joined = "\n".join(pages)
    at = joined.find(chunk.text, starts[chunk.page_start]) if chunk.text else -1
    if at < 0:
        return None
    page_start, page_end = starts[page_no], starts[page_no] + len(pages[page_no])
    a, b = max(at, page_start), min(at + len(chunk.text), page_end)
    return (a - page_start, b - page_start) if b > a else None


def _marks(marks: Sequence[str] | None) -> list[list[str]]:
    out: list[list[str]] = []
    for m in list(marks or [])[:MAX_MARKS]:
        words = [w for w in (_norm(x) for x in str(m)[:MAX_MARK_CHARS].split()) if w]
        if words and words not in out:
            out.append(words)
    return out


def _find_sequences(words: Sequence[str], wanted: list[list[str]]) -> list[tuple[int, int]]:
    """(first, last + 1) word positions of every occurrence of each wanted word sequence."""
    hits = []
    for seq in wanted:
        k = len(seq)
        for i in range(len(words) - k + 1):
            if list(words[i:i + k]) == seq:
                hits.append((i, i + k))
    return hits


def _boxes(pdf_words: list, indices: Sequence[int], width: float, height: float, kind: str) -> list[dict]:
    """One box per line over the given positioned words, as fractions of the page."""
    lines: dict[tuple, list[float]] = {}
    for i in sorted(set(indices)):
        x0, y0, x1, y1, _w, block, line = pdf_words[i]
        box = lines.setdefault((block, line), [x0, y0, x1, y1])
        box[0], box[1], box[2], box[3] = min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)
    return [{"x": round(b[0] / width, 5), "y": round(b[1] / height, 5), "w": round((b[2] - b[0]) / width, 5),
             "h": round((b[3] - b[1]) / height, 5), "kind": kind} for b in lines.values()]


def page_view(store: OpenIndex, doc_id: str, page: Any, *, chunk_id: Optional[int] = None,
              marks: Sequence[str] | None = None, zoom: float = 1.5) -> dict:
    """One page of an indexed filing for the viewer: its text, whether an image exists, the cited chunk's part
    of the page and the marks located on it (`boxes` on the image, `spans` in the text), and the filing's
    identity; PageError for an unknown filing or page (ids are looked up in the store, never used as paths), and
    422 for a parameter out of its bounds (a zoom not in ZOOMS, a chunk id beyond SQLite's, too many or too long
    marks)."""
    zoom, chunk_id, marks = check_zoom(zoom), _chunk_no(chunk_id), _asked_marks(marks)
    doc = filing(store, doc_id)
    n = _page_no(doc, page)
    text = doc["pages"][n]
    notes = []
    chunk = None
    if chunk_id is not None:
        chunk = store.get_chunks([chunk_id]).get(chunk_id)
        if chunk is None or chunk.doc_id != doc_id:
            notes.append(f"chunk {chunk_id} is not a chunk of {doc_id}: nothing is highlighted for it")
            chunk = None
    span = _chunk_span(doc, n, chunk)
    if chunk is not None and span is None and chunk.page_start <= n <= chunk.page_end:
        notes.append("the cited passage could not be located on this page")
    twords = _text_words(text)
    wanted = _marks(marks)
    spans: list[list] = []
    passage_idx = [i for i, (s, e, _w) in enumerate(twords) if span and s < span[1] and e > span[0]]
    if span:
        spans.append([span[0], span[1], "passage"])
    mark_hits = _find_sequences([w for _s, _e, w in twords], wanted)
    spans += [[twords[i][0], twords[j - 1][1], "mark"] for i, j in mark_hits]

    state = file_state(doc["path"], doc["content_hash"])
    boxes: list[dict] = []
    width = height = None
    if doc["kind"] == "pdf" and state == "ok":
        width, height, pwords = _words_of(doc["path"], doc["content_hash"], n)
        sm = difflib.SequenceMatcher(None, [w for _s, _e, w in twords], [_norm(w[4]) for w in pwords],
                                     autojunk=False)
        to_pdf = {}
        for a, b, size in sm.get_matching_blocks():
            for k in range(size):
                to_pdf[a + k] = b + k
        boxes += _boxes(pwords, [to_pdf[i] for i in passage_idx if i in to_pdf], width, height, "passage")
        pdf_norm = [_norm(w[4]) for w in pwords]
        for i, j in _find_sequences(pdf_norm, wanted):
            boxes += _boxes(pwords, range(i, j), width, height, "mark")
    elif doc["kind"] == "pdf":
        notes.append(f"{CHANGED}: showing the indexed text" if state == "changed" else
                     "the PDF at the indexed path is missing since it was indexed: showing the indexed text")
    info = doc["info"]
    return {
        "doc_id": doc_id, "page": n, "n_pages": doc["n_pages"], "kind": doc["kind"],
        "printed": printed_label(doc["pages"], n),  # the number the filing prints on the page (or None)
        "view": "image" if width else "text",
        # the content hash in the URL: a rebuilt filing's page is a new URL, so browsers may cache images long
        "image": f"/documents/{_quote(doc_id)}/pages/{n}/image?zoom={zoom:g}&v={doc['content_hash'][:16]}"
        if width else None,
        "width": width, "height": height, "text": text, "boxes": boxes, "spans": spans,
        "passage": {"chunk_id": chunk.chunk_id if chunk else None, "found": bool(span),
                    "page_start": chunk.page_start if chunk else None, "page_end": chunk.page_end if chunk else None},
        "file": f"/documents/{_quote(doc_id)}/file", "file_state": state,
        "prev": n - 1 if n > 0 else None, "next": n + 1 if n + 1 < doc["n_pages"] else None,
        "label": _label(info, doc_id), "company": shown(getattr(info, "company", "")), "note": "; ".join(notes),
    }


def _quote(doc_id: str) -> str:
    from urllib.parse import quote

    return quote(doc_id, safe="")


def _label(info, doc_id: str) -> str:
    if info is None:
        return doc_id
    form = {"10K": "10-K", "10Q": "10-Q", "8K": "8-K"}.get(info.form, info.form)
    return shown(" ".join(x for x in (info.company, form, info.period or "") if x) or doc_id)


# ----------------------------------------------------------------- identity


def identity(store: OpenIndex, info, content_hash: str = "") -> dict:
    """A filing's registry entry for the filings page: company, registrant, tickers, form, period, period end,
    fiscal year end and filing date, each as {value, source} where source says where the value came from
    ('file name', 'cover page', 'alias book', 'EDGAR sidecar (...)', or 'not found'), plus pages and file."""
    key = (info.doc_id, content_hash, info.model_dump_json())
    return _IDENTITY.get(key, lambda: _identity(store, info))


def _identity(store: OpenIndex, info) -> dict:
    from finrag.tools.routing.cover import parse_cover_page
    from finrag.tools.routing.documents import clean_company_name
    from finrag.tools.routing.filenames import parse_path

    path = str(info.path or "")
    pages = list(store.pages_of(info.doc_id))
    p = parse_path(path) if path else {}
    c = parse_cover_page("\n".join(pages[:3]))
    side = _sidecar(path)
    fields: dict[str, dict] = {}

    def put(name: str, value, source: str) -> None:
        shown_value = shown(value) if isinstance(value, str) else value  # a filing's text, its invisible characters escaped
        fields[name] = {"value": shown_value, "source": source if value not in (None, "", []) else "not found"}

    if side is not None:
        how = side.get("identity_source") or {}
        sidecar = "EDGAR sidecar " + Path(path).with_suffix(".json").name
        put("company", info.company, f"{sidecar} (company name, alias book)")
        put("registrant", info.registrant, f"{sidecar} (conformed name)")
        put("tickers", list(info.tickers), f"{sidecar} ({how.get('tickers', 'tickers')})")
        put("form", FORM_LABELS.get(info.form, info.form), f"{sidecar} (form)")
        put("period", info.period, f"{sidecar} (fiscal year: {how.get('fiscal_year', '?')}, "
                                   f"period: {how.get('fiscal_period', '?')})")
        put("period_end", info.period_end, f"{sidecar} (period of report)")
        put("fiscal_year_end", info.fiscal_year_end, f"{sidecar} (fiscal year end)")
        put("filed_date", info.filed_date, f"{sidecar} (filing date)")
    else:
        cleaned = clean_company_name(c.get("registrant") or "")
        put("company", info.company, "cover page (registrant name)" if cleaned and cleaned == info.company
            else ("alias book (company key from the " + ("cover page)" if cleaned else "file name)")))
        put("registrant", info.registrant, "cover page" + (f" ({c['registrant_source']})"
                                                           if c.get("registrant_source") not in ("", "cover") else ""))
        sources = sorted({"cover page" if t in (c.get("tickers") or []) else "file name" if t == p.get("ticker")
                          else "alias book" for t in info.tickers})
        put("tickers", list(info.tickers), " + ".join(sources))
        put("form", FORM_LABELS.get(info.form, info.form), "file name" if info.form and info.form == p.get("form")
            else "cover page" if info.form and info.form == c.get("form") else "")
        put("period", info.period, "file name" if info.fiscal_year and info.fiscal_year == p.get("fiscal_year")
            else "cover page (fiscal year ended)" if info.fiscal_year and info.fiscal_year == c.get("fiscal_year")
            else "")
        put("period_end", info.period_end, "cover page")
        put("fiscal_year_end", info.fiscal_year_end, "cover page")
        put("filed_date", info.filed_date, "file name" if info.filed_date == p.get("filed_date") else "cover page")
    return {"doc_id": info.doc_id, "label": _label(info, info.doc_id), "fields": fields, "n_pages": len(pages),
            "kind": _file_kind(path), "file": Path(path).name, "aliases": list(info.aliases)[:8],
            "alias_ids": list(info.alias_ids)}


def _sidecar(path: str) -> Optional[dict]:
    try:
        side = Path(path).with_suffix(".json")
        data = json.loads(side.read_text(encoding="utf-8")) if path and side.is_file() else None
    except (OSError, ValueError, TypeError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == "finrag.edgar.filing/1" else None
