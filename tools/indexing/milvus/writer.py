"""Writing a finrag index into Milvus, and `finrag copy SRC DST` between the two backends.

A copy moves stored data only (no embedding): documents, pages, chunks, segment embeddings, the
chunk vectors of every variant and the variants' prefixes, an inline-XBRL filing's tagged facts. It works document by document, and a
document's `documents` row is written last (Milvus) / in one transaction (embedded): an interrupted
copy leaves whole documents behind, and the same command resumes it, skipping documents whose content
hash already matches and rewriting any partial one. Documents in DST that SRC does not have are removed,
so DST ends equal to SRC.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from finrag.state.schema import DocumentInfo
from finrag.tools.indexing import chunk_text
from finrag.tools.indexing.backend import open_store
from finrag.tools.indexing.locking import writer_lock
from finrag.tools.indexing.milvus import lex as L
from finrag.tools.indexing.milvus import schema as S
from finrag.tools.indexing.milvus.schema import is_milvus
from finrag.tools.indexing.milvus.store import MilvusStore
from finrag.tools.indexing.store import Store
from finrag.tools.indexing.store_schema import SCHEMA_VERSION, EmbedderMismatch, IndexError_

if TYPE_CHECKING:
    from finrag.state.settings import MilvusSettings
    from finrag.tools.indexing.store import Store

BATCH = 500
META_SKIP = {"copy_pending", "generation", "schema_version", "milvus_schema_version", "info_generation", "prefix_generation",
             "vectors_generation"}


@dataclass
class CopyReport:
    copied: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    chunks: int = 0
    seconds: float = 0.0
    interrupted: bool = False

    def line(self) -> str:
        return (f"copied {len(self.copied)} document(s), {self.chunks:,} chunks; unchanged {len(self.unchanged)}; "
                f"removed {len(self.removed)}; skipped {len(self.skipped)}; {self.seconds:.1f}s")


# ------------------------------------------------------------------ reading a source, either backend
class _EmbeddedSource:
    """A document's stored rows from the embedded Store (read only: nothing is written to the source)."""

    def __init__(self, store: Store):
        self.store = store
        self.conn = store.read_connection()

    def meta(self) -> dict:
        return {r[0]: r[1] for r in self.conn.execute("SELECT key, value FROM meta")}

    def documents(self) -> list[dict]:
        rows = self.conn.execute("SELECT doc_id, path, content_hash, n_pages, n_chars, info_json FROM documents "
                                 "ORDER BY doc_id").fetchall()
        return [dict(r) for r in rows]

    def pages(self, doc_id: str) -> list[str]:
        return self.store.pages_of(doc_id)

    def facts(self, doc_id: str) -> dict | None:
        return self.store.facts_of(doc_id)

    def segments(self, doc_id: str) -> np.ndarray:
        rows = self.conn.execute("SELECT vec FROM segments WHERE doc_id=? ORDER BY ord", (doc_id,)).fetchall()
        return np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows]) if rows else np.zeros((0, 0))

    def chunks(self, doc_id: str) -> list[dict]:
        return chunk_text.read_rows(self.conn, "doc_id=? ORDER BY chunk_id", (doc_id,))

    def vectors(self, doc_id: str, variant: str, ids: np.ndarray) -> np.ndarray:
        """The chunk vectors of a variant: from the vector file when its rows are recorded, else derived."""
        return self.store.chunk_vectors(doc_id, variant, ids)

    def prefixes(self, doc_id: str, variant: str) -> dict[int, tuple[str, np.ndarray | None]]:
        rows = self.conn.execute("SELECT p.chunk_id, p.prefix, p.vec FROM chunk_prefix p JOIN chunks c ON "
                                 "c.chunk_id = p.chunk_id WHERE p.variant=? AND c.doc_id=?", (variant, doc_id))
        return {int(r[0]): (r[1], None if r[2] is None else np.frombuffer(r[2], dtype=np.float32)) for r in rows}


