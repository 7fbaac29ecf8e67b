"""`IndexReader`: what the query path reads of an open index, whichever backend holds it.

The nodes (and the tools they hand the index to: the offline reranker, the section labels, the statement
reader's page source, SFR's whole-document context, the registry cache) use exactly these members. The
embedded `finrag.tools.indexing.store.Store` (SQLite + vector files) and
`finrag.tools.indexing.milvus.store.MilvusStore` both satisfy them structurally (`IndexBackend`, checked by mypy
in `finrag.tools.indexing.backend` and by `tests/unit/test_index_backends.py`); a caller may hand any other
object that is an `IndexReader` as `Configuration.index_reader` (tests hand in-memory ones), and the nodes reach
it through `finrag.nodes.common.reader_of`.

`IndexLabels` is what a backend keeps index-wide beside its chunks: each chunk's section labels
(`sections_of`) and each filing's inline-XBRL facts (`facts_of`). Both backends have them; a reader without
them (an object handed in that has only the `IndexReader` members) gets its labels detected from its pages
and no stored facts (`finrag.tools.indexing.sections_store.sections_of`, `facts_store.load_facts`).

It lives in `state/` (the shared types, which import nothing of `tools/`), so `Configuration.index_reader` is
typed with it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from finrag.state.schema import DocumentInfo, RetrievedChunk

__all__ = ["IndexReader", "IndexLabels", "IndexBackend", "VectorView", "SectionLabels"]

SectionLabels = dict[int, tuple[Optional[str], Optional[str]]]  # chunk id -> (item, note) of its section


@runtime_checkable
class VectorView(Protocol):
    """The chunk vectors of one variant, addressed by chunk id (what the offline reranker reads)."""

    @property
    def ntotal(self) -> int:
        """How many rows the view holds."""
        ...

    def reconstruct(self, chunk_id: int) -> np.ndarray:
        """The vector of one chunk."""
        ...

    def reconstruct_many(self, chunk_ids) -> np.ndarray:
        """The vectors of many chunks, one row each (zeros for a chunk without a vector)."""
        ...


@runtime_checkable
class IndexReader(Protocol):
    """An open index as the nodes read it: routing's documents, BM25, vectors, chunks and pages, meta."""

    # ---------------------------------------------------------------- identity and routing
    @property
    def index_dir(self) -> Path:
        """A local directory for data derived from the index (the stored registry, `registry.pickle`)."""
        ...

    @property
    def generation(self) -> int:
        """Changes whenever documents are added or removed (the registry's cache key)."""
        ...

    @property
    def embedder(self) -> Any:
        """The query/document embedder the index was built with (`embed_query`, `embed_documents`)."""
        ...

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A small index-wide setting (`embedder`, `alias_file`, `info_generation`, ...), else `default`."""
        ...

    def count_documents(self) -> int:
        """How many filings the index holds."""
        ...

    def documents(self) -> list[DocumentInfo]:
        """Every filing's registry entry (the routing registry is built from them)."""
        ...

    # ---------------------------------------------------------------- BM25
    def search_fts(self, query: str, k: int = 20, doc_ids: Sequence[str] | None = None,
                   variant: str = "base") -> list[RetrievedChunk]:
        """BM25 top `k` for `query`, ranked from 1; `doc_ids` scopes it to the routed filings, None is the
        whole corpus."""
        ...

    # ---------------------------------------------------------------- vectors
    def search_vectors(self, vector: np.ndarray, k: int = 30, doc_ids: Sequence[str] | None = None,
                       variant: str = "base", max_distance: float | None = None) -> list[RetrievedChunk]:
        """Nearest chunks to a unit `vector` (inner product), within `max_distance`; scoped like `search_fts`."""
        ...

    def vector_coverage(self, doc_ids: Sequence[str] | None = None) -> tuple[list[str], int]:
        """(the filings among `doc_ids`, or all, that have no vectors yet; how many filings were considered)."""
        ...

    def embed_missing(self, doc_ids: Sequence[str], embedder=None) -> list[str]:
        """Embed the given filings that have no vectors yet (HDRR on demand); the ones it embedded."""
        ...

    def faiss_index(self, variant: str = "base") -> VectorView:
        """The chunk vectors of `variant` by chunk id (the offline reranker's cosine)."""
        ...

    # ---------------------------------------------------------------- chunks and pages
    def chunk_ids_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        """The chunk ids of the given filings, in document order (context expansion, section labels)."""
        ...

    def get_chunks(self, chunk_ids: Iterable[int]) -> dict[int, RetrievedChunk]:
        """The chunks with these ids (ids that no longer exist are left out)."""
        ...

    def pages_of(self, doc_id: str) -> list[str]:
        """The stored page texts of one filing (statement reader, SFR, section detection)."""
        ...

    def content_hash_of(self, doc_id: str) -> str:
        """The SHA-256 of the filing's file as indexed ('' for an unknown filing): what a read of the file's bytes
        after indexing checks the file against (`finrag.tools.documents.file_identity`)."""
        ...


@runtime_checkable
class IndexLabels(Protocol):
    """What a backend keeps index-wide beside the chunks: section labels per chunk, inline-XBRL facts per filing."""

    def sections_of(self, doc_id: str) -> SectionLabels:
        """{chunk_id: (item, note)} of the filing's chunks (empty for an unknown filing, never an error)."""
        ...

    def facts_of(self, doc_id: str) -> dict | None:
        """The filing's inline-XBRL facts while they belong to its current content, else None (never an error)."""
        ...


@runtime_checkable
class IndexBackend(IndexReader, IndexLabels, Protocol):
    """An index backend as the query path reads it: an `IndexReader` with its `IndexLabels` (both backends)."""
