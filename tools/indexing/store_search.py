"""The Store's search side: BM25 and vector search whose cost depends on the documents searched, and the
vector files and approximate index they read.

A mixin of `finrag.tools.indexing.store.Store` (beside its reading half `store_read.py` and its writing half
`store_write.py`):

* `search_fts`: BM25 from the per-document postings of `lexical.py` (a scoped search reads only the
  routed filings' postings); documents indexed before those tables existed, and the variants, use
  FTS5, restricted to each document's chunk-id range (`rowid BETWEEN lo AND hi`).
* `search_vectors`: inner products with the chunk vectors of `vectors.py` (a memory-mapped file
  addressed by chunk id): a scoped search reads the routed filings' rows only; a corpus-wide search
  scans the file, or asks the approximate index when one is built.
* vectors may be missing for some documents (`finrag index` stores text first and embeds after):
  `vector_coverage` says which, `embed_missing` embeds documents on demand (HDRR), and every search
  reads each connection per thread, so no lock is held across a query.
"""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TypeVar, overload

import numpy as np

from finrag.state.configuration import FTS_K, VECTOR_K
from finrag.state.schema import RetrievedChunk
from finrag.tools.indexing import lexical, lexical_search
from finrag.tools.indexing import vectors as V
from finrag.tools.indexing.chunking import CHUNK_OVERLAP, CHUNK_SIZE, join_pages, segments
from finrag.tools.indexing.embedders import normalize
from finrag.tools.indexing.locking import faiss_save_lock
from finrag.tools.indexing.store_schema import IndexError_, VariantMissing, blob_vec, fts_phrases, vec_blob
from finrag.tools.indexing.store_schema import variant_name as _variant_name

_new_object = object.__new__
_set_attribute = object.__setattr__


def with_fields(chunk: RetrievedChunk, update: dict[str, Any]) -> RetrievedChunk:
    """`chunk.model_copy(update=update)`: a copy of a (shared, cached) chunk with its search fields set, built
    the way pydantic's `__copy__` builds it (its `__dict__` copied, then updated; its set fields with the
    updated ones) without `model_copy`'s general path (a search makes one per hit, ~400 for an open question).
    Anything but a plain `RetrievedChunk` (extras, private attributes, a subclass) goes through `model_copy`."""
    if type(chunk) is not RetrievedChunk or chunk.__pydantic_extra__ is not None \
            or getattr(chunk, "__pydantic_private__", None) is not None:
        return chunk.model_copy(update=update)
    copied = _new_object(RetrievedChunk)
    values = chunk.__dict__.copy()
    values.update(update)
    fields = set(chunk.__pydantic_fields_set__)
    fields.update(update)
    _set_attribute(copied, "__dict__", values)
    _set_attribute(copied, "__pydantic_extra__", None)
    _set_attribute(copied, "__pydantic_fields_set__", fields)
    _set_attribute(copied, "__pydantic_private__", None)
    return copied


def hit_dict(chunk: RetrievedChunk, update: dict[str, Any]) -> dict[str, Any]:
    """`with_fields(chunk, update).model_dump()`: for a plain `RetrievedChunk` (flat fields, no serialisers, no
    extras) its field values with `update`'s, in field order (the dict `model_dump` gives)."""
    if type(chunk) is not RetrievedChunk or chunk.__pydantic_extra__ is not None:
        return with_fields(chunk, update).model_dump()
    return {**chunk.__dict__, **update}


_Hit = TypeVar("_Hit")


