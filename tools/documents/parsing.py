"""Turn a filing on disk into a list of page texts, or a clear reason why not.

PDFs are read page by page with PyMuPDF (page numbers are zero-based, as PyMuPDF
counts them). Plain text files are split on form feeds; EDGAR .htm/.html filings
are split on CSS page breaks and flattened to text with table cells kept on one
row. Every failure becomes a `ParseError` with a one-line reason, so the indexer
can report it and go on with the other files.

Hostile content is bounded (issue 34): each file has a budget (`ParseBudget`) of parse time
(`FINRAG_MAX_PARSE_SECONDS`, default 300 s) and extracted text (`FINRAG_MAX_FILE_CHARS`, default
50,000,000 characters; the biggest real 10-K holds under 1.5 million) and a file over either fails with
that reason; a .txt/.htm file of NUL or binary bytes, a file without a letter or digit, and a PDF that is cut
short or lost content (MuPDF's repair) fail as "no extractable text" / "damaged PDF". MuPDF's own messages
never reach stderr: its warnings are read to detect damage.
"""
from __future__ import annotations

import hashlib
import html
import re
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, cast

from finrag.tools.documents.doc_ids import doc_id_for, printable
from finrag.tools.documents.file_checks import ParseError, binary_reason, os_reason, pdf_damage
from finrag.tools.documents.html import html_document

if TYPE_CHECKING:
    import pymupdf

SUPPORTED_SUFFIXES = (".pdf", ".txt", ".htm", ".html")
MAX_FILE_CHARS = 50_000_000
"""The default budget of extracted text per file (`IndexSettings.max_file_chars`, FINRAG_MAX_FILE_CHARS)."""
MAX_PARSE_SECONDS = 300.0
"""The default budget of parse time per file (`IndexSettings.max_parse_seconds`, FINRAG_MAX_PARSE_SECONDS)."""


@dataclass
class ParseBudget:
    """One file's budget: at most `max_chars` characters of text, at most `max_seconds` of parsing from
    `start` (time.monotonic). `check(chars)` raises ParseError once either is spent."""

    max_chars: int = MAX_FILE_CHARS
    max_seconds: float = MAX_PARSE_SECONDS
    start: float = field(default_factory=time.monotonic)

    def check(self, chars: int) -> None:
        """Raise ParseError when `chars` characters of text are over the budget, or the time is spent."""
        if chars > self.max_chars:
            raise ParseError(f"too much text: more than {self.max_chars:,} characters extracted (the per-file "
                             f"budget, FINRAG_MAX_FILE_CHARS)")
        if time.monotonic() - self.start > self.max_seconds:
            raise ParseError(f"parse took too long: over {self.max_seconds:g} s (the per-file budget, "
                             f"FINRAG_MAX_PARSE_SECONDS)")


@dataclass
class ParsedDocument:
    doc_id: str
    path: str
    content_hash: str
    pages: list[str] = field(default_factory=list)
    xbrl: dict | None = None
    """Inline-XBRL facts of an EDGAR HTML filing (`finrag.tools.documents.xbrl`), None for other files."""

    @property
    def n_chars(self) -> int:
        return sum(len(p) for p in self.pages)


# characters that must not reach an id or an output line: C0/C1 controls (newline, ESC of terminal escape
# codes), line and paragraph separators, bidirectional overrides and isolates, and lone surrogates (the bytes
# of a file name that is not UTF-8)


