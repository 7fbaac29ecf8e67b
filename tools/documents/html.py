"""EDGAR HTML filings (.htm/.html, inline XBRL included) as page texts, the way PDFs are read.

* Pages come from the filing's own page breaks: an element whose style says
  ``page-break-before: always`` (or ``break-before: page``) starts a new page, one that says
  ``page-break-after: always`` ends the page after it (an ``<hr>`` with either style is a break).
  A filing without page breaks is one page. Page numbers are zero-based, as for PDFs.
* Hidden content is dropped: the inline-XBRL header (``<ix:header>``: contexts, units and hidden dei
  facts), anything styled ``display: none``, ``<script>``, ``<style>``, ``<head>``.
* Tables stay readable: one row per line, non-empty cells separated by `` | ``, and the cells EDGAR
  splits a number into (``$``, ``1,234``, ``)``, ``%``) joined back (``$1,234``, ``(56)``, ``12%``).

`html_pages(markup)` never raises on bad markup (Python's HTMLParser is forgiving); a fact the inline-XBRL
collector cannot read is skipped, never the rest of the filing. Should the parser itself fail, that is a
`ParseError`, never a filing silently cut where it failed (issue 34). `html_document(markup, check=...)`
feeds the markup in blocks and calls `check(characters of text so far)` after each (the indexer's per-file
budget of time and size, which raises to stop).
"""
from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from typing import Callable, Optional

from finrag.tools.documents.file_checks import ParseError
from finrag.tools.documents.xbrl import XbrlCollector

__all__ = ["html_document", "html_pages", "html_to_text"]

_BREAK_BEFORE = re.compile(r"(?:page-)?break-before\s*:\s*(?:always|page)", re.I)
_BREAK_AFTER = re.compile(r"(?:page-)?break-after\s*:\s*(?:always|page)", re.I)
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_VOID = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr", "source", "param"}
_BLOCK = {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "table", "hr", "center",
          "blockquote", "pre", "section", "article", "dl", "dt", "dd", "caption", "body"}
_SKIP_TAGS = {"script", "style", "head", "title", "ix:header"}
_PAGE = "\f"
_FEED_BLOCK = 1 << 18  # characters of markup fed between two budget checks
_MAX_UNCLOSED = 1 << 16
"""The most markup the parser may hold unparsed at the end (an unclosed tag or comment): real filings leave
none, and HTMLParser's close() is quadratic in it for some input (thousands of ``</``)."""


class _FilingText(HTMLParser):
    """Streams an HTML filing into text with form feeds at page breaks."""

    def __init__(self, facts=None) -> None:
        super().__init__(convert_charrefs=True)
        self.facts = facts  # an `XbrlCollector` fed every tag and text, hidden ones included
        self.facts_failed = False
        self.page = 0
        self.out: list[str] = []
        self._stack: list[tuple[str, bool, bool]] = []  # (tag, hidden, break after)
        self._open: Counter[str] = Counter()  # tags on the stack (a stray end tag is found in O(1))
        self._hidden = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._tables = 0
        self.chars = 0  # characters of visible text so far (what the size budget counts)

    def _facts(self, event: str, *args) -> None:
        """Pass one parser event to the facts collector; a collector that fails is dropped (the filing's
        text is read to its end all the same, without facts)."""
        if self.facts is None:
            return
        try:
            getattr(self.facts, event)(*args)
        except Exception:  # an unreadable fact costs the facts, never the text after it
            self.facts = None
            self.facts_failed = True

    # --- helpers
    def _emit(self, text: str) -> None:
        if self._hidden:
            return
        self.chars += len(text)
        if self._cell is not None:
            self._cell.append(text)
        else:
            self.out.append(text)

    def _page_break(self) -> None:
        if not self._hidden:
            self._end_row()
            self.out.append(_PAGE)
            self.page += 1

    def _end_row(self) -> None:
        if self._cell is not None:
            self._end_cell()
        if self._row is not None:
            cells = _join_number_cells(self._row)
            if cells:
                self.out.append("\n" + " | ".join(cells))
            self._row = None

    def _end_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            self._row.append(re.sub(r"\s+", " ", "".join(self._cell)).strip())
        self._cell = None

    # --- parser callbacks
    def handle_starttag(self, tag, attrs):
        tag = tag.lower()
        style = " ".join(v or "" for k, v in attrs if k and k.lower() == "style")
        hidden = tag in _SKIP_TAGS or bool(_HIDDEN.search(style))
        self._facts("start", tag, attrs, self.page, hidden or self._hidden > 0)
        if _BREAK_BEFORE.search(style) and not self._hidden:
            self._page_break()
        after = bool(_BREAK_AFTER.search(style))
        if tag in _VOID:
            if tag == "hr" and (after or _BREAK_BEFORE.search(style)):
                if after:
                    self._page_break()
            elif tag == "br":
                self._emit("\n")
            return
        self._stack.append((tag, hidden, after))
        self._open[tag] += 1
        if hidden:
            self._hidden += 1
            return
        if self._hidden:
            return
        if tag == "table":
            self._tables += 1
        if tag == "tr":
            self._end_row()
            self._row = []
        elif tag in ("td", "th"):
            if self._row is None:
                self._row = []
            self._end_cell()
            self._cell = []
        elif tag in _BLOCK:
            self._emit("\n")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag.lower() not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        tag = tag.lower()
        self._facts("end", tag)
        if tag in _VOID or not self._open[tag]:
            return  # a stray end tag
        while self._stack:
            t, hidden, after = self._stack.pop()
            self._open[t] -= 1
            if hidden:
                self._hidden -= 1
            elif not self._hidden:
                if t in ("td", "th"):
                    self._end_cell()
                elif t == "tr" or t == "table":
                    self._end_row()
                    self._tables -= t == "table"
                elif t in _BLOCK:
                    self._emit("\n")
                if after:
                    self._page_break()
            if t == tag:
                break

    def handle_data(self, data):
        self._facts("data", data)
        if self._tables > 0 and self._cell is None and not data.strip():
            return  # the whitespace between rows and cells
        self._emit(data)

    def pages(self) -> list[str]:
        self._end_row()
        raw = "".join(self.out).replace("\xa0", " ").replace("\u200b", "")
        return [_tidy(p) for p in raw.split(_PAGE)]