class _MilvusSource:
    def __init__(self, store: MilvusStore):
        self.store = store

    def meta(self) -> dict:
        return self.store.meta()

    def documents(self) -> list[dict]:
        return self.store.document_rows()

    def pages(self, doc_id: str) -> list[str]:
        return self.store.pages_of(doc_id)

    def facts(self, doc_id: str) -> dict | None:
        return self.store.facts_of(doc_id)

    def segments(self, doc_id: str) -> np.ndarray:
        return self.store.segments_of(doc_id)

    def chunks(self, doc_id: str) -> list[dict]:
        return self.store.chunk_rows(doc_id)

    def prefixes(self, doc_id: str, variant: str, segments: np.ndarray | None = None
                 ) -> dict[int, tuple[str, np.ndarray | None]]:
        """chunk_id -> (prefix, prefix vector). A prefix vector the source never stored (the embedded backend
        keeps V-A's as NULL and derives them on demand) is recovered from the stored variant vector and the
        segments: u = normalize(S + p) with S the sum of the chunk's segments and |p| = 1 gives
        p = t*u - S, t = u.S + sqrt((u.S)^2 - |S|^2 + 1)."""
        out = {}
        for r in self.store.chunk_rows(doc_id, variant, vectors=True):
            vec: np.ndarray | None
            vec = np.asarray(r["prefix_vec"], dtype=np.float32)
            if not vec.any() and segments is not None and len(segments):
                vec = _recover_prefix(np.asarray(r["dense"], dtype=np.float64),
                                      segments[int(r["seg_first"]): int(r["seg_first"]) + max(int(r["seg_count"]), 1)])
            out[int(r["chunk_id"])] = (r["prefix"], vec if vec is not None and vec.any() else None)
        return out


def _recover_prefix(u: np.ndarray, segs: np.ndarray) -> np.ndarray | None:
    total = segs.astype(np.float64).sum(axis=0)
    us = float(u @ total)
    disc = us * us - float(total @ total) + 1.0
    if disc < 0:
        return None
    pv = (us + np.sqrt(disc)) * u - total
    return pv.astype(np.float32)


# ------------------------------------------------------------------------- writing into Milvus
def _batched(client, name: str, rows: list[dict]) -> None:
    for i in range(0, len(rows), BATCH):
        client.insert(name, rows[i:i + BATCH])


def delete_document(store: MilvusStore, doc_id: str) -> None:
    """Remove a document's rows from every collection (its `documents` row first: it marks a whole document)."""
    flt = f"doc_id == {json.dumps(doc_id)}"
    for name in [store.location.name("documents"), store.location.name("pages"), store.location.name("segments")] + \
            [S.chunk_collection(store.location, v) for v in ("base", *S.VARIANT_NAMES)] + \
            ([store.location.name(S.FACTS)] if store.has_facts else []):
        store.client.delete(name, filter=flt)


def write_facts(store: MilvusStore, doc_id: str, content_hash: str, facts: dict | None) -> None:
    """A filing's inline-XBRL facts as parts of `<p>_xbrl_facts` (none for a filing without them)."""
    if not facts or not store.has_facts:
        return
    text = json.dumps(facts, separators=(",", ":"))
    parts = [text[i:i + S.PAGE_PART] for i in range(0, len(text), S.PAGE_PART)]
    _batched(store.client, store.location.name(S.FACTS),
             [{"id": f"{doc_id}:{j}", "doc_id": doc_id, "content_hash": content_hash, "part": j, "text": t,
               "v": [0.0] * S.DUMMY_DIM} for j, t in enumerate(parts)])


class LexStats:
    """BM25 statistics being written (bm25=finrag): per variant N, tokens and df, current or as deltas."""

    def __init__(self):
        self.rows: dict[str, int] = {}
        self.tokens: dict[str, int] = {}
        self.df: dict[str, Counter] = {}

    def add(self, variant: str, tfs: list[Counter], sign: int = 1) -> None:
        self.rows[variant] = self.rows.get(variant, 0) + sign * len(tfs)
        self.tokens[variant] = self.tokens.get(variant, 0) + sign * sum(sum(tf.values()) for tf in tfs)
        df = self.df.setdefault(variant, Counter())
        for tf in tfs:
            for t in tf:
                df[t] += sign


def _variant_texts(chunks: list[dict], variant: str, prefixes: dict) -> list[str]:
    if variant == "base":
        return [c["text"] for c in chunks]
    pre = prefixes[variant]
    return [f"{pre[int(c['chunk_id'])][0]}\n{c['text']}" for c in chunks]