def file_hash(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def parse_file(path: str | Path, max_chars: int = MAX_FILE_CHARS,
               max_seconds: float = MAX_PARSE_SECONDS) -> ParsedDocument:
    """Parse one file within its budget (`max_chars` of text, `max_seconds` of parsing); raise ParseError with a
    one-line reason on any problem."""
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
    budget = ParseBudget(max_chars=int(max_chars), max_seconds=float(max_seconds))
    if suffix != ".pdf":
        _check_text_file(p)
    xbrl = None
    primary = _sgml_primary(p) if suffix == ".txt" else None
    if suffix in (".htm", ".html") or primary is not None:

        markup = primary if primary is not None else p.read_text(encoding="utf-8", errors="replace")
        pages, xbrl = html_document(markup, check=budget.check)
    else:
        pages = read_pages(p, budget=budget)
    if not any(_has_text(t) for t in pages):
        raise ParseError("no extractable text (scanned image-only file? OCR is not supported)" if suffix == ".pdf"
                         else "no extractable text (no letter or digit in the file: only whitespace or markup)")
    return ParsedDocument(doc_id=doc_id_for(p), path=str(p.resolve()), content_hash=digest, pages=pages, xbrl=xbrl)


_WORD = re.compile(r"[^\W_]")


def _has_text(page: str) -> bool:
    """Whether a page holds real text: a letter or a digit (not only whitespace, NULs, punctuation)."""
    return _WORD.search(page) is not None


def _check_text_file(path: Path) -> None:
    """Raise ParseError for a .txt/.htm/.html file that is binary data (NUL bytes, random bytes, UTF-16)."""

    try:
        why = binary_reason(path)
    except OSError as exc:
        raise ParseError(f"unreadable: {os_reason(exc)}") from None
    if why:
        raise ParseError(f"no extractable text ({why})")


def read_pages(path: str | Path, max_pages: int | None = None, budget: ParseBudget | None = None) -> list[str]:
    """The text of a file's pages (the first `max_pages` only, when given); raises ParseError.

    The one reader for indexing and for cover pages (the registry reads the first three). With a `budget`
    (indexing), a file over it fails, and so does a damaged PDF."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".pdf":
        return _pdf_pages(p, max_pages, budget)
    if suffix == ".txt":
        primary = _sgml_primary(p)
        if primary is not None:
            pages = _html_pages(primary, budget)
        else:
            pages = _text_pages(p.read_text(encoding="utf-8", errors="replace"))
            if budget is not None:
                budget.check(sum(map(len, pages)))
    else:
        pages = _html_pages(p.read_text(encoding="utf-8", errors="replace"), budget)
    return pages if max_pages is None else pages[:max_pages]


def quiet_mupdf() -> Any:
    """PyMuPDF with MuPDF's own error and warning lines kept off stderr (process-wide; they are read with
    `mupdf_warnings()` instead). Every module that opens a PDF imports it through here."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    return pymupdf


def _not_a_pdf(path: Path, head: bytes) -> str:
    """What a file named .pdf without a %PDF header looks like, in a few words."""

    if b"<html" in head.lower() or b"<!doctype" in head.lower():
        return "HTML"
    try:
        why = binary_reason(path)
    except OSError:
        why = None
    return "binary data" if why and not why.startswith("only NUL") else (why or "unknown content")


def _pdf_pages(path: Path, max_pages: int | None = None, budget: ParseBudget | None = None) -> list[str]:
    fitz = quiet_mupdf()
    with open(path, "rb") as fh:
        head = fh.read(1024)
    if b"%PDF" not in head:
        raise ParseError(f"not a PDF (no %PDF header; looks like {_not_a_pdf(path, head)})")
    fitz.TOOLS.reset_mupdf_warnings()
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
        chars = 0
        # a Document iterates its pages through __getitem__, which the type checker does not follow
        for page in cast("Iterable[pymupdf.Page]", doc):
            if max_pages is not None and len(pages) >= max_pages:
                break
            try:
                pages.append(page.get_text())
            except Exception as exc:
                raise ParseError(f"corrupt PDF: page {page.number}: {str(exc)[:100]}") from None
            chars += len(pages[-1])
            if budget is not None:
                budget.check(chars)
        if budget is not None:

            damage = pdf_damage(path, fitz.TOOLS.mupdf_warnings(), bool(doc.is_repaired))
            if damage:
                raise ParseError(f"damaged PDF: {printable(damage)}")
        return pages
    finally:
        doc.close()


_SGML_DOC_TAG = re.compile(r"<(/?)DOCUMENT>", re.I)
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
    for document in _sgml_documents(text):
        kind = _SGML_TYPE.search(document)
        body = _SGML_TEXT.search(document)
        if body and kind and not re.match(r"(?i)EX-|GRAPHIC|ZIP|XML|JSON|EXCEL|PDF", kind.group(1)):
            markup = re.sub(r"(?is)^\s*<XBRL>|</XBRL>\s*$", "", body.group(1))
            return markup
    return None


def _sgml_documents(text: str) -> Iterator[str]:
    """The contents of each `<DOCUMENT>...</DOCUMENT>` of a submission, in one pass over its tags (a regex
    search per unclosed `<DOCUMENT>` would read to the end each time: quadratic on hostile input)."""
    start: int | None = None
    for m in _SGML_DOC_TAG.finditer(text):
        if not m.group(1) and start is None:
            start = m.end()
        elif m.group(1) and start is not None:
            yield text[start:m.start()]
            start = None


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


def _html_pages(markup: str, budget: ParseBudget | None = None) -> list[str]:
    """EDGAR HTML: pages from page-break styles, inline-XBRL header dropped, tables row by row
    (`finrag.tools.documents.html`), within `budget` when given."""

    return html_document(markup, check=budget.check if budget is not None else None)[0]


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
