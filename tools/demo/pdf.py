"""Drawing a laid-out demo filing into a PDF with PyMuPDF.

Lines are drawn exactly as `pages.filing_layout` placed them (Base-14 fonts, one text shape per page,
a page number footer from page 2 on). Metadata is fixed and no fresh /ID is written, so the same
filing always produces identical bytes.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Union

try:  # PyMuPDF >= 1.24 ships `pymupdf`; `fitz` is the legacy alias (deprecated in 2.0)
    import pymupdf as fitz
except ImportError:  # pragma: no cover
    import fitz  # type: ignore

from .companies import CompanyRef, DemoCompany, check_year, company_by
from .financials import demo_financials
from .formatting import filing_month
from .layout import MARGIN_X, PAGE_H, PAGE_W, STYLES, TEXT_W, TOP, Page
from .pages import filing_layout

__all__ = ["write_demo_pdf"]


def _pdf_date(c: DemoCompany, year: int) -> str:
    """The filing date as a PDF date string (creation and modification date)."""
    f = demo_financials(c, year)
    month, cal = filing_month(c, year)
    return f"D:{cal:04d}{month:02d}{f['filing_day']:02d}120000Z"


@lru_cache(maxsize=None)
def _advances(font: str) -> dict[str, float]:
    """Advance widths (at size 1) of printable ASCII for a Base-14 font (`fitz.get_text_length` per line
    is slow in PyMuPDF 2.x)."""
    return {chr(i): fitz.get_text_length(chr(i), fontname=font, fontsize=1) for i in range(32, 127)}


def _text_width(text: str, font: str, size: float) -> float:
    adv = _advances(font)
    return size * sum(adv.get(ch, 0.6) for ch in text)


def _draw_page(doc, pg: Page, index: int) -> None:
    """Append page `index` (zero-based) of the layout to `doc`."""
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    shape = page.new_shape()  # one shape (one content stream commit) per page: ~10x faster
    y = TOP
    for text, style in pg.lines:
        font, size, lead, centred = STYLES[style]
        if style != "blank":
            w = _text_width(text, font, size)
            if w > TEXT_W:  # never clip: shrink the rare over-long line
                size = size * TEXT_W / w
                w = TEXT_W
            x = (PAGE_W - w) / 2 if centred else MARGIN_X
            shape.insert_text((x, y), text, fontname=font, fontsize=size)
        y += lead
    if index:
        num = str(index + 1)
        shape.insert_text(((PAGE_W - _text_width(num, "helv", 8)) / 2, PAGE_H - 36), num,
                          fontname="helv", fontsize=8)
    shape.commit()


def write_demo_pdf(company: CompanyRef, year: int, path: Union[str, Path]) -> Path:
    """Write one filing to `path` (deterministic bytes) and return the path."""
    c = company_by(company)
    layout = filing_layout(c.key, check_year(year))
    path = Path(path)
    doc = fitz.open()
    date = _pdf_date(c, year)
    doc.set_metadata({"title": "Form 10-K", "author": "", "subject": "Annual report",
                      "keywords": "", "creator": "finrag demo corpus", "producer": "finrag",
                      "creationDate": date, "modDate": date})
    for i, pg in enumerate(layout.pages):
        _draw_page(doc, pg, i)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path), garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path
