"""`TextPages`: a reader's page source (`finrag.tools.answering.reader.PageSource`) over page texts held in memory,
without a PDF, so the table reader reads them as EDGAR HTML's text (one row a line, cells between " | ")."""
from __future__ import annotations


class TextPages:
    """Page texts of one filing (any doc id), no PDF."""

    def __init__(self, pages: list[str]):
        self.pages = pages

    def page_text(self, doc_id: str, page: int) -> str:
        return self.pages[page] if 0 <= page < len(self.pages) else ""

    def page_count(self, doc_id: str) -> int:
        return len(self.pages)

    def pdf_path(self, doc_id: str) -> str:
        return ""
