"""Page layout of the demo filings: styled lines flowed onto letter-size pages.

`Layout` collects (text, style) lines page by page, breaking pages by height and by a character
budget, and records where headings and tracked facts (answers of the demo questions) land. The PDF
writer (`pdf.py`) draws the pages exactly as laid out here, so page texts are known before any PDF
exists.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Sequence

__all__ = ["NBSP", "PAGE_W", "PAGE_H", "MARGIN_X", "TOP", "BOTTOM", "TEXT_W", "WRAP", "PAGE_CHAR_BUDGET",
           "STYLES", "Page", "Layout"]

NBSP = "\u00a0"
PAGE_W, PAGE_H = 612.0, 792.0
MARGIN_X, TOP, BOTTOM = 54.0, 64.0, 730.0
TEXT_W = PAGE_W - 2 * MARGIN_X
WRAP = 100            # characters per body line (Helvetica 9pt: ~117 fit; width is checked when drawn)
PAGE_CHAR_BUDGET = 3300

# style -> (font, size, leading, centred)
STYLES = {
    "title": ("hebo", 13.0, 19.0, True),
    "center": ("helv", 9.5, 13.0, True),
    "centerb": ("hebo", 10.0, 14.0, True),
    "h1": ("hebo", 11.0, 17.0, False),
    "h2": ("hebo", 9.5, 14.0, False),
    "body": ("helv", 9.0, 12.5, False),
    "mono": ("cour", 8.0, 10.5, False),
    "blank": ("helv", 9.0, 7.0, False),
}

_AMOUNT_RE = re.compile(r"\$[\d,]+(?:\.\d+)? (?:million|billion|per diluted share|per share)")


@dataclass
class Page:
    lines: list = field(default_factory=list)   # (text, style)
    height: float = 0.0
    chars: int = 0

    def text(self) -> str:
        return "\n".join(t for t, s in self.lines if s != "blank")


class Layout:
    """Lines on pages, with the page of each heading (`headings`) and of each tracked fact (`facts`,
    `fact_text`: the paragraph or line stating it)."""

    def __init__(self) -> None:
        self.pages: list[Page] = [Page()]
        self.facts: dict[str, list[int]] = {}
        self.fact_text: dict[tuple[str, int], str] = {}  # (fact, page) -> paragraph/line stating it
        self.headings: dict[str, int] = {}

    @property
    def page_index(self) -> int:
        return len(self.pages) - 1

    def page_break(self) -> None:
        if self.pages[-1].lines:
            self.pages.append(Page())

    def _emit(self, text: str, style: str) -> None:
        page = self.pages[-1]
        lead = STYLES[style][2]
        if style == "blank":
            if page.lines:
                page.lines.append(("", style))
                page.height += lead
            return
        if page.lines and (page.height + lead > BOTTOM - TOP or page.chars + len(text) > PAGE_CHAR_BUDGET):
            self.page_break()
            page = self.pages[-1]
        page.lines.append((text, style))
        page.height += lead
        page.chars += len(text) + 1

    def _room(self, lines: int, chars: int = 0) -> None:
        page = self.pages[-1]
        if page.lines and (page.height + lines * 12.5 > BOTTOM - TOP or page.chars + chars > PAGE_CHAR_BUDGET):
            self.page_break()

    def _record_fact(self, fid: str, text: str) -> None:
        pages = self.facts.setdefault(fid, [])
        if self.page_index not in pages:
            pages.append(self.page_index)
        self.fact_text.setdefault((fid, self.page_index), text)

    def blank(self) -> None:
        self._emit("", "blank")

    def title(self, text: str) -> None:
        self._emit(text, "title")

    def center(self, text: str, bold: bool = False) -> None:
        self._emit(text, "centerb" if bold else "center")

    def heading(self, text: str, level: int = 1, new_page: bool = False) -> None:
        if new_page:
            self.page_break()
        else:
            self._room(5, 400)
        self.blank()
        self._emit(text, "h1" if level == 1 else "h2")
        self.headings.setdefault(text, self.page_index)

    def para(self, text: str, facts: dict[str, str] | None = None) -> None:
        """A wrapped body paragraph; `facts` maps fact ids to the answer text the paragraph states."""
        facts = facts or {}
        for ans in facts.values():
            if ans not in text:
                raise ValueError(f"fact {ans!r} not in paragraph {text[:60]!r}")
            text = text.replace(ans, ans.replace(" ", NBSP))
        # keep every amount on one line ("$1,234.5 million", "$0.88 per share") so it can be matched verbatim
        text = _AMOUNT_RE.sub(lambda m: m.group(0).replace(" ", NBSP), text)
        lines = textwrap.wrap(text, WRAP, break_long_words=False, break_on_hyphens=False)
        for line in lines:
            self._emit(line.replace(NBSP, " "), "body")
            for fid, ans in facts.items():
                if ans in line.replace(NBSP, " "):
                    self._record_fact(fid, text.replace(NBSP, " "))
        self.blank()

    def mark_fact(self, fid: str, answer: str) -> None:
        """Record that the line just emitted states `answer` (for lines not drawn by `para`)."""
        text = self.pages[-1].lines[-1][0]
        if answer not in text:
            raise ValueError(f"fact {answer!r} not in line {text!r}")
        self._record_fact(fid, text)

    def mono(self, lines: Sequence[str]) -> None:
        """Fixed-width lines (tables) kept on one page."""
        self._room(len(lines) + 1, sum(len(x) + 1 for x in lines))
        for line in lines:
            self._emit(line, "mono")
        self.blank()