class SearchMixin:
    """Search and vector maintenance for `Store` (which provides the connections and metadata)."""

    _vfiles: dict[str, V.VectorFile]
    _anns: dict[str, tuple[tuple, V.Ann | None]]
    _vec_lock: threading.RLock

    if TYPE_CHECKING:  # what `Store` provides (declared for the type checker only; Store defines them)
        index_dir: Path
        conn: sqlite3.Connection
        embedder: Any
        _lock: threading.RLock
        _synced: dict[str, tuple]
        _variants_ok: set[tuple]

        @property
        def generation(self) -> int: ...
        def _reader(self) -> sqlite3.Connection: ...
        @overload
        def get_meta(self, key: str, default: str) -> str: ...
        @overload
        def get_meta(self, key: str, default: str | None = None) -> str | None: ...
        def get_meta(self, key: str, default: str | None = None) -> str | None: ...
        def _bump(self, key: str) -> None: ...
        def count_documents(self) -> int: ...
        def chunking_params(self) -> tuple[int, int] | None: ...
        def pages_of(self, doc_id: str) -> list[str]: ...
        def chunks_of(self, doc_id: str) -> list[RetrievedChunk]: ...
        def get_chunks(self, chunk_ids: Iterable[int]) -> dict[int, RetrievedChunk]: ...
        def chunk_ids_of(self, doc_ids: Iterable[str]) -> np.ndarray: ...
        def variant_status(self, variant: str) -> tuple[int, int]: ...

    # ------------------------------------------------------------------- BM25
    def _cache_id(self) -> str:
        """Unique to this open Store (with the generation, it keys what a process caches of the index)."""
        if getattr(self, "_uid", None) is None:
            import uuid

            self._uid = uuid.uuid4().hex
        return self._uid

    def search_fts(self, query: str, k: int = FTS_K, doc_ids: Sequence[str] | None = None,
                   variant: str = "base") -> list[RetrievedChunk]:
        """BM25 over the chunk text (or the variant's prefixed text), optionally scoped to documents."""
        return self._fts_hits(query, k, doc_ids, variant, with_fields)

    def search_fts_dicts(self, query: str, k: int = FTS_K, doc_ids: Sequence[str] | None = None,
                         variant: str = "base") -> list[dict[str, Any]]:
        """`[hit.model_dump() for hit in self.search_fts(...)]`, the same dicts (the graph state's hits) without
        the models in between (`fts_search` reads ~150 of them per question, ~400 for an open one)."""
        return self._fts_hits(query, k, doc_ids, variant, hit_dict)

    def _fts_hits(self, query: str, k: int, doc_ids: Sequence[str] | None, variant: str,
                  make: Callable[[RetrievedChunk, dict[str, Any]], _Hit]) -> list[_Hit]:
        """`search_fts`'s hits, each `make(chunk, its search fields)`."""
        phrases = fts_phrases(query)
        if not phrases or k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        variant = _variant_name(variant)
        conn = self._reader()
        hits: list[tuple[int, float]] | None = None
        if variant == "base":
            if doc_ids is None:
                stamp = self.generation
                if getattr(self, "_lex_full", (None,))[0] != stamp:  # every document has current postings?
                    self._lex_full = (stamp, lexical.count_covered(conn) >= self.count_documents())
                if self._lex_full[1]:
                    hits = lexical_search.search(conn, phrases, int(k), cache_key=(self._cache_id(), stamp))
            else:
                los = lexical.covered(conn, doc_ids)
                if len(los) == len(set(doc_ids)):
                    hits = lexical_search.search(conn, phrases, int(k), sorted(los.values()))
        if hits is None:
            hits = self._fts5_search(conn, phrases, int(k), doc_ids, variant)
        chunks = self.get_chunks([cid for cid, _ in hits])
        return [make(chunks[cid], {"score": score, "fts_rank": rank})
                for rank, (cid, score) in enumerate(hits, 1) if cid in chunks]

    def _fts5_search(self, conn, phrases: list[str], k: int, doc_ids: Sequence[str] | None,
                     variant: str) -> list[tuple[int, float]]:
        table = "chunks_fts" if variant == "base" else f"chunks_fts_{variant}"
        match = " OR ".join('"' + p + '"' for p in phrases)
        base = f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ?"
        if doc_ids is None:
            rows = conn.execute(base + f" ORDER BY bm25({table}) LIMIT ?", (match, k)).fetchall()
            return [(r[0], -float(r[1])) for r in rows]
        out: list[tuple[int, float]] = []
        for doc, (lo, hi, n) in self.chunk_ranges(doc_ids).items():
            sql = base + " AND rowid BETWEEN ? AND ?"
            params: list = [match, lo, hi]
            if hi - lo + 1 != n:  # not contiguous: keep the range (bounded cost), filter by document
                sql += " AND rowid IN (SELECT chunk_id FROM chunks WHERE doc_id = ?)"
                params.append(doc)
            rows = conn.execute(sql + f" ORDER BY bm25({table}) LIMIT ?", (*params, k)).fetchall()
            out += [(r[0], -float(r[1])) for r in rows]
        out.sort(key=lambda t: (-t[1], t[0]))
        return out[:k]

    def chunk_ranges(self, doc_ids: Iterable[str]) -> dict[str, tuple[int, int, int]]:
        """doc_id -> (first chunk id, last chunk id, number of chunks) for the documents that have chunks."""
        conn = self._reader()
        out = {}
        for d in dict.fromkeys(doc_ids):
            lo, hi, n = conn.execute("SELECT MIN(chunk_id), MAX(chunk_id), COUNT(*) FROM chunks WHERE doc_id=?",
                                     (d,)).fetchone()
            if n:
                out[d] = (int(lo), int(hi), int(n))
        return out

    # ----------------------------------------------------------------- vectors
    def _dim(self) -> int:
        dim = int(self.get_meta("embedding_dim", "0") or 0)
        if not dim:
            raise IndexError_("index has no embedding dimension recorded (empty index?)")
        return dim

    def _prefix_vectors(self, variant: str, doc_id: str | None = None) -> dict[int, np.ndarray]:
        """chunk_id -> prefix vector of a variant (of one document's chunks, or all); missing ones are embedded."""
        sql = "SELECT p.chunk_id, p.prefix, p.vec FROM chunk_prefix p WHERE p.variant=?"
        params: list = [variant]
        if doc_id is not None:
            sql += " AND p.chunk_id IN (SELECT chunk_id FROM chunks WHERE doc_id=?)"
            params.append(doc_id)
        rows = self._reader().execute(sql, params).fetchall()
        missing = sorted({r["prefix"] for r in rows if r["vec"] is None})
        cache: dict[str, np.ndarray] = {}
        if missing:
            if self.embedder is None:
                raise IndexError_("an embedder is needed to build variant vectors")
            for text, vec in zip(missing, self.embedder.embed_documents(missing)):
                cache[text] = vec
        return {r["chunk_id"]: (blob_vec(r["vec"]) if r["vec"] is not None else cache[r["prefix"]]) for r in rows}

    def _check_variant(self, variant: str) -> None:
        """VariantMissing unless the variant's prefixes cover every chunk (remembered until the index changes)."""
        if variant == "base":
            return
        stamp = (variant, self.generation, self.get_meta("prefix_generation", "0"))
        if stamp in self._variants_ok:
            return
        have, total = self.variant_status(variant)
        if have < total:
            raise VariantMissing(
                f"index variant {variant!r} covers {have} of {total} chunks; build it with "
                f"`finrag index --variant {variant} --index {self.index_dir}`")
        self._variants_ok.add(stamp)

    def build_faiss(self, variant: str = "base"):
        """Bring the variant's vector file (and its approximate index, when one is configured) up to date
        with SQLite, without re-embedding; returns the FAISS-like view (`faiss_index`)."""
        variant = _variant_name(variant)
        self._check_variant(variant)
        self.sync_vectors(variant)
        self.build_ann(variant)
        return self.faiss_index(variant)

    def faiss_is_current(self, variant: str = "base") -> bool:
        """Whether every document with stored vectors has its rows in the variant's vector file."""
        variant = _variant_name(variant)
        try:
            fid = self.vector_file(variant).file_id()
        except IndexError_:
            return False
        if fid is None:
            return False
        return self.docs_with_vectors() <= set(self._recorded(variant, fid))

    def faiss_index(self, variant: str = "base") -> V.IdView:
        """The variant's chunk vectors as FAISS callers used them: `ntotal`, `reconstruct(chunk_id)`, `search`."""
        variant = _variant_name(variant)
        self._check_variant(variant)
        self.sync_vectors(variant)
        return V.IdView(self.vector_file(variant), lambda q, k: self._corpus_search(variant, q, k))

    def vector_file(self, variant: str = "base") -> V.VectorFile:
        variant = _variant_name(variant)
        with self._vec_lock:
            vf = self._vfiles.get(variant)
            if vf is None:
                vf = self._vfiles[variant] = V.VectorFile(self.index_dir, variant, self._dim(), self.get_meta("embedder"))
            return vf

    def _current_file(self, variant: str) -> str:
        """The id of the variant's vector file, creating an empty one when there is none (or a foreign one)."""

        vf = self.vector_file(variant)
        fid = vf.file_id()
        if fid is None:
            with self._vec_lock, faiss_save_lock(self.index_dir):
                fid = vf.file_id()
                if fid is None:
                    fid = vf.create()
        return fid

    def _vec_stamp(self) -> tuple:
        """Changes whenever documents or stored vectors change (in any process)."""
        return (self.generation, self.get_meta("vectors_generation", "0"))

    def _base_file_id(self) -> str | None:
        try:
            return self.vector_file("base").file_id()
        except Exception:  # an empty index: no dimension recorded yet
            return None

    def docs_with_vectors(self, doc_ids: Iterable[str] | None = None) -> set[str]:
        """Documents whose vectors are stored: segment embeddings in SQLite (or, for documents that were
        written straight into the vector file, e.g. by bench/scale.py, rows recorded there)."""
        conn = self._reader()
        fid = self._base_file_id()
        cond = "EXISTS (SELECT 1 FROM segments s WHERE s.doc_id = d.doc_id)"
        params: list = []
        if fid:
            cond += (" OR EXISTS (SELECT 1 FROM vec_rows v WHERE v.variant = 'base' AND v.doc_id = d.doc_id "
                     "AND v.file = ?)")
            params.append(fid)
        if doc_ids is None:
            return {r[0] for r in conn.execute(f"SELECT d.doc_id FROM documents d WHERE {cond}", params)}
        docs, out = list(dict.fromkeys(doc_ids)), set[str]()
        for i in range(0, len(docs), 500):
            part = docs[i:i + 500]
            q = f"SELECT d.doc_id FROM documents d WHERE d.doc_id IN ({','.join('?' * len(part))}) AND ({cond})"
            out.update(r[0] for r in conn.execute(q, [*part, *params]))
        return out

    def vector_coverage(self, doc_ids: Sequence[str] | None = None) -> tuple[list[str], int]:
        """(documents without vectors, documents considered) for a scope (None: the whole index)."""
        if doc_ids is not None:
            docs = list(dict.fromkeys(doc_ids))
            have = self.docs_with_vectors(docs)
            return [d for d in docs if d not in have], len(docs)
        stamp = self._vec_stamp()
        cached = getattr(self, "_coverage", None)
        if cached is None or cached[0] != stamp:
            docs = [r[0] for r in self._reader().execute("SELECT doc_id FROM documents ORDER BY doc_id")]
            have = self.docs_with_vectors()
            cached = self._coverage = (stamp, [d for d in docs if d not in have], len(docs))
        return list(cached[1]), cached[2]

    def _recorded(self, variant: str, fid: str, doc_ids: Sequence[str] | None = None) -> dict[str, tuple[int, int]]:
        conn = self._reader()
        if doc_ids is None:
            rows = conn.execute("SELECT doc_id, lo, hi FROM vec_rows WHERE variant=? AND file=?", (variant, fid))
            return {r[0]: (r[1], r[2]) for r in rows}
        out = {}
        docs = list(doc_ids)
        for i in range(0, len(docs), 500):
            part = docs[i:i + 500]
            q = (f"SELECT doc_id, lo, hi FROM vec_rows WHERE variant=? AND file=? "
                 f"AND doc_id IN ({','.join('?' * len(part))})")
            out.update({r[0]: (r[1], r[2]) for r in conn.execute(q, [variant, fid, *part])})
        return out

    def write_doc_vectors(self, doc_id: str, variant: str = "base", fid: str | None = None) -> bool:
        """Derive a document's chunk vectors from its stored segments (+ prefixes) into the vector file."""

        fid = fid or self._current_file(variant)
        ids, vecs = self._doc_chunk_vectors(doc_id, variant)
        if not len(ids):
            return False
        vf = self.vector_file(variant)
        with self._vec_lock, faiss_save_lock(self.index_dir):
            if vf.file_id() != fid:
                return False
            vf.write(ids, vecs)
        with self._lock:
            self.conn.execute("INSERT OR REPLACE INTO vec_rows(variant, doc_id, lo, hi, file) VALUES (?,?,?,?,?)",
                              (variant, doc_id, int(ids.min()), int(ids.max()), fid))
            self.conn.commit()
        return True

    def chunk_vectors(self, doc_id: str, variant: str, ids: np.ndarray) -> np.ndarray:
        """The variant's vectors of the document's chunks `ids`, in that order: from the vector file when the
        document's rows are recorded there, else derived from its stored segments (+ prefixes) (`finrag copy`)."""
        vf = self.vector_file(variant)
        fid = vf.file_id()
        if fid is not None and doc_id in self._recorded(variant, fid, [doc_id]):
            return vf.gather(ids)
        got_ids, vecs = self._doc_chunk_vectors(doc_id, variant)
        order = {int(c): i for i, c in enumerate(got_ids.tolist())}
        return np.stack([vecs[order[int(c)]] for c in ids])

    def _doc_chunk_vectors(self, doc_id: str, variant: str) -> tuple[np.ndarray, np.ndarray]:
        conn = self._reader()
        seg_rows = conn.execute("SELECT vec FROM segments WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
        rows = conn.execute("SELECT chunk_id, seg_first, seg_count FROM chunks WHERE doc_id=? ORDER BY chunk_id",
                            (doc_id,)).fetchall()
        if not seg_rows or not rows:
            return np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
        segs = np.stack([blob_vec(r[0]) for r in seg_rows])
        prefix = {}
        if variant != "base":
            prefix = self._prefix_vectors(variant, doc_id)
        ids, vecs = [], []
        for cid, s0, sn in rows:
            parts = [segs[s0: s0 + max(sn, 1)]]
            if variant != "base":
                pv = prefix.get(cid)
                if pv is None:
                    raise VariantMissing(f"variant {variant!r} has no prefix for chunk {cid} of {doc_id}")
                parts.append(pv[None, :])
            ids.append(cid)
            vecs.append(np.concatenate(parts).mean(axis=0))
        return np.array(ids, dtype=np.int64), normalize(np.stack(vecs))

    def sync_vectors(self, variant: str = "base", log=None) -> dict:
        """Bring the vector file in step with SQLite: rows for every document with stored segments, none for
        removed or replaced documents (a crash between a commit and the file write leaves such gaps). No
        embedding; skipped when nothing changed since the last sync in this process."""
        variant = _variant_name(variant)
        fid = self._current_file(variant)
        stamp = self._vec_stamp()
        if self._synced.get(variant) == (stamp, fid):
            return {"variant": variant, "written": 0, "dropped": 0, "skipped": True}
        conn = self._reader()
        unwritten = [r[0] for r in conn.execute(
            "SELECT d.doc_id FROM documents d WHERE EXISTS (SELECT 1 FROM segments s WHERE s.doc_id = d.doc_id) "
            "AND NOT EXISTS (SELECT 1 FROM vec_rows v WHERE v.variant = ? AND v.doc_id = d.doc_id AND v.file = ?) "
            "ORDER BY d.doc_id", (variant, fid))]
        added = sum(bool(self.write_doc_vectors(doc, variant, fid)) for doc in unwritten)
        stale = {r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT v.doc_id, v.lo, v.hi FROM vec_rows v WHERE v.variant = ? AND v.file = ? AND "
            "(NOT EXISTS (SELECT 1 FROM documents d WHERE d.doc_id = v.doc_id) OR "
            "v.lo IS NOT (SELECT MIN(c.chunk_id) FROM chunks c WHERE c.doc_id = v.doc_id))", (variant, fid))}
        if stale:
            self._drop_rows(variant, stale)
        self._synced[variant] = (stamp, fid)
        return {"variant": variant, "written": added, "dropped": len(stale)}

    def _drop_rows(self, variant: str, docs: dict[str, tuple[int, int]]) -> None:
        vf = self.vector_file(variant)
        with self._vec_lock, faiss_save_lock(self.index_dir):
            for lo, hi in docs.values():
                vf.zero(int(lo), int(hi))
        with self._lock:
            self.conn.executemany("DELETE FROM vec_rows WHERE variant=? AND doc_id=?", [(variant, d) for d in docs])
            self.conn.commit()

    def forget_vector_rows(self, doc_id: str) -> None:
        """Clear a removed or replaced document's rows in every variant's vector file."""
        rows = self._reader().execute("SELECT variant, lo, hi FROM vec_rows WHERE doc_id=?", (doc_id,)).fetchall()
        for variant, lo, hi in rows:
            self._drop_rows(variant, {doc_id: (lo, hi)})

    def build_ann(self, variant: str = "base", kind: str | None = None) -> dict | None:
        """(Re)build the approximate index of a variant when the setting (or `auto` by size) asks for one."""
        self.sync_vectors(variant)
        fid = self._current_file(variant)
        vf = self.vector_file(variant)
        n_rows = int(self._reader().execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        chosen = V.choose_kind(kind or self.get_meta("vector_index") or "auto", n_rows)
        if chosen == "flat":
            return None
        seq = self._reader().execute("SELECT COALESCE(MAX(seq), 0) FROM vec_rows WHERE variant=? AND file=?",
                                     (variant, fid)).fetchone()[0]

        return V.build_ann(vf, chosen, upto_seq=int(seq), file_id=fid, save_lock=faiss_save_lock(self.index_dir))

    def _ann(self, variant: str, fid: str) -> V.Ann | None:
        path = self.index_dir / f"ann_{variant}.json"
        try:
            key = (fid, path.stat().st_mtime_ns)
        except FileNotFoundError:
            return None
        with self._vec_lock:
            cached = self._anns.get(variant)
            if cached is None or cached[0] != key:
                cached = self._anns[variant] = (key, V.Ann.load(self.vector_file(variant), fid))
            return cached[1]

    def _corpus_search(self, variant: str, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        fid = self._current_file(variant)
        vf = self.vector_file(variant)
        ann = self._ann(variant, fid)
        if ann is None or V.choose_kind(self.get_meta("vector_index"), int(ann.record.get("ntotal", 0))) == "flat":
            return vf.exact_search(q, k)
        parts = [ann.search(q, k)]
        newer = self._reader().execute(
            "SELECT doc_id FROM vec_rows WHERE variant=? AND file=? AND seq > ?",
            (variant, fid, int(ann.record.get("upto_seq", 0)))).fetchall()
        if newer:  # documents written after the approximate index was built: searched exactly
            ids = self.chunk_ids_of([r[0] for r in newer])
            parts.append(vf.exact_search(q, k, ids))
        return V.merge_top(parts, k)

    def search_vectors(self, vector: np.ndarray, k: int = VECTOR_K, doc_ids: Sequence[str] | None = None,
                       variant: str = "base", max_distance: float | None = None) -> list[RetrievedChunk]:
        """Inner-product search over unit vectors; `distance` is the L2 distance sqrt(2 - 2 cos).

        Documents without stored vectors are not searched (see `vector_coverage`)."""
        return self._vector_hits(vector, k, doc_ids, variant, max_distance, with_fields)

    def search_vectors_dicts(self, vector: np.ndarray, k: int = VECTOR_K, doc_ids: Sequence[str] | None = None,
                             variant: str = "base", max_distance: float | None = None) -> list[dict[str, Any]]:
        """`[hit.model_dump() for hit in self.search_vectors(...)]`, the same dicts without the models in between
        (as `search_fts_dicts`)."""
        return self._vector_hits(vector, k, doc_ids, variant, max_distance, hit_dict)

    def _vector_hits(self, vector: np.ndarray, k: int, doc_ids: Sequence[str] | None, variant: str,
                     max_distance: float | None, make: Callable[[RetrievedChunk, dict[str, Any]], _Hit]) -> list[_Hit]:
        """`search_vectors`'s hits, each `make(chunk, its search fields)`."""
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        variant = _variant_name(variant)
        self._check_variant(variant)
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if doc_ids is None:
            self.sync_vectors(variant)
            ids, sims = self._corpus_search(variant, q, int(k))
        else:
            fid = self._current_file(variant)
            docs = list(dict.fromkeys(doc_ids))
            recorded = self._recorded(variant, fid, docs)
            for d in self.docs_with_vectors([d for d in docs if d not in recorded]):
                self.write_doc_vectors(d, variant, fid)  # stored segments whose rows are not written yet
            allowed = self.chunk_ids_of(docs)
            if allowed.size == 0:
                return []
            ids, sims = self.vector_file(variant).exact_search(q, int(k), allowed)
        id_list = ids.tolist()
        chunks = self.get_chunks(id_list)
        # the distances at once, the same floats as `float(np.sqrt(max(0.0, 2.0 - 2.0 * sim)))` per hit (float64
        # arithmetic on the float32 similarity; `where` is `max(0.0, x)`, NaN included)
        sim64 = np.asarray(sims, dtype=np.float64)
        gap = 2.0 - 2.0 * sim64
        dists = np.sqrt(np.where(gap > 0.0, gap, 0.0)).tolist()
        out = []
        for rank, (cid, sim, dist) in enumerate(zip(id_list, sim64.tolist(), dists), 1):
            if max_distance is not None and dist > max_distance:
                continue
            c = chunks.get(cid)
            if c is None:
                continue
            out.append(make(c, {"score": sim, "vector_rank": rank, "vector_distance": dist}))
        return out

    # ------------------------------------------------------- on-demand embedding
    def embed_missing(self, doc_ids: Sequence[str], embedder=None) -> list[str]:
        """Embed the given documents that have no vectors yet (HDRR on a filing the embed pass has not
        reached); their segments are stored, so the next question, and the embed pass, find them."""
        embedder = embedder or self.embedder
        done = []
        for doc in self.vector_coverage(doc_ids)[0]:
            texts = self.segment_texts(doc)
            if not texts:
                continue
            vecs = embedder.embed_documents(texts)
            if self.add_segments(doc, vecs):
                done.append(doc)
        return done

    def segment_texts(self, doc_id: str) -> list[str]:
        """The texts the embedder reads for a document: its segments (or its chunks for other chunkings)."""

        size, overlap = self.chunking_params() or (CHUNK_SIZE, CHUNK_OVERLAP)
        step = size - overlap
        if size % step:
            return [c.text for c in self.chunks_of(doc_id)]
        pages = self.pages_of(doc_id)
        if not pages:
            return []
        return segments(join_pages(pages)[0], step)

    def add_segments(self, doc_id: str, vectors: np.ndarray) -> bool:
        """Store a document's segment vectors (when it has none yet) and write its chunk vectors."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                exists = self.conn.execute("SELECT 1 FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
                has = self.conn.execute("SELECT 1 FROM segments WHERE doc_id=? LIMIT 1", (doc_id,)).fetchone()
                if not exists or has:
                    self.conn.rollback()
                    return False
                self.conn.executemany("INSERT INTO segments(doc_id, ord, vec) VALUES (?,?,?)",
                                      [(doc_id, i, vec_blob(v)) for i, v in enumerate(vectors)])
                self._bump("vectors_generation")
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        self.write_doc_vectors(doc_id, "base")
        return True
