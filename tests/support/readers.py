"""`MemoryReader`: an `IndexReader` held in memory, for tests that hand a run its index through the run context
(`Configuration(index_reader=MemoryReader(...))`) instead of opening one on disk or patching process globals.

Filings are given as page texts; each page is one chunk (chunk ids from 1, in filing order). BM25 is a term
count, vectors are hashed bags of words (`WordHash`, the reader's embedder), so every node runs on it; its
`index_dir` (the registry's pickle goes there) is the folder the test gives.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from finrag.state.schema import DocumentInfo, RetrievedChunk
from finrag.tools.routing.documents import build_document_info

WORD = re.compile(r"[a-z0-9]+")
DIM = 32


class WordHash:
    """A deterministic embedder: each word adds 1 to one of `DIM` dimensions; unit length (zeros for no words)."""

    def embed_query(self, text: str) -> np.ndarray:
        v = np.zeros(DIM, dtype=np.float32)
        for w in WORD.findall(text.lower()):
            v[int(hashlib.sha1(w.encode()).hexdigest(), 16) % DIM] += 1.0
        n = float(np.linalg.norm(v))
        return v / n if n else v

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.embed_query(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)


class _Vectors:
    """The chunk vectors by chunk id (what `faiss_index` hands the offline reranker)."""

    def __init__(self, vectors: dict[int, np.ndarray]):
        self.vectors = vectors

    @property
    def ntotal(self) -> int:
        return len(self.vectors)

    def reconstruct(self, chunk_id: int) -> np.ndarray:
        return self.vectors[int(chunk_id)]

    def reconstruct_many(self, chunk_ids) -> np.ndarray:
        zero = np.zeros(DIM, dtype=np.float32)
        rows = [self.vectors.get(int(i), zero) for i in chunk_ids]
        return np.stack(rows) if rows else np.zeros((0, DIM), np.float32)


class MemoryReader:
    """An in-memory index of `filings` ({path: [page text, ...]}, paths as `finrag index` would see them)."""

    def __init__(self, index_dir: str | Path, filings: dict[str, list[str]] | None = None,
                 meta: dict[str, str] | None = None):
        self.index_dir = Path(index_dir)
        self.location = str(self.index_dir)  # section labels are memoised per location
        self.embedder = WordHash()
        self.meta = dict(meta or {})
        self.infos: list[DocumentInfo] = []
        self.pages: dict[str, list[str]] = {}
        self.chunks: dict[int, RetrievedChunk] = {}
        for path, pages in (filings or {}).items():
            info = build_document_info(path, pages[0] if pages else "")
            self.infos.append(info)
            self.pages[info.doc_id] = list(pages)
            for page_no, text in enumerate(pages):
                cid = len(self.chunks) + 1
                self.chunks[cid] = RetrievedChunk(chunk_id=cid, doc_id=info.doc_id, page_start=page_no,
                                                  page_end=page_no, text=text)
        self._vectors = {cid: self.embedder.embed_query(c.text) for cid, c in self.chunks.items()}

    # identity and routing
    @property
    def generation(self) -> int:
        return len(self.infos)

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        return self.meta.get(key, default)

    def count_documents(self) -> int:
        return len(self.infos)

    def documents(self) -> list[DocumentInfo]:
        return list(self.infos)

    # search
    def _scoped(self, doc_ids: Sequence[str] | None) -> list[RetrievedChunk]:
        return [c for c in self.chunks.values() if doc_ids is None or c.doc_id in doc_ids]

    def search_fts(self, query: str, k: int = 20, doc_ids: Sequence[str] | None = None,
                   variant: str = "base") -> list[RetrievedChunk]:
        terms = set(WORD.findall(query.lower()))
        scored = [(sum(WORD.findall(c.text.lower()).count(t) for t in terms), c) for c in self._scoped(doc_ids)]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1].chunk_id))[:max(0, k)]
        return [c.model_copy(update={"score": float(s), "fts_rank": r}) for r, (s, c) in enumerate(ranked, 1)]

    def search_vectors(self, vector: np.ndarray, k: int = 30, doc_ids: Sequence[str] | None = None,
                       variant: str = "base", max_distance: float | None = None) -> list[RetrievedChunk]:
        scored = [(1.0 - float(self._vectors[c.chunk_id] @ vector), c) for c in self._scoped(doc_ids)]
        kept = [s for s in scored if max_distance is None or s[0] <= max_distance]
        ranked = sorted(kept, key=lambda s: (s[0], s[1].chunk_id))[:max(0, k)]
        return [c.model_copy(update={"score": 1.0 - d, "vector_rank": r, "vector_distance": d})
                for r, (d, c) in enumerate(ranked, 1)]

    def vector_coverage(self, doc_ids: Sequence[str] | None = None) -> tuple[list[str], int]:
        considered = list(dict.fromkeys(doc_ids)) if doc_ids is not None else [i.doc_id for i in self.infos]
        return [], len(considered)

    def embed_missing(self, doc_ids: Sequence[str], embedder=None) -> list[str]:
        return []

    def faiss_index(self, variant: str = "base") -> _Vectors:
        return _Vectors(self._vectors)

    # chunks and pages
    def chunk_ids_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        docs = set(doc_ids)
        return np.array([cid for cid, c in self.chunks.items() if c.doc_id in docs], dtype=np.int64)

    def get_chunks(self, chunk_ids: Iterable[int]) -> dict[int, RetrievedChunk]:
        return {int(i): self.chunks[int(i)] for i in chunk_ids if int(i) in self.chunks}

    def pages_of(self, doc_id: str) -> list[str]:
        return list(self.pages.get(doc_id, []))

    def content_hash_of(self, doc_id: str) -> str:
        return ""  # no files behind it: nothing to check a file against
