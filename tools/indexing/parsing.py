"""Turn a filing on disk into a list of page texts, or a clear reason why not.

PDFs are read page by page with PyMuPDF (page numbers are zero-based, as PyMuPDF
counts them). Plain text files are split on form feeds; EDGAR .htm/.html filings
are split on CSS page breaks and flattened to text with table cells kept on one
row. Every failure becomes a `ParseError` with a one-line reason, so the indexer
can report it and go on with the other files.
"""
from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterable, cast

SUPPORTED_SUFFIXES = (".pdf", ".txt", ".htm", ".html")


class ParseError(Exception):
    """A file that cannot be indexed, with a human-readable reason."""


@dataclass
class ParsedDocument:
    doc_id: str
    path: str
    content_hash: str
    pages: list[str] = field(default_factory=list)
    xbrl: dict | None = None
    """Inline-XBRL facts of an EDGAR HTML filing (`finrag.tools.indexing.xbrl`), None for other files."""

    @property
    def n_chars(self) -> int:
        return sum(len(p) for p in self.pages)


# characters that must not reach an id or an output line: C0/C1 controls (newline, ESC of terminal escape
# codes), line and paragraph separators, bidirectional overrides and isolates, and lone surrogates (the bytes
# of a file name that is not UTF-8)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def safe_id(text: str) -> str:
    """`text` with every control character (see `_UNSAFE`) replaced by `_`: a document id is one printable
    word in `info` lines, citations and JSON, whatever the file was called."""
    return _UNSAFE.sub("_", text)


def printable(text: object) -> str:
    """`text` for one line of output: control characters written as escapes (`\\n`, `\\x1b`), so a file
    name can neither break a line (and forge the next one) nor send terminal escape codes."""
    return _UNSAFE.sub(lambda m: repr(m.group())[1:-1], str(text))


def doc_id_for(path: str | Path) -> str:
    """A document's id: its file name without extension, except where that would not be unique (the paper's
    `{year}/{TICKER}.pdf` -> `TICKER_year`; see `finrag.tools.routing.filenames.doc_id_for`), with control
    characters replaced by `_` (`safe_id`; the indexer keeps ids unique)."""
    from finrag.tools.routing.filenames import doc_id_for as routing_doc_id

    return safe_id(routing_doc_id(path) or Path(path).stem)


