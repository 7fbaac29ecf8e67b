"""Pages as a person finds them: the viewer's page number and the number the filing prints (issue 51).

The index, retrieval, evaluation and the contract's `page_start`/`page_end` count pages from 0, as PyMuPDF and
FinanceBench do. A person opens "p. 57" in a PDF viewer, which counts from 1, and may look for the number
printed in the page's footer or header. So what people read (the contract's `answer`, the CLI, the answer
page, chat) shows the viewer's page, and the printed number when the filing prints one that differs:
`[MICROSOFT_2022_10K, p. 57]`, `[3M_2018_10K, p. 45 (printed 43)]`, `[X, pp. 61-62 (printed F-3 to F-4)]`.

The printed number is read from the stored page text (the index keeps no PDF page labels, and none of the
FinanceBench filings has any): a short line at the top or bottom of the page that is a number (`57`,
`Page 57`, `F-12`, `- 57 -`) and that continues the number printed at the same place on a neighbouring page
(page 56 printing `56` and page 57 printing `57`). One page alone, or a figure that no neighbour continues (a
table's last cell, a year), gives no printed number.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from finrag.tools.answering.citations import _BRACKET, parse_citation

__all__ = ["printed_label", "with_printed_labels", "display_pages", "display_citations", "display_citations_by",
           "display_fields"]

_EDGE_LINES = 3
_NUMBER = re.compile(r"^(?:page\s+)?[-\u2013\u2014 ]*([A-Z]{1,2}\s?[-\u2013.]\s?)?(\d{1,4})[-\u2013\u2014 ]*$", re.I)


def _candidates(text: str) -> set[tuple[str, int]]:
    """(prefix, number) of every short top or bottom line of a page that reads as a page number."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    out = set()
    for ln in lines[:_EDGE_LINES] + lines[-_EDGE_LINES:]:
        m = _NUMBER.match(ln) if len(ln) <= 16 else None
        if m:
            letters = re.sub(r"[^A-Z]", "", (m.group(1) or "").upper())
            out.add((f"{letters}-" if letters else "", int(m.group(2))))  # "A - 1", "A-1", "A.1": "A-1"
    return out


def _format(prefix: str, number: int) -> str:
    return f"{prefix}{number}"


def printed_label(pages: Sequence[str], page_no: int) -> Optional[str]:
    """The number the filing prints on zero-based page `page_no`, or None: a page-number line at its top or
    bottom that a neighbouring page's number continues."""
    if not 0 <= page_no < len(pages):
        return None
    here = _candidates(pages[page_no])
    if not here:
        return None
    before = _candidates(pages[page_no - 1]) if page_no > 0 else set()
    after = _candidates(pages[page_no + 1]) if page_no + 1 < len(pages) else set()
    for prefix, n in sorted(here, key=lambda c: (c[0] != "", c[1])):
        if (prefix, n - 1) in before or (prefix, n + 1) in after:
            return _format(prefix, n)
    return None


def display_pages(first: int, last: int, printed_first: Optional[str] = None,
                  printed_last: Optional[str] = None) -> str:
    """`p. 57`, `pp. 57-58`, `p. 45 (printed 43)`: zero-based pages as a viewer counts them, with the printed
    number(s) when they differ from the viewer's."""
    a, b = first + 1, last + 1
    shown = f"p. {a}" if a == b else f"pp. {a}-{b}"
    printed = [p for p in (printed_first, printed_last if b != a else None) if p]
    if not printed or printed == ([str(a), str(b)] if b != a else [str(a)]):
        return shown
    if b != a and printed_first and printed_last:
        return f"{shown} (printed {printed_first} to {printed_last})"
    return f"{shown} (printed {printed[0]})"


def with_printed_labels(contexts: list[dict], pages_of: Any) -> list[dict]:
    """The contexts with `printed_start` / `printed_end` (the filing's printed page numbers, or None) read from
    `pages_of(doc_id)` (the stored page texts). A filing whose pages cannot be read gets None."""
    cache: dict[str, Sequence[str]] = {}
    out = []
    for c in contexts:
        doc = str(c.get("doc_id") or "")
        if doc not in cache:
            try:
                cache[doc] = pages_of(doc) or []
            except Exception:  # a backend without the pages: no printed numbers, the viewer's pages still
                cache[doc] = []
        pages = cache[doc]
        first, last = c.get("page_start"), c.get("page_end")
        out.append({**c, "printed_start": printed_label(pages, int(first)) if first is not None else None,
                    "printed_end": printed_label(pages, int(last)) if last is not None else None})
    return out


def display_fields(c: Mapping[str, Any]) -> dict[str, Any]:
    """The contract's display fields of one context: `viewer_page_start` / `viewer_page_end` (1-based, as PDF
    viewers count), `printed_page_start` / `printed_page_end` (or None) and `pages` (`p. 57 (printed 55)`)."""
    first, last = c.get("page_start"), c.get("page_end")
    if first is None:
        return {"viewer_page_start": None, "viewer_page_end": None, "printed_page_start": None,
                "printed_page_end": None, "pages": ""}
    last = first if last is None else last
    ps, pe = c.get("printed_start"), c.get("printed_end")
    return {"viewer_page_start": int(first) + 1, "viewer_page_end": int(last) + 1, "printed_page_start": ps,
            "printed_page_end": pe, "pages": display_pages(int(first), int(last), ps, pe)}


def display_citations(answer: str, contexts: Iterable[Mapping[str, Any]]) -> str:
    """`answer` with each citation `[DOC, p. N]` (zero-based, as the graph writes it and the citation check
    reads it) written as a person reads it: `[DOC, p. N+1]`, with the printed number from the contexts
    (`printed_start` / `printed_end`) when the filing prints one that differs."""
    printed: dict[tuple[str, int], str] = {}
    for c in contexts:
        for key, at in (("printed_start", c.get("page_start")), ("printed_end", c.get("page_end"))):
            if at is not None and c.get(key):
                printed[(str(c.get("doc_id")), int(at))] = str(c.get(key))
    return display_citations_by(answer, lambda doc, page: printed.get((doc, page)))


def display_citations_by(answer: str, printed: Callable[[str, int], Optional[str]]) -> str:
    """`display_citations` with the printed number of (doc, zero-based page) from `printed` (a streamed answer's
    pieces: `finrag.api.AnswerTokens` reads it from the index, as `generate` does for the contexts)."""

    def shown(m: re.Match) -> str:
        parts = parse_citation(m.group(1))
        if parts is None:
            return m.group(0)
        return "[" + "; ".join(f"{doc}, " + display_pages(a, b, printed(doc, a), printed(doc, b))
                               for doc, a, b in parts) + "]"

    return _BRACKET.sub(shown, answer or "")