def write_document(store: MilvusStore, doc: dict, pages: list[str], segments: np.ndarray, chunks: list[dict],
                   vectors: dict[str, np.ndarray], prefixes: dict[str, dict],
                   avgdl=None, facts: dict | None = None) -> dict[str, list[Counter]]:
    """Write one document's rows; the `documents` row goes last, so a document without it is incomplete.

    bm25=finrag: `avgdl(variant, tfs)` gives the avgdl its BM25 weights use; returns each variant's term
    frequencies per chunk (for the statistics)."""
    loc, client = store.location, store.client
    doc_id = doc["doc_id"]
    zero2 = [0.0] * S.DUMMY_DIM
    finrag_bm25 = store.bm25 == "finrag"
    page_rows = []
    for no, text in enumerate(pages):
        parts = [text[i:i + S.PAGE_PART] for i in range(0, len(text), S.PAGE_PART)] or [""]
        page_rows += [{"id": f"{doc_id}:{no}:{j}", "doc_id": doc_id, "page_no": no, "part": j, "text": t, "v": zero2}
                      for j, t in enumerate(parts)]
    _batched(client, loc.name("pages"), page_rows)
    write_facts(store, doc_id, doc["content_hash"], facts)
    if len(segments):
        _batched(client, loc.name("segments"), [{"id": f"{doc_id}:{i}", "doc_id": doc_id, "ord": i,
                                                  "vec": v.tolist()} for i, v in enumerate(segments)])
    ints = ("chunk_id", "ord", "page_start", "page_end", "char_start", "char_end", "seg_first", "seg_count")
    terms: dict[str, list[Counter]] = {}
    used: dict[str, float] = {}
    for variant, vecs in vectors.items():
        rows = []
        pre = prefixes.get(variant, {})
        texts = _variant_texts(chunks, variant, prefixes)
        if finrag_bm25:
            tfs = terms[variant] = L.chunk_terms(texts)
            used[variant] = a = float(avgdl(variant, tfs))
        for i, (c, v) in enumerate(zip(chunks, vecs)):
            row = {k: int(c[k]) for k in ints} | {"doc_id": doc_id, "text": texts[i], "dense": v.tolist()}
            if variant != "base":
                prefix, pvec = pre[int(c["chunk_id"])]
                row["prefix"] = prefix
                row["prefix_vec"] = (np.zeros(len(v), np.float32) if pvec is None else pvec).tolist()
            if finrag_bm25:
                row["sparse"] = L.weights(tfs[i], a)
            rows.append(row)
        _batched(client, S.chunk_collection(loc, variant), rows)
    client.insert(loc.name("documents"), [{k: doc[k] for k in ("doc_id", "path", "content_hash", "info_json")} |
                                          {"n_pages": int(doc["n_pages"] or 0), "n_chars": int(doc["n_chars"] or 0),
                                           "lex_json": json.dumps({"avgdl": used}), "v": zero2}])
    return terms


def doc_terms(store: MilvusStore, doc_id: str) -> dict[str, list[Counter]]:
    """The term frequencies of a stored document's chunks, per variant (to take it out of the statistics)."""
    return {v: L.chunk_terms([r["text"] for r in store.chunk_rows(doc_id, v)]) for v in ("base", *S.VARIANT_NAMES)}


def flush_lex(store: MilvusStore, stats: LexStats, absolute: bool = False) -> None:
    """Write statistics into Milvus: `absolute` replaces N / tokens / df with `stats`, else adds them."""
    name = store.location.name("lex_terms")
    zero2 = [0.0] * S.DUMMY_DIM
    store.set_meta("lex_state", "writing")  # until the end: a full copy rewrites statistics left half-written
    for variant in sorted(set(stats.rows) | set(stats.df)):
        n0, t0 = (0, 0) if absolute else store.lex_stats(variant)
        store.set_meta(f"lex_rows_{variant}", max(n0 + stats.rows.get(variant, 0), 0))
        store.set_meta(f"lex_tokens_{variant}", max(t0 + stats.tokens.get(variant, 0), 0))
        df = {t: d for t, d in stats.df.get(variant, {}).items() if len(L.term_id(variant, t)) <= L.TERM_MAX}
        terms = sorted(t for t, d in df.items() if d or absolute)
        old = store.lex_df(variant, terms) if terms else {}
        rows = []
        for t in terms:
            new = df[t] if absolute else old.get(t, 0) + df[t]
            if absolute and new == old.get(t, 0):
                continue
            rows.append({"id": L.term_id(variant, t), "df": max(int(new), 0), "v": zero2})
        for i in range(0, len(rows), 5000):
            store.client.upsert(name, rows[i:i + 5000])
    store.forget_lex_df()
    store.set_meta("lex_state", "ok")


def _lex_target(src: _EmbeddedSource) -> LexStats:
    """The source's BM25 statistics (a full copy ends equal to the source)."""
    target = LexStats()
    for v in ("base", *S.VARIANT_NAMES):
        got = L.source_stats(src.store, v)
        if got is not None:
            target.rows[v], target.tokens[v], target.df[v] = got[0], got[1], Counter(got[2])
    return target