_OPEN_ONLY = {"$", "(", "$(", "($"}
_CLOSE_ONLY = {")", "%", ")%", "%)"}


def _join_number_cells(cells: list[str]) -> list[str]:
    """Drop empty cells; join '$' / '(' to the next cell and ')' / '%' to the previous one."""
    out: list[str] = []
    carry = ""
    for c in cells:
        if not c:
            continue
        if c in _OPEN_ONLY:
            carry += c
            continue
        if c in _CLOSE_ONLY and out:
            out[-1] += c
            continue
        out.append(carry + c)
        carry = ""
    if carry:
        out.append(carry)
    return out


def _tidy(text: str) -> str:
    lines = [re.sub(r"[ \t]+", " ", ln).strip() for ln in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def html_pages(markup: str) -> list[str]:
    """The pages of an HTML filing (see the module docstring); at least one, possibly empty, page."""
    return html_document(markup)[0]


def html_document(markup: str, check: Optional[Callable[[int], None]] = None) -> tuple[list[str], dict | None]:
    """The pages of an HTML filing and its inline-XBRL facts (`finrag.tools.documents.xbrl`; None without).

    `check`, when given, is called with the characters of text read so far after each block of markup (and at
    the end); it raises to stop the read. A failure of the parser itself is a `ParseError`."""

    collector = XbrlCollector()
    parser = _FilingText(collector)
    try:
        for start in range(0, len(markup), _FEED_BLOCK):
            parser.feed(markup[start:start + _FEED_BLOCK])
            if check is not None:
                check(parser.chars)
        left = parser.rawdata
        if left.startswith("<") and len(left) > _MAX_UNCLOSED:  # (held-back text holds no '<': read in one go)
            raise ParseError(f"unreadable HTML: {len(left):,} characters of unclosed markup at its end "
                             f"(from {left[:20]!r})")
        parser.close()
    except ParseError:
        raise
    except Exception as exc:  # HTMLParser is lenient: never cut a filing silently where it failed
        raise ParseError(f"unreadable HTML at character {parser.chars:,} of text: {type(exc).__name__}: "
                         f"{str(exc)[:100]}") from None
    pages = parser.pages()
    if check is not None:
        check(sum(map(len, pages)))
    while len(pages) > 1 and not pages[-1].strip():  # a break at the very end adds no page
        pages.pop()
    return pages or [""], None if parser.facts_failed else collector.data_dict()


def html_to_text(markup: str) -> str:
    """The whole filing as text (pages joined by blank lines)."""
    return "\n\n".join(html_pages(markup))
