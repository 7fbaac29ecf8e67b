"""MilvusStore: the Store interface of the nodes over Milvus (Milvus Lite or a server / cluster).

The same methods the nodes, the runtime and the CLI call on the embedded `Store` (documents and
registry data, pages, chunks, scoped BM25, scoped vector search, variants, metadata), answered by
Milvus: `search_fts` runs finrag's own BM25 as sparse vectors (`lex.py`; or, for collections created
with FINRAG_MILVUS_BM25=function, Milvus' built-in BM25 over the analysed `text`), `search_vectors` an
inner-product search of the `dense` field; both filter on `doc_id` (the partition key) when routing
scoped the question, so Milvus searches only the routed filings' partitions. RRF, reranking and the
cutoff stay finrag's own nodes, so both backends fuse the same way.

Writes (`finrag copy`, `finrag index --index milvus:...`) are in `writer.py`.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Iterable, Sequence, cast

import numpy as np

from finrag.state.index_reader import SectionLabels
from finrag.state.schema import DocumentInfo, RetrievedChunk
from finrag.state.settings import MilvusSettings
from finrag.tools.indexing import sections_store
from finrag.tools.indexing.milvus import lex as L
from finrag.tools.indexing.milvus import schema as S
from finrag.tools.indexing.store_schema import EmbedderMismatch, IndexError_, IndexMissing, VariantMissing, fts_phrases

CHUNK_FIELDS = ["chunk_id", "doc_id", "page_start", "page_end", "text"]
QUERY_PAGE = 10_000  # Milvus caps offset + limit of one query at 16,384 rows


def _quote(values: Iterable[str]) -> str:
    return json.dumps(list(values))


def _hid(hit) -> int:
    return int(hit["chunk_id"] if "chunk_id" in hit else hit["id"])


def _variant(name: str) -> str:
    if name not in ("base", *S.VARIANT_NAMES):
        raise ValueError(f"unknown index variant {name!r}; expected one of {('base', *S.VARIANT_NAMES)}")
    return name


def _tie_order(scored: list[tuple[dict, float]], rel: float = 2e-7) -> list[tuple[dict, float]]:
    """Best first; scores equal up to the float32 rounding of the stored weights (a relative 2e-7) are ties,
    ordered by chunk id as the embedded backend orders its equal scores."""
    scored = sorted(scored, key=lambda t: (-t[1], _hid(t[0])))
    out, i = [], 0
    while i < len(scored):
        j = i + 1
        while j < len(scored) and scored[i][1] - scored[j][1] <= rel * abs(scored[i][1]):
            j += 1
        out += sorted(scored[i:j], key=lambda t: _hid(t[0]))
        i = j
    return out


class MilvusStore:
    """A finrag index in Milvus, read (and, through `writer.py`, written) with pymilvus' MilvusClient."""

    def __init__(self, location: str, embedder=None, create: bool = False, dim: int | None = None,
                 settings: MilvusSettings | None = None):
        self.location = S.parse_location(location, settings)  # the settings, read once (None: the environment's)
        self.index_dir = self.location.cache_dir  # derived local data only (the registry's pickle)
        self.client = S.connect(self.location, create=create)
        try:
            self.index_dir.mkdir(parents=True, exist_ok=True)
        except OSError:  # read-only: the registry is rebuilt in memory
            pass
        self._lock = threading.RLock()
        self._vec_cache: OrderedDict[tuple[str, int], np.ndarray] = OrderedDict()
        self._meta_cache: tuple[float, dict] | None = None
        self._df_cache: tuple[int, dict[str, int]] = (-1, {})
        self.embedder = None
        try:
            have = {c: self.client.has_collection(c) for c in S.all_collections(self.location)}
        except Exception as exc:
            raise S.MilvusUnavailable(f"Milvus at {self.location} does not answer ({S.short_error(exc)})") from None
        if not have[self.location.name("meta")]:
            if not create:
                raise IndexMissing(f"no finrag index at {self.location} (collection {self.location.name('meta')} "
                                   f"missing; build one with `finrag copy SRC {self.location}`)")
            if not dim:
                raise IndexError_("creating a Milvus index needs the embedding dimension")
        for c, ok in have.items():  # a reopened Milvus keeps collections released until loaded
            if ok:
                self._load(c)
        if have[self.location.name("meta")]:
            version = self.get_meta("milvus_schema_version")
            if version != str(S.SCHEMA_VERSION):
                raise S.SchemaMismatch(f"{self.location} holds finrag Milvus schema version {version}, this finrag "
                                       f"reads version {S.SCHEMA_VERSION}; copy the index again into new collections "
                                       "(another FINRAG_MILVUS_PREFIX or file)")
            dim = dim or int(self.get_meta("embedding_dim", "0") or 0)
        missing = [c for c, ok in have.items() if not ok]
        if missing and not create and have[self.location.name("meta")]:
            raise IndexMissing(f"finrag index at {self.location} is incomplete: collection(s) {', '.join(missing)} "
                               "missing; copy it again")
        if missing or create:
            mode = (self.get_meta("bm25") if have[self.location.name("meta")] else None) or S.bm25_mode(self.location.settings)
            S.create_collections(self.client, self.location, int(dim or 0), mode)
            if self.get_meta("milvus_schema_version") is None:
                self.set_meta("milvus_schema_version", S.SCHEMA_VERSION)
            if self.get_meta("bm25") is None:
                self.set_meta("bm25", mode)
        for c in missing:
            self._load(c)
        self.has_facts = bool(self.client.has_collection(self.location.name(S.FACTS)))
        if self.has_facts:
            self._load(self.location.name(S.FACTS))
        if embedder is not None:
            self.check_embedder(embedder)

    # ------------------------------------------------------------------ helpers
    def _load(self, name: str) -> None:
        try:
            self.client.load_collection(name)
        except Exception as exc:
            raise S.MilvusUnavailable(f"Milvus cannot load {name} at {self.location} ({S.short_error(exc)})") from None

    def _query(self, what: str, filter: str, fields: list[str], limit: int | None = None) -> list[dict]:
        name = what if what.startswith(self.location.prefix + "_") else self.location.name(what)
        try:
            if limit is not None:
                return list(self.client.query(name, filter=filter, output_fields=fields, limit=limit))
            out: list[dict] = []
            it = self.client.query_iterator(name, filter=filter, output_fields=fields, batch_size=QUERY_PAGE)
            try:
                while True:
                    batch = it.next()
                    if not batch:
                        break
                    out.extend(batch)
            finally:
                it.close()
            return out
        except IndexError_:
            raise
        except Exception as exc:
            raise S.MilvusUnavailable(f"Milvus query on {name} at {self.location} failed ({S.short_error(exc)})") from None

    def _count(self, name: str, filter: str = "") -> int:
        rows = self.client.query(name, filter=filter, output_fields=["count(*)"])
        return int(rows[0]["count(*)"]) if rows else 0

    # --------------------------------------------------------------------- meta
    def _meta(self) -> dict:
        import time

        with self._lock:
            if self._meta_cache is None or time.monotonic() - self._meta_cache[0] > 1.0:
                rows = self._query("meta", 'key != ""', ["key", "value"], limit=QUERY_PAGE)
                self._meta_cache = (time.monotonic(), {r["key"]: r["value"] for r in rows})
            return self._meta_cache[1]

    def meta(self) -> dict[str, str]:
        """Every `meta` row (key -> value), read at most once a second (a copy of the cached rows)."""
        return dict(self._meta())

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        return self._meta().get(key, default)

    def set_meta(self, key: str, value) -> None:
        self.client.upsert(self.location.name("meta"), [{"key": key, "value": str(value), "v": [0.0] * S.DUMMY_DIM}])
        with self._lock:
            self._meta_cache = None

    @property
    def generation(self) -> int:
        return int(self.get_meta("generation", "0") or 0)

    def check_embedder(self, embedder) -> None:
        recorded = self.get_meta("embedder")
        if recorded is None:
            self.set_meta("embedder", embedder.identity)
            self.set_meta("embedding_dim", embedder.dim)
        elif recorded != embedder.identity:
            raise EmbedderMismatch(f"index {self.location} was built with embedder {recorded!r}, not "
                                   f"{embedder.identity!r}; use the same embedder or copy into another location")
        self.embedder = embedder

    def chunking_params(self) -> tuple[int, int] | None:
        size, overlap = self.get_meta("chunk_size"), self.get_meta("chunk_overlap")
        # both keys are written together, so overlap is set whenever size is
        return (int(size), int(cast(str, overlap))) if size is not None else None

    # ---------------------------------------------------------------- documents
    def count_documents(self) -> int:
        return self._count(self.location.name("documents"))

    def document_rows(self) -> list[dict]:
        rows = self._query("documents", 'doc_id != ""', ["doc_id", "path", "content_hash", "n_pages", "n_chars",
                                                         "info_json", "lex_json"])
        return sorted(rows, key=lambda r: r["doc_id"])

    def documents(self) -> list[DocumentInfo]:
        return [DocumentInfo.model_validate_json(r["info_json"]) for r in self.document_rows()]

    def document_hashes(self) -> dict[str, tuple[str, str]]:
        return {r["doc_id"]: (r["content_hash"], r["path"]) for r in self.document_rows()}

    def content_hash_of(self, doc_id: str) -> str:
        """The SHA-256 of the filing's file as indexed ('' for an unknown filing)."""
        return str(self.document_hashes().get(doc_id, ("", ""))[0] or "")

    def facts_of(self, doc_id: str) -> dict | None:
        """The filing's inline-XBRL facts while they belong to its current content, else None (`IndexLabels`;
        Milvus unreachable mid-question: None, never an error)."""
        try:
            return self.xbrl_facts(doc_id)
        except Exception:
            return None

    def sections_of(self, doc_id: str) -> SectionLabels:
        """{chunk_id: (item, note)} of `doc_id` detected from its pages (`IndexLabels`), remembered per location
        (`sections_store.labels_from_pages`)."""
        return sections_store.remembered((str(self.location), doc_id, ""),
                                         lambda: sections_store.labels_from_pages(self, doc_id))

    def xbrl_facts(self, doc_id: str) -> dict | None:
        """The filing's inline-XBRL facts while they belong to its current content (errors raised: `facts_of`
        answers None instead)."""
        if not self.has_facts:
            return None
        flt = f"doc_id == {json.dumps(doc_id)}"
        rows = self._query(S.FACTS, flt, ["part", "text", "content_hash"])
        doc = self._query("documents", flt, ["content_hash"], limit=1)
        if not rows or not doc or any(r["content_hash"] != doc[0]["content_hash"] for r in rows):
            return None
        try:
            return json.loads("".join(r["text"] for r in sorted(rows, key=lambda r: int(r["part"]))))
        except ValueError:
            return None

    def pages_of(self, doc_id: str) -> list[str]:
        rows = self._query("pages", f"doc_id == {json.dumps(doc_id)}", ["page_no", "part", "text"])
        pages: dict[int, list[tuple[int, str]]] = {}
        for r in rows:
            pages.setdefault(int(r["page_no"]), []).append((int(r["part"]), r["text"]))
        n = max(pages) + 1 if pages else 0
        return ["".join(t for _, t in sorted(pages.get(i, []))) for i in range(n)]

    def document_text(self, doc_id: str) -> str:
        return "\n".join(self.pages_of(doc_id))

    @staticmethod
    def _chunk(r: dict, **extra) -> RetrievedChunk:
        return RetrievedChunk(chunk_id=int(r["chunk_id"]), doc_id=r["doc_id"], page_start=int(r["page_start"]),
                              page_end=int(r["page_end"]), text=r["text"], **extra)

    def chunk_rows(self, doc_id: str, variant: str = "base", vectors: bool = False) -> list[dict]:
        fields = ["chunk_id", "doc_id", "ord", "page_start", "page_end", "char_start", "char_end", "seg_first",
                  "seg_count", "text"]
        if variant != "base":
            fields += ["prefix"] + (["prefix_vec"] if vectors else [])
        if vectors:
            fields.append("dense")
        rows = self._query(S.chunk_collection(self.location, _variant(variant)), f"doc_id == {json.dumps(doc_id)}",
                           fields)
        return sorted(rows, key=lambda r: int(r["chunk_id"]))

    def chunks_of(self, doc_id: str) -> list[RetrievedChunk]:
        return [self._chunk(r) for r in sorted(self.chunk_rows(doc_id), key=lambda r: int(r["ord"]))]

    def get_chunks(self, chunk_ids: Iterable[int]) -> dict[int, RetrievedChunk]:
        ids = [int(i) for i in chunk_ids]
        out: dict[int, RetrievedChunk] = {}
        for i in range(0, len(ids), 1000):
            part = ids[i:i + 1000]
            for r in self._query(S.chunk_collection(self.location, "base"), f"chunk_id in {part}", CHUNK_FIELDS,
                                 limit=len(part)):
                out[int(r["chunk_id"])] = self._chunk(r)
        return out

    def chunk_ids_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        docs = list(doc_ids)
        if not docs:
            return np.zeros(0, dtype=np.int64)
        rows = self._query(S.chunk_collection(self.location, "base"), f"doc_id in {_quote(docs)}", ["chunk_id"])
        return np.array(sorted(int(r["chunk_id"]) for r in rows), dtype=np.int64)

    def segments_of(self, doc_id: str) -> np.ndarray:
        rows = self._query("segments", f"doc_id == {json.dumps(doc_id)}", ["ord", "vec"])
        rows.sort(key=lambda r: int(r["ord"]))
        return np.array([r["vec"] for r in rows], dtype=np.float32)

    # ------------------------------------------------------------------- search
    def _filter(self, doc_ids: Sequence[str] | None) -> str:
        return "" if doc_ids is None else f"doc_id in {_quote(dict.fromkeys(doc_ids))}"

    def _search(self, variant: str, data: list, field: str, k: int, doc_ids, fields: list[str],
                metric: str | None = None) -> list[dict]:
        name = S.chunk_collection(self.location, variant)
        metric = metric or ("BM25" if field == "sparse" else "IP")
        try:
            res = self.client.search(name, data=data, anns_field=field, limit=int(k), filter=self._filter(doc_ids),
                                     output_fields=fields + (CHUNK_FIELDS[1:] if variant == "base" else []),
                                     search_params={"metric_type": metric})
        except Exception as exc:
            raise S.MilvusUnavailable(f"Milvus search on {name} at {self.location} failed ({S.short_error(exc)})") from None
        return list(res[0]) if res else []

    @property
    def bm25(self) -> str:
        """finrag (finrag's BM25 weights as sparse vectors, metric IP) or function (Milvus' BM25 function)."""
        return self.get_meta("bm25") or "function"

    def lex_stats(self, variant: str) -> tuple[int, int]:
        """(N, tokens) of a variant's BM25 statistics (bm25=finrag)."""
        return (int(self.get_meta(f"lex_rows_{variant}", "0") or 0), int(self.get_meta(f"lex_tokens_{variant}", "0") or 0))

    def forget_lex_df(self) -> None:
        """Drop the cached document frequencies (after the copy rewrote them)."""
        with self._lock:
            self._df_cache = (-1, {})

    def lex_df(self, variant: str, terms: Sequence[str]) -> dict[str, int]:
        """term -> df in a variant (cached in the process until the index's generation changes)."""
        gen = self.generation
        with self._lock:
            if self._df_cache[0] != gen:
                self._df_cache = (gen, {})
            cache = self._df_cache[1]
            ids = [L.term_id(variant, t) for t in terms]
            missing = [i for i in ids if i not in cache and len(i) <= L.TERM_MAX]
        for j in range(0, len(missing), 1000):
            part = missing[j:j + 1000]
            # unicode61 terms hold no quotes or backslashes; non-ASCII stays as is (Milvus reads no \\u escapes)
            flt = f"id in {json.dumps(part, ensure_ascii=False)}"
            got = {r["id"]: int(r["df"]) for r in self._query("lex_terms", flt, ["id", "df"], limit=len(part))}
            with self._lock:
                cache.update({i: got.get(i, 0) for i in part})
        return {t: cache.get(i, 0) for t, i in zip(terms, ids)}

    def search_fts(self, query: str, k: int = 20, doc_ids: Sequence[str] | None = None,
                   variant: str = "base") -> list[RetrievedChunk]:
        """BM25 over the chunk text (or a variant's prefixed text), optionally scoped to documents.

        bm25=finrag: the embedded backend's BM25 (same terms, df, N, avgdl) as an inner product of sparse
        vectors, candidates rescored exactly (`lex.py`); bm25=function: Milvus' BM25 function."""

        phrases = fts_phrases(query)
        if not phrases or k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        variant = _variant(variant)
        self._check_variant(variant)
        if self.bm25 == "function":
            hits = self._search(variant, [" ".join(phrases)], "sparse", k, doc_ids, ["dense"])
            scored = [(h, float(h["distance"])) for h in hits]
        else:
            scored = self._finrag_bm25(phrases, int(k), doc_ids, variant)
        chunks = self._hit_chunks(variant, [h for h, _ in scored])
        return [chunks[_hid(h)].model_copy(update={"score": score, "fts_rank": rank})
                for rank, (h, score) in enumerate(scored, 1) if _hid(h) in chunks]

    def _finrag_bm25(self, phrases: list[str], k: int, doc_ids, variant: str) -> list[tuple[dict, float]]:
        n_rows, _ = self.lex_stats(variant)
        plan = L.query_plan(phrases, n_rows, lambda terms: self.lex_df(variant, terms))
        if not plan:
            return []
        if doc_ids is None and variant == "base":  # as lexical_search.search: terms at the IDF floor only if needed
            strong = [x for x in plan if x[1] > L.lexical.IDF_FLOOR]
            if strong and len(strong) < len(plan):
                got = self._bm25_top(strong, k, doc_ids, variant)
                if len(got) >= k:
                    return got
        return self._bm25_top(plan, k, doc_ids, variant)

    def _bm25_top(self, plan, k: int, doc_ids, variant: str) -> list[tuple[dict, float]]:
        """The exact top k: Milvus ranks by an upper bound of each chunk's score (exact without phrases),
        finrag rescores, and asks for more candidates until the k-th exact score reaches the last bound."""
        query = L.query_vector(plan)
        limit = k + 10  # a margin for ties at k
        while True:
            hits = self._search(variant, [query], "sparse", limit, doc_ids, ["dense", "sparse"], metric="IP")
            scored = [(h, L.rescore(plan, h.get("entity", {}).get("sparse") or {})) for h in hits]
            scored = [(h, s) for h, s in scored if s > 0]
            scored = _tie_order(scored)
            if len(hits) < limit or limit >= 16_384 or (
                    len(scored) >= k and scored[k - 1][1] > float(hits[-1]["distance"]) * (1 + 1e-6)):
                return scored[:k]
            limit = min(limit * 4, 16_384)  # Milvus' cap on a search's limit

    def _hit_chunks(self, variant: str, hits: list) -> dict[int, RetrievedChunk]:
        """The base chunks of search hits (a variant's hits carry the prefixed text: the chunk's own is read)."""
        out = {}
        for h in hits:
            e = h.get("entity", {})
            self._remember(variant, _hid(h), e.get("dense"))
            if variant == "base":
                out[_hid(h)] = self._chunk({"chunk_id": _hid(h), **e})
        if variant != "base":
            out = self.get_chunks([_hid(h) for h in hits])
        return out

    def search_vectors(self, vector: np.ndarray, k: int = 30, doc_ids: Sequence[str] | None = None,
                       variant: str = "base", max_distance: float | None = None) -> list[RetrievedChunk]:
        """Inner product over the unit `dense` vectors; `vector_distance` is sqrt(2 - 2 cos) as in the embedded store."""
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        variant = _variant(variant)
        self._check_variant(variant)
        q = np.asarray(vector, dtype=np.float32).reshape(-1).tolist()
        hits = self._search(variant, [q], "dense", k, doc_ids, ["dense"])
        chunks = self._hit_chunks(variant, hits)
        out = []
        for rank, h in enumerate(hits, 1):
            cid, sim = _hid(h), float(h["distance"])
            dist = float(np.sqrt(max(0.0, 2.0 - 2.0 * sim)))
            if (max_distance is not None and dist > max_distance) or cid not in chunks:
                continue
            out.append(chunks[cid].model_copy(update={"score": sim, "vector_rank": rank, "vector_distance": dist}))
        return out

    def _remember(self, variant: str, cid: int, vec) -> None:
        if vec is None:
            return
        with self._lock:
            self._vec_cache[(variant, cid)] = np.asarray(vec, dtype=np.float32)
            while len(self._vec_cache) > 20_000:
                self._vec_cache.popitem(last=False)

    def vector(self, chunk_id: int, variant: str = "base") -> np.ndarray:
        """A chunk's stored vector (the reranker's cosine), from the search results' cache or one query."""
        with self._lock:
            v = self._vec_cache.get((variant, int(chunk_id)))
        if v is None:
            rows = self._query(S.chunk_collection(self.location, variant), f"chunk_id == {int(chunk_id)}", ["dense"],
                               limit=1)
            if not rows:
                raise KeyError(chunk_id)
            v = np.asarray(rows[0]["dense"], dtype=np.float32)
            self._remember(variant, int(chunk_id), v)
        return v

    def faiss_index(self, variant: str = "base") -> "_VectorView":
        variant = _variant(variant)
        self._check_variant(variant)
        return _VectorView(self, variant)

    def build_faiss(self, variant: str = "base") -> "_VectorView":
        return self.faiss_index(variant)  # Milvus keeps its own indexes up to date

    def faiss_is_current(self, variant: str = "base") -> bool:
        return True

    def vector_coverage(self, doc_ids: Sequence[str] | None = None) -> tuple[list[str], int]:
        """Every chunk in Milvus carries its vector (written together), so nothing is ever missing."""
        n = len(list(dict.fromkeys(doc_ids))) if doc_ids is not None else self.count_documents()
        return [], n

    def embed_missing(self, doc_ids: Sequence[str], embedder=None) -> list[str]:
        return []

    # ----------------------------------------------------------------- variants
    def variant_status(self, variant: str) -> tuple[int, int]:
        total = self._count(S.chunk_collection(self.location, "base"))
        if variant == "base":
            return total, total
        return self._count(S.chunk_collection(self.location, _variant(variant))), total

    def _check_variant(self, variant: str) -> None:
        if variant == "base":
            return
        stamp = (variant, self.generation)
        if getattr(self, "_variant_ok", None) == stamp:
            return
        have, total = self.variant_status(variant)
        if have < total:
            raise VariantMissing(f"index variant {variant!r} covers {have} of {total} chunks in {self.location}; "
                                 "build it in an embedded index and `finrag copy` it")
        self._variant_ok = stamp

    def prefix_of(self, variant: str, chunk_id: int) -> str | None:
        rows = self._query(S.chunk_collection(self.location, _variant(variant)), f"chunk_id == {int(chunk_id)}",
                           ["prefix"], limit=1)
        return rows[0]["prefix"] if rows else None

    # -------------------------------------------------------------------- stats
    def stats(self) -> dict:
        rows = self.document_rows()
        chunks = self._count(S.chunk_collection(self.location, "base"))
        variants = {v: self._count(S.chunk_collection(self.location, v)) for v in S.VARIANT_NAMES}
        size = None
        if self.location.lite:
            from pathlib import Path

            p = Path(self.location.uri)
            size = sum(f.stat().st_size for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file())
        return {"index_dir": str(self.location), "backend": "milvus", "documents": len(rows),
                "pages": sum(int(r["n_pages"]) for r in rows), "chars": sum(int(r["n_chars"]) for r in rows),
                "chunks": chunks, "embedder": self.get_meta("embedder"), "embedding_dim": self.get_meta("embedding_dim"),
                "chunk_size": self.get_meta("chunk_size"), "chunk_overlap": self.get_meta("chunk_overlap"),
                "variants": variants, "size_bytes": size, "generation": self.generation,
                "documents_without_vectors": 0, "vector_index": "milvus", "ann": None, "bm25": self.bm25}

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:
            pass


class _VectorView:
    """What the offline reranker reads of a variant's chunk vectors (`finrag.state.index_reader.VectorView`):
    `reconstruct(chunk_id)`, `reconstruct_many` and `ntotal`."""

    def __init__(self, store: MilvusStore, variant: str):
        self.store, self.variant = store, variant

    @property
    def ntotal(self) -> int:
        return self.store.variant_status(self.variant)[0]

    def reconstruct(self, chunk_id: int) -> np.ndarray:
        return self.store.vector(int(chunk_id), self.variant)

    def reconstruct_many(self, chunk_ids) -> np.ndarray:
        """The vectors of many chunks (zero rows for chunks without one), as the embedded `IdView` gives them."""
        rows: list[np.ndarray | None] = []
        for cid in chunk_ids:
            try:
                rows.append(self.store.vector(int(cid), self.variant))
            except KeyError:
                rows.append(None)
        dim = next((len(r) for r in rows if r is not None), 0) or int(self.store.get_meta("embedding_dim", "0") or 0)
        return np.stack([r if r is not None else np.zeros(dim, dtype=np.float32) for r in rows]) if rows \
            else np.zeros((0, dim), dtype=np.float32)