def _drifted(lex_json: str | None, avg: dict[str, float], limit: float) -> bool:
    """Whether a document's BM25 weights were computed with an avgdl off by more than the allowed drift."""
    try:
        used = json.loads(lex_json or "{}").get("avgdl", {})
    except ValueError:
        return True
    return not used or any(v in avg and abs(a / avg[v] - 1.0) > limit for v, a in used.items())


def _to_milvus(src: _EmbeddedSource, dst: MilvusStore, rep: CopyReport, bar, remove_extra: bool = True,
               remove_ids: tuple = ()) -> None:
    src_meta = src.meta()
    for k, v in src_meta.items():
        if k not in META_SKIP:
            dst.set_meta(k, v)
    rows = {r["doc_id"]: r for r in dst.document_rows()}
    have = {d: (r["content_hash"], r["path"]) for d, r in rows.items()}
    docs = src.documents()
    wanted = {d["doc_id"] for d in docs}
    changed = False
    finrag_bm25 = dst.bm25 == "finrag"
    delta = LexStats()  # incremental: what this run adds to (and takes from) the statistics
    target = _lex_target(src) if finrag_bm25 and remove_extra else None  # full copy: the final statistics
    avg = {v: target.tokens[v] / target.rows[v] for v in target.rows if target.rows[v]} if target else {}
    drift = L.drift_limit(dst.location.settings)

    def avgdl(variant: str, tfs: list[Counter]) -> float:
        if variant in avg:
            return avg[variant]
        n, t = dst.lex_stats(variant)  # incremental: the statistics with this document included
        n += delta.rows.get(variant, 0) + len(tfs)
        t += delta.tokens.get(variant, 0) + sum(sum(tf.values()) for tf in tfs)
        return t / n if n > 0 and t > 0 else 1.0

    def take_out(doc_id: str) -> None:
        if finrag_bm25 and target is None:
            for v, tfs in doc_terms(dst, doc_id).items():
                delta.add(v, tfs, -1)

    pending = dst.get_meta("copy_pending") or ""
    try:
        if pending and pending not in have:  # a document an interrupted copy had begun: its rows go first
            delete_document(dst, pending)
        for doc in docs:
            doc_id = doc["doc_id"]
            if have.get(doc_id, (None,))[0] == doc["content_hash"] and not (
                    avg and _drifted(rows[doc_id].get("lex_json"), avg, drift)):
                if dst.has_facts and dst.xbrl_facts(doc_id) is None:  # copied before the facts were carried
                    write_facts(dst, doc_id, doc["content_hash"], src.facts(doc_id))
                rep.unchanged.append(doc_id)
                bar.update(1)
                continue
            chunks = src.chunks(doc_id)
            segs = src.segments(doc_id)
            if not len(segs) and chunks:
                rep.skipped.append((doc_id, "no vectors yet (run `finrag index --embed` on the source first)"))
                bar.update(1)
                continue
            ids = np.array([c["chunk_id"] for c in chunks], dtype=np.int64)
            vectors = {"base": src.vectors(doc_id, "base", ids)}
            prefixes = {}
            for v in S.VARIANT_NAMES:
                pre = src.prefixes(doc_id, v)
                if chunks and len(pre) == len(chunks):
                    prefixes[v] = pre
                    vectors[v] = src.vectors(doc_id, v, ids)
            if doc_id in have:  # an older version (deleting by filter scans the collection: only when needed)
                take_out(doc_id)
                delete_document(dst, doc_id)
            dst.set_meta("copy_pending", doc_id)
            terms = write_document(dst, doc, src.pages(doc_id), segs, chunks, vectors, prefixes, avgdl,
                                   facts=src.facts(doc_id))
            dst.set_meta("copy_pending", "")
            for v, tfs in terms.items():
                delta.add(v, tfs)
            rep.copied.append(doc_id)
            rep.chunks += len(chunks)
            changed = True
            bar.update(1)
        extra = (set(have) - wanted) if remove_extra else (set(remove_ids) & set(have)) - wanted
        for doc_id in sorted(extra):
            take_out(doc_id)
            delete_document(dst, doc_id)
            rep.removed.append(doc_id)
            changed = True
    finally:
        if finrag_bm25 and target is not None and (changed or dst.get_meta("lex_state") != "ok"):
            flush_lex(dst, target, absolute=True)
            changed = True
        elif finrag_bm25 and target is None and (delta.rows or delta.df):
            flush_lex(dst, delta)
        if changed:
            dst.set_meta("generation", dst.generation + 1)