def file_hash(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def parse_file(path: str | Path) -> ParsedDocument:
    """Parse one file; raise ParseError with a one-line reason on any problem."""
    p = Path(path)
    if not p.exists():
        raise ParseError("file not found" + (" (dangling symlink)" if p.is_symlink() else ""))
    if p.is_dir():
        raise ParseError("is a directory, not a file")
    suffix = p.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ParseError(f"unsupported file type {suffix or '(none)'}; expected one of {', '.join(SUPPORTED_SUFFIXES)}")
    try:
        size = p.stat().st_size
        if size == 0:
            raise ParseError("empty file (0 bytes)")
        digest = file_hash(p)
    except PermissionError as exc:
        raise ParseError(f"unreadable: permission denied ({exc.strerror})") from None
    except OSError as exc:
        raise ParseError(f"unreadable: {exc.strerror or exc}") from None
    xbrl = None
    primary = _sgml_primary(p) if suffix == ".txt" else None
    if suffix in (".htm", ".html") or primary is not None:
        from finrag.tools.indexing.html import html_document

        pages, xbrl = html_document(primary if primary is not None else p.read_text(encoding="utf-8", errors="replace"))
    else:
        pages = read_pages(p)
    if not any(t.strip() for t in pages):
        raise ParseError("no extractable text (scanned image-only file? OCR is not supported)")
    return ParsedDocument(doc_id=doc_id_for(p), path=str(p.resolve()), content_hash=digest, pages=pages, xbrl=xbrl)


def read_pages(path: str | Path, max_pages: int | None = None) -> list[str]:
    """The text of a file's pages (the first `max_pages` only, when given); raises ParseError.

    The one reader for indexing and for cover pages (the registry reads the first three)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".pdf":
        return _pdf_pages(p, max_pages)
    if suffix == ".txt":
        primary = _sgml_primary(p)
        pages = _html_pages(primary) if primary is not None else _text_pages(p.read_text(encoding="utf-8", errors="replace"))
    else:
        pages = _html_pages(p.read_text(encoding="utf-8", errors="replace"))
    return pages if max_pages is None else pages[:max_pages]


def _pdf_pages(path: Path, max_pages: int | None = None) -> list[str]:
    import pymupdf as fitz

    with open(path, "rb") as fh:
        head = fh.read(1024)
    if b"%PDF" not in head:
        kind = "HTML" if b"<html" in head.lower() or b"<!doctype" in head.lower() else "unknown content"
        raise ParseError(f"not a PDF (no %PDF header; looks like {kind})")
    try:
        doc = fitz.open(path)
    except Exception as exc:  # PyMuPDF raises several types for broken files
        raise ParseError(f"corrupt PDF: {str(exc).splitlines()[0][:120]}") from None
    try:
        if doc.needs_pass:
            raise ParseError("encrypted PDF (password required)")
        if doc.page_count == 0:
            raise ParseError("PDF has no pages")
        pages: list[str] = []
        # a Document iterates its pages through __getitem__, which the type checker does not follow
        for page in cast("Iterable[fitz.Page]", doc):
            if max_pages is not None and len(pages) >= max_pages:
                break
            try:
                pages.append(page.get_text())
            except Exception as exc:
                raise ParseError(f"corrupt PDF: page {page.number}: {str(exc)[:100]}") from None
        return pages
    finally:
        doc.close()


_SGML_DOC = re.compile(r"<DOCUMENT>(.*?)</DOCUMENT>", re.S | re.I)
_SGML_TYPE = re.compile(r"<TYPE>\s*([^\s<]+)", re.I)
_SGML_TEXT = re.compile(r"<TEXT>(.*?)(?:</TEXT>|$)", re.S | re.I)


def _sgml_primary(path: Path) -> str | None:
    """The primary document of an EDGAR SGML submission (`full-submission.txt`: several `<DOCUMENT>`s, the
    first the filing itself, then exhibits and XBRL files), as its markup; None for any other text file."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    if "<SEC-DOCUMENT>" not in head and "<DOCUMENT>" not in head and "<SEC-HEADER>" not in head:
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    for m in _SGML_DOC.finditer(text):
        kind = _SGML_TYPE.search(m.group(1))
        body = _SGML_TEXT.search(m.group(1))
        if body and kind and not re.match(r"(?i)EX-|GRAPHIC|ZIP|XML|JSON|EXCEL|PDF", kind.group(1)):
            markup = re.sub(r"(?is)^\s*<XBRL>|</XBRL>\s*$", "", body.group(1))
            return markup
    return None


def _text_pages(text: str) -> list[str]:
    return text.split("\f") if "\f" in text else [text]


_PAGE_BREAK = re.compile(r"<(?:hr|div|p)[^>]*page-break-(?:before|after)\s*:\s*always[^>]*>", re.I)


class _HTMLText(HTMLParser):
    """Flatten HTML to text: block elements become newlines, table cells ' | '."""

    BLOCK = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "hr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in self.BLOCK:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)

    def text(self) -> str:
        raw = "".join(self.parts).replace("\xa0", " ")
        lines = [re.sub(r"[ \t]+", " ", ln).strip(" |") for ln in raw.splitlines()]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def html_to_text(markup: str) -> str:
    parser = _HTMLText()
    parser.feed(markup)
    parser.close()
    return html.unescape(parser.text())


def _html_pages(markup: str) -> list[str]:
    """EDGAR HTML: pages from page-break styles, inline-XBRL header dropped, tables row by row
    (`finrag.tools.indexing.html`)."""
    from finrag.tools.indexing.html import html_pages

    return html_pages(markup)


@dataclass
class IdPlan:
    """Document ids for one indexing run: `ids` (path -> id, one per distinct content) and `duplicates`
    (path -> id of the document with identical content that it is an alias of)."""

    ids: dict[str, str] = field(default_factory=dict)
    duplicates: dict[str, str] = field(default_factory=dict)
    hashes: dict[str, str] = field(default_factory=dict)


def assign_doc_ids(files: list[Path], known: dict[str, tuple[str, str]]) -> IdPlan:
    """Unique ids for `files`, given the index's `known` documents (doc_id -> (content hash, path)).

    Identical content (same SHA-256) under several names is one document: the first name (or the one
    already indexed) keeps it, the others become its aliases. Different files that would share an id
    (`a/report_2023.pdf`, `b/report_2023.pdf`) are told apart by their folder (`b_report_2023`), and
    a file whose id is held by another indexed file that still exists is qualified the same way."""
    plan = IdPlan()
    by_hash = {h: doc_id for doc_id, (h, _p) in known.items()}
    taken: dict[str, str] = {}
    for f in files:
        try:
            digest = file_hash(f) if f.is_file() else ""
        except OSError:
            digest = ""
        plan.hashes[str(f)] = digest
        base = doc_id_for(f)
        owner = by_hash.get(digest) if digest else None
        if owner:
            owner_path = taken.get(owner) or (known[owner][1] if owner in known else "")
            if not owner_path or Path(owner_path).resolve() != f.resolve():
                plan.duplicates[str(f)] = owner
                continue
        doc_id, parents = base, list(f.resolve().parents)
        while doc_id in taken or (doc_id in known and known[doc_id][0] != digest
                                  and Path(known[doc_id][1]).resolve() != f.resolve() and Path(known[doc_id][1]).exists()):
            folder = parents.pop(0).name if parents else ""
            if not folder:
                doc_id = f"{base}_{digest[:8] or len(taken)}"
                break
            doc_id = f"{re.sub(r'[^A-Za-z0-9&.-]+', '_', folder).strip('_')}_{doc_id}"
        taken[doc_id] = str(f.resolve())
        plan.ids[str(f)] = doc_id
        if digest:
            by_hash.setdefault(digest, doc_id)
    return plan
