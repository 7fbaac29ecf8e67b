"""Page sources for the reader: the index (page texts from the store, PDFs from the registry's paths),
or PDF files directly (tests, benches)."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterable, Optional

from finrag.state.index_reader import IndexReader
from finrag.tools.answering.table_file import table_file_for
from finrag.tools.documents.parsing import quiet_mupdf

__all__ = ["StorePages", "PdfPages"]


class StorePages:
    """Pages of indexed filings: text from the store, the PDF path from the registry's DocumentInfo."""

    def __init__(self, store: IndexReader, registry=None):
        self.store = store
        self.registry = registry
        self.table_file = table_file_for(getattr(store, "index_dir", None))  # the index's pages' tables, on disk
        self._pages: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def _all(self, doc_id: str) -> list[str]:
        with self._lock:
            if doc_id not in self._pages:
                try:
                    self._pages[doc_id] = list(self.store.pages_of(doc_id))
                except Exception:
                    self._pages[doc_id] = []
            return self._pages[doc_id]

    def page_text(self, doc_id: str, page: int) -> str:
        pages = self._all(doc_id)
        return pages[page] if 0 <= page < len(pages) else ""

    def page_count(self, doc_id: str) -> int:
        return len(self._all(doc_id))

    def pdf_path(self, doc_id: str) -> str:
        info = self.registry.get(doc_id) if self.registry is not None else None
        return str(getattr(info, "path", "") or "")

    def content_hash(self, doc_id: str) -> str:
        """The SHA-256 the index recorded for the filing's file ('' when unknown): the PDF is read only while the
        file at its path still has it (`page_tables`)."""
        try:
            return str(self.store.content_hash_of(doc_id) or "")
        except Exception:  # an index that cannot say: the file is then known by path, size and time
            return ""


class PdfPages:
    """Pages read straight from PDF files: `PdfPages({"3M_2018_10K": "path/3M_2018_10K.pdf"})`, or
    `PdfPages.from_dir(folder)` (doc id = file stem)."""

    def __init__(self, paths: dict[str, str]):
        self.paths = dict(paths)
        self._texts: dict[str, list[str]] = {}

    @classmethod
    def from_dir(cls, folder: str | Path, doc_ids: Optional[Iterable[str]] = None) -> "PdfPages":
        folder = Path(folder)
        files = {p.stem: str(p) for p in folder.glob("*.pdf")}
        if doc_ids is not None:
            files = {d: files[d] for d in doc_ids if d in files}
        return cls(files)

    def _all(self, doc_id: str) -> list[str]:
        if doc_id not in self._texts:

            pymupdf = quiet_mupdf()

            path = self.paths.get(doc_id)
            if not path or not Path(path).is_file():
                self._texts[doc_id] = []
            else:
                with pymupdf.open(path) as doc:
                    self._texts[doc_id] = [p.get_text() for p in doc]
        return self._texts[doc_id]

    def page_text(self, doc_id: str, page: int) -> str:
        pages = self._all(doc_id)
        return pages[page] if 0 <= page < len(pages) else ""

    def page_count(self, doc_id: str) -> int:
        return len(self._all(doc_id))

    def pdf_path(self, doc_id: str) -> str:
        return self.paths.get(doc_id, "")