# ------------------------------------------------------------------------ writing into embedded
def _to_embedded(src: _MilvusSource, dst: Store, rep: CopyReport, bar) -> None:
    for k, v in src.meta().items():
        if k in META_SKIP or k == "bm25" or k.startswith("lex_"):  # the Milvus backend's own
            continue
        if k not in ("embedder", "embedding_dim") or dst.get_meta(k) is None:
            dst.set_meta(k, v)
    if dst.get_meta("embedder") != src.meta().get("embedder"):

        raise EmbedderMismatch(f"{dst.index_dir} uses embedder {dst.get_meta('embedder')!r}, the source "
                               f"{src.meta().get('embedder')!r}; copy into a new directory")
    if dst.get_meta("schema_version") is None:

        dst.set_meta("schema_version", SCHEMA_VERSION)
    have = dst.document_hashes()
    docs = src.documents()
    for doc in docs:
        doc_id = doc["doc_id"]
        if have.get(doc_id, (None,))[0] == doc["content_hash"]:
            rep.unchanged.append(doc_id)
            bar.update(1)
            continue
        chunks = src.chunks(doc_id)
        chunks.sort(key=lambda c: int(c["ord"]))
        segs = src.segments(doc_id)
        info = DocumentInfo.model_validate_json(doc["info_json"])
        dst.replace_document(info, doc["content_hash"], src.pages(doc_id),
                             [SimpleNamespace(**c) for c in chunks], segs if len(segs) else None,
                             [(int(c["seg_first"]), int(c["seg_count"])) for c in chunks])
        facts = src.facts(doc_id)
        if facts:
            dst.save_facts(doc_id, doc["content_hash"], facts)
        new_ids = [c.chunk_id for c in dst.chunks_of(doc_id)]  # ordered by ord, as `chunks`
        for v in S.VARIANT_NAMES:
            pre = src.prefixes(doc_id, v, segs)
            if pre and len(pre) == len(chunks):
                dst.add_prefixes(v, [(nid, *pre[int(c["chunk_id"])]) for nid, c in zip(new_ids, chunks)])
        rep.copied.append(doc_id)
        rep.chunks += len(chunks)
        bar.update(1)
    for doc_id in sorted(set(have) - {d["doc_id"] for d in docs}):
        if dst.remove_document(doc_id):
            rep.removed.append(doc_id)


def copy_index(src_location, dst_location, progress: bool = True, remove_extra: bool = True,
               remove_ids: tuple = (), settings: MilvusSettings | None = None) -> CopyReport:
    """Copy the index at `src_location` into `dst_location` (a directory or a `milvus:` location).

    `remove_extra=False` (`finrag index` into Milvus through its staging index): documents of DST that
    SRC lacks stay, except `remove_ids` (the ones `--remove` named). `settings`: the Milvus side's (None: the
    environment's, read once where the location is parsed)."""
    from tqdm import tqdm


    if str(src_location) == str(dst_location):
        raise IndexError_("finrag copy: SRC and DST are the same index")
    if is_milvus(src_location) == is_milvus(dst_location):
        raise IndexError_("finrag copy copies between backends: one of SRC and DST must be a milvus: location")
    rep = CopyReport()
    t0 = time.perf_counter()
    src = open_store(src_location, milvus_settings=settings)
    dst: MilvusStore | Store
    try:
        if is_milvus(dst_location):
            dim = int(src.get_meta("embedding_dim", "0") or 0)
            dst = MilvusStore(str(dst_location), create=True, dim=dim, settings=settings)
            if dst.get_meta("embedder") not in (None, src.get_meta("embedder")):

                raise EmbedderMismatch(f"{dst_location} holds an index of embedder {dst.get_meta('embedder')!r}, "
                                       f"the source {src.get_meta('embedder')!r}")
            source = _EmbeddedSource(src)
            with tqdm(total=src.count_documents(), unit="doc", desc="copy", disable=not progress) as bar:
                try:
                    _to_milvus(source, dst, rep, bar, remove_extra, tuple(remove_ids))
                finally:
                    dst.close()
        else:

            with writer_lock(dst_location):
                dst = Store(dst_location, create=True)
                try:
                    with tqdm(total=src.count_documents(), unit="doc", desc="copy", disable=not progress) as bar:
                        _to_embedded(_MilvusSource(src), dst, rep, bar)
                    if rep.copied or rep.removed:
                        dst.build_faiss("base")
                        for v in S.VARIANT_NAMES:
                            have, total = dst.variant_status(v)
                            if have and have == total:
                                dst.build_faiss(v)
                finally:
                    dst.close()
    except KeyboardInterrupt:
        rep.interrupted = True
    finally:
        src.close()
        rep.seconds = time.perf_counter() - t0
    return rep
