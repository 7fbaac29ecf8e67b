"""Open an index wherever it lives: a directory (the embedded SQLite + vector-file Store) or Milvus.

`open_store(location)`:
* a directory (or `None`: `$FINRAG_HOME`, else `./.finrag`) -> `finrag.tools.indexing.store.Store`;
* `milvus:PATH.db` -> Milvus Lite (an embedded file) and `milvus://HOST:PORT[/DB]` -> a Milvus server or
  cluster, both `finrag.tools.indexing.milvus.store.MilvusStore` (pymilvus; see docs/milvus.md).

Both answer the same methods the nodes call (documents, pages, chunks, scoped BM25 and vector search,
variants, metadata, section labels and XBRL facts: `finrag.state.index_reader.IndexBackend`), so graphs, CLI,
API, server and Studio run unchanged on either; mypy checks that both satisfy it (`_conforms` below).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from finrag.state.configuration import resolve_index_dir
from finrag.tools.indexing.milvus.schema import is_milvus
from finrag.tools.indexing.milvus.store import MilvusStore
from finrag.tools.indexing.store import Store

if TYPE_CHECKING:
    from finrag.state.index_reader import IndexBackend
    from finrag.state.settings import MilvusSettings
    from finrag.tools.indexing.milvus.store import MilvusStore
    from finrag.tools.indexing.store import Store

    def _conforms(store: Store, milvus: MilvusStore) -> tuple[IndexBackend, IndexBackend]:
        """Both backends satisfy `IndexBackend`: mypy checks this return (a missing or mismatched member is an
        error here); never run."""
        return store, milvus

__all__ = ["open_store", "is_milvus", "location_key"]


def location_key(location: str | os.PathLike | None) -> str:
    """A stable key for an index location (the resolved directory, or the milvus: text)."""
    if is_milvus(location):
        return str(location)
    return str(resolve_index_dir(location).resolve())


def open_store(location: str | os.PathLike | None = None, embedder=None, create: bool = False,
               milvus_settings: MilvusSettings | None = None):
    """The index at `location`: the embedded Store for a directory, a MilvusStore for a `milvus:` location
    (with `milvus_settings`, else the environment's, read once where the location is parsed)."""
    if is_milvus(location):

        dim = getattr(embedder, "dim", None) if embedder is not None else None
        return MilvusStore(str(location), embedder=embedder, create=create, dim=dim, settings=milvus_settings)

    return Store(resolve_index_dir(location), embedder=embedder, create=create)
