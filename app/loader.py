"""Indexing from Python, and filings as LangChain documents.

    import finrag
    report = finrag.index(["filings/"], index=".finrag")      # what `finrag index filings/ --index .finrag` does
    report.indexed, report.failed                              # an IndexReport
    finrag.index(["filings/"], index="milvus:finrag.db")      # through a local staging index, as the CLI does

    from finrag import FinragLoader
    for page in FinragLoader(["filings/3M_2018_10K.pdf"]).lazy_load():
        page.metadata  # {'source', 'doc_id', 'page', 'company', 'tickers', 'form', 'fiscal_year', ...}

`FinragLoader` parses a filing the way the indexer does (PDF, HTML or text pages) and names it the way the
registry does (the fetch sidecar, the inline-XBRL facts, the cover page, the file name), so the metadata is the
identity routing would see; nothing is written anywhere.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Sequence

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from finrag.state.configuration import resolve_index_dir
from finrag.state.settings import ProcessSettings
from finrag.tools.documents.file_checks import ParseError
from finrag.tools.documents.parsing import assign_doc_ids, parse_file
from finrag.tools.indexing import open_index
from finrag.tools.indexing.backend import is_milvus
from finrag.tools.indexing.embedders import get_embedder, resolve_spec
from finrag.tools.indexing.indexer import IndexReport, discover, index_paths
from finrag.tools.indexing.locking import writer_lock
from finrag.tools.indexing.milvus.schema import parse_location
from finrag.tools.indexing.milvus.writer import copy_index
from finrag.tools.indexing.store import Store
from finrag.tools.routing.documents import build_document_info

PathArg = str | os.PathLike | Sequence[str | os.PathLike]

IDENTITY_FIELDS = ("company", "registrant", "tickers", "form", "fiscal_year", "quarter", "period", "filed_date",
                   "period_end", "cik")
"""The `DocumentInfo` fields each page's metadata carries (besides source, doc_id and page)."""


def _paths(paths: PathArg) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


class FinragLoader(BaseLoader):
    """A LangChain document loader: each page of each filing under `paths` (files or folders) as a `Document`
    whose metadata is the filing's identity; a file that cannot be parsed raises (one-line ValueError), or is
    skipped with `skip_failed=True`."""

    def __init__(self, paths: PathArg, *, skip_failed: bool = False) -> None:
        """`paths`: one path or several, files or folders (folders are walked as `finrag index` walks them)."""
        self.paths = _paths(paths)
        self.skip_failed = skip_failed

    def lazy_load(self) -> Iterator[Document]:
        """The pages, filing by filing in path order, page by page."""
        report = IndexReport()
        files = discover(self.paths, report)
        if report.failed and not self.skip_failed:
            bad, why = report.failed[0]
            raise ValueError(f"{bad}: {why}")
        ids = assign_doc_ids(files, {}).ids
        for path in files:
            try:
                doc = parse_file(path)
            except ParseError as exc:
                if self.skip_failed:
                    continue
                raise ValueError(f"{path}: {' '.join(str(exc).split())}") from None
            doc_id = ids.get(str(path), doc.doc_id)
            info = build_document_info(doc.path, "\n".join(doc.pages[:3]), dei=(doc.xbrl or {}).get("dei"))
            identity = {k: getattr(info, k) for k in IDENTITY_FIELDS}
            for number, text in enumerate(doc.pages):
                yield Document(page_content=text, metadata={"source": str(path), "doc_id": doc_id, "page": number,
                                                            "pages": len(doc.pages), **identity})


def index(paths: PathArg, index: str | os.PathLike | None = None, *, embed: bool = True,
          progress: bool = False):
    """Index files and folders into `index` (a directory or a `milvus:` location; default $FINRAG_HOME, else
    ./.finrag), as `finrag index PATHS --index INDEX` does: incremental by content hash, under the index's
    writer lock; returns the `IndexReport` (indexed, unchanged, failed, duplicates, chunks, ...)."""
    where = os.fspath(index) if index is not None else ProcessSettings().home or None
    if where is not None and is_milvus(where):
        staging = parse_location(where).cache_dir / "staging"
        with writer_lock(staging):
            report = _index_dir(paths, staging, embed=embed, progress=progress)
        copy_index(str(staging), where, progress=progress, remove_extra=False)
        return report

    target = resolve_index_dir(where)
    if target.exists() and not target.is_dir():
        raise ValueError(f"{target} is a file, not an index directory")

    with writer_lock(target):
        return _index_dir(paths, target, embed=embed, progress=progress)


def _index_dir(paths: PathArg, target: Path, *, embed: bool, progress: bool):
    store = Store(target, create=True)
    try:
        recorded = store.get_meta("embedder")  # as `finrag index`: the index's own, else the default
        store.check_embedder(get_embedder(resolve_spec(None, recorded)))
        report = index_paths(_paths(paths), store, progress=progress, embed=embed,
                             log=print if progress else (lambda _msg: None))
    finally:
        store.close()
    open_index.reset()  # an index this process had open is read again on its next question
    return report
