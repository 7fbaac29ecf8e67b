"""Retrieval cost as the corpus grows: 1x, 10x, 100x copies of a real index.

    python -m bench.scale --source .finrag-fb --work /tmp/finrag-scale --sizes 1 10 100 --warm-pass \
        --questions ../shared/data/financebench/questions_dev.jsonl --out docs/results/bench_scale.json

For each size m it builds (once; `--rebuild` to redo) an index with m copies of every filing of
`--source`: copy j > 0 of a filing gets a new document id and a synthetic company (so routing still
finds the real filing), the same chunk texts under new chunk ids, its BM25 postings (the same
records under the new first chunk id; corpus statistics scaled; then the BM25 runs a finished
`finrag index` leaves, `write_runs`, also for a copy built before runs existed), and perturbed vectors (each chunk
vector plus Gaussian noise, renormalised: cosine about 0.9 to the original) written straight into
the vector file. Copies have no page texts and no segment embeddings (nothing here needs them),
FTS5 rows only up to `--fts5-up-to` (FTS5 is not on the measured paths: BM25 reads the postings),
and chunk texts only up to `--text-up-to` (beyond, copies' chunk texts are empty so that 100x fits the
disk; HDRR never reads a copy, CBR's reranker then reads empty texts for copies among its candidates,
so the corpus-dependent part of CBR is its `fts_search` and `vector_search` nodes, reported per node).

Then, in a fresh process per size, it answers the questions with HDRR and CBR and reports per size:
retrieval latency p50/p95 (the graph's wall time minus the generator's, one question at a time),
the vector search used by CBR (exact below `AUTO_ANN_ROWS` chunks, else the approximate index),
recall@30 of the approximate index against exact search for the questions' query vectors, the
index's size on disk, and the measuring process's peak RSS while answering (the recall check, which
reads every vector, comes after). The machine's load average is recorded with every size: timings on
a shared machine are only comparable at similar load.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

MIN_FREE_BYTES = 8e9  # stop building rather than fill the disk (the most kept free; see `_reserve`)
DEFAULT_QUESTIONS = Path(__file__).resolve().parents[2] / "shared/data/financebench/questions_dev.jsonl"
NOISE = 0.025  # per-dimension std of the perturbation: cos(v, v') ~ 1/sqrt(1 + dims * NOISE^2) ~ 0.9 (384 dims; 0.93 at 256)


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _reserve(src: Path) -> float:
    """Free bytes the build keeps on the disk: four times the source index (each copy adds less than one source),
    at least 200 MB and at most MIN_FREE_BYTES, so a small index builds on a nearly full disk and a large one stops
    well before the disk fills."""
    return min(MIN_FREE_BYTES, max(2e8, 4.0 * _du(src)))


def _copy_index(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(f"file:{src / 'finrag.sqlite'}?mode=ro", uri=True) as a, \
            sqlite3.connect(dst / "finrag.sqlite") as b:
        a.backup(b)
    for f in src.iterdir():  # derived files are rebuilt; the stored registry is reused when current
        if f.name.startswith("registry"):
            shutil.copy(f, dst / f.name)


def build(src: Path, dst: Path, m: int, fts5_up_to: int, text_up_to: int = 10, log=print, vectors: bool = True) -> None:
    """An index with m copies of every document of `src` (see the module docstring); `vectors=False`: no vectors
    and no approximate index (what BM25 alone reads: `bench/bm25_scale.py`, also from a source still embedding)."""
    from finrag.state.schema import DocumentInfo
    from finrag.tools.indexing import chunk_text, lexical
    from finrag.tools.indexing.embedders import get_embedder, resolve_spec
    from finrag.tools.indexing.store import Store

    t0 = time.time()
    reserve = _reserve(src)
    _copy_index(src, dst)
    store = Store(dst)
    store.check_embedder(get_embedder(resolve_spec("auto", store.get_meta("embedder"))))  # the source's own
    store.ensure_lexical(log=log)
    if vectors:
        store.sync_vectors("base")  # the originals' rows, from their stored segments
    if m > 1:
        conn = store.conn
        # a bulk load into a copy: a large page cache (the postings B-tree grows by random inserts), no fsync
        conn.execute("PRAGMA cache_size = -3000000")
        conn.execute("PRAGMA synchronous = OFF")
        if m > fts5_up_to:
            conn.execute("DROP TRIGGER IF EXISTS chunks_ai")
        # in chunk-id order, so that every copy of an earlier filing gets lower chunk ids (see the postings below)
        docs = conn.execute("SELECT d.doc_id, d.info_json FROM documents d JOIN lex_docs l ON l.doc_id = d.doc_id "
                            "ORDER BY l.lo").fetchall()
        copy_los: dict[int, list[int]] = {}
        vf = store.vector_file("base") if vectors else None
        fid = store._current_file("base") if vectors else None
        rng = np.random.default_rng(14)
        df_add: dict[str, int] = {}
        rows0, tokens0 = conn.execute("SELECT rows, tokens FROM lex_stats").fetchone()
        serial = 0
        for doc_id, info_json in docs:
            info = DocumentInfo.model_validate_json(info_json)
            read = chunk_text.read_rows(conn, "doc_id=? ORDER BY chunk_id", (doc_id,), store.text_in_rows)
            chunks = [(r["chunk_id"], r["ord"], r["page_start"], r["page_end"], r["char_start"], r["char_end"],
                       r["seg_first"], r["seg_count"], r["text"]) for r in read]
            offs = [] if store.text_in_rows else [r[0] for r in conn.execute(
                "SELECT page_off FROM chunks WHERE doc_id=? ORDER BY chunk_id", (doc_id,))]
            pages = conn.execute("SELECT page_no, text FROM pages WHERE doc_id=?", (doc_id,)).fetchall()
            n_pages = len(pages) if not store.text_in_rows and m <= text_up_to else 0
            lo0 = chunks[0][0]
            post = conn.execute("SELECT term, post FROM lex_post WHERE lo=?", (lo0,)).fetchall()
            for term, blob in post:
                df_add[term] = df_add.get(term, 0) + (m - 1) * (len(blob) // lexical.POST_DTYPE.itemsize)
            vecs = vf.gather(np.array([c[0] for c in chunks], dtype=np.int64)) if vf is not None else None
            if shutil.disk_usage(dst).free < reserve:
                raise SystemExit(f"stopped building x{m}: less than {reserve / 1e9:.1f} GB free on {dst}")
            conn.execute("BEGIN")
            copies = []
            for j in range(1, m):
                serial += 1
                new_id = f"{doc_id}~{j}"
                fake = info.model_copy(update={
                    "doc_id": new_id, "path": f"synthetic/{new_id}.pdf", "company": f"Synthetic Company {serial:06d}",
                    "company_key": f"SYNTHETIC{serial:06d}", "registrant": f"Synthetic Company {serial:06d}",
                    "tickers": [f"SYN{serial:06d}"], "aliases": [], "alias_ids": [], "alias_paths": []})
                conn.execute("INSERT INTO documents(doc_id, path, content_hash, n_pages, n_chars, info_json, indexed_at) "
                             "VALUES (?,?,?,?,?,?,?)", (new_id, fake.path, f"synthetic-{serial}", n_pages, 0,
                                                        fake.model_dump_json(), time.time()))
                cols = "doc_id, ord, page_start, page_end, char_start, char_end, seg_first, seg_count"
                if store.text_in_rows:
                    conn.executemany(f"INSERT INTO chunks({cols}, text) VALUES (?,?,?,?,?,?,?,?,?)",
                                     [(new_id, *c[1:-1], c[-1] if m <= text_up_to else "") for c in chunks])
                else:  # spans: the copy's text is its pages' (none past text_up_to: empty texts, as above)
                    conn.executemany(f"INSERT INTO chunks({cols}, page_off) VALUES (?,?,?,?,?,?,?,?,?)",
                                     [(new_id, *c[1:-1], off) for c, off in zip(chunks, offs)])
                    if m <= text_up_to:
                        conn.executemany("INSERT INTO pages(doc_id, page_no, text) VALUES (?,?,?)",
                                         [(new_id, no, t) for no, t in pages])
                lo = conn.execute("SELECT MIN(chunk_id) FROM chunks WHERE doc_id=?", (new_id,)).fetchone()[0]
                if not store.text_in_rows and m <= fts5_up_to:  # what the older layout's trigger writes
                    chunk_text.fts_add(conn, "base", [(lo + i, c[-1] if m <= text_up_to else "")
                                                      for i, c in enumerate(chunks)])
                conn.execute("INSERT INTO lex_docs(lo, doc_id, n) VALUES (?,?,?)", (lo, new_id, len(chunks)))
                copies.append((new_id, int(lo)))
            copy_los[int(lo0)] = [lo for _, lo in copies]
            conn.commit()
            n = len(chunks)
            if vf is None:
                log(f"  x{m}: {doc_id} copied {m - 1} times ({time.time() - t0:.0f}s)")
                continue
            ids = np.concatenate([np.arange(lo, lo + n, dtype=np.int64) for _, lo in copies])
            noisy = np.tile(vecs, (len(copies), 1))
            noisy += rng.normal(scale=NOISE, size=noisy.shape).astype(np.float32)
            noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
            vf.write(ids, noisy)
            conn.executemany("INSERT OR REPLACE INTO vec_rows(variant, doc_id, lo, hi, file) VALUES ('base',?,?,?,?)",
                             [(new_id, lo, lo + n - 1, fid) for new_id, lo in copies])
            conn.commit()
            log(f"  x{m}: {doc_id} copied {m - 1} times ({time.time() - t0:.0f}s)")
        _copy_postings(conn, copy_los, log)
        conn.execute("BEGIN")
        conn.executemany("UPDATE lex_df SET df = df + ? WHERE term = ?", [(d, t) for t, d in df_add.items()])
        conn.execute("UPDATE lex_stats SET rows = ?, tokens = ? WHERE id = 0", (rows0 * m, tokens0 * m))
        store._set_meta("generation", store.generation + 1)
        conn.commit()
    if vectors:
        store.set_meta("vector_index", "auto")
        rec = store.build_ann("base", kind="ivf")
        log(f"  x{m}: approximate index {rec}")
    store.close()
    (dst / "BUILT").write_text(json.dumps({"m": m, "seconds": round(time.time() - t0, 1)}))


def write_runs(index: Path, log=print) -> None:
    """The BM25 runs a finished `finrag index` leaves (lexical_runs.flush), for a copy that has none yet (built before
    runs existed, or just built), or the runs' files for runs written before those existed. One pass over the
    postings; in rollback-journal mode for the duration, so that the new pages (8 bytes per posting: ~7 GB at
    100x) are appended to the file once rather than also to the write-ahead log."""
    from finrag.tools.indexing import lexical, lexical_runs

    conn = sqlite3.connect(str(index / "finrag.sqlite"), timeout=60)
    try:
        lexical.ensure_schema(conn)
        conn.commit()
        pending = conn.execute("SELECT COUNT(*) FROM lex_docs WHERE run IS NULL").fetchone()[0]
        if not pending:
            t = time.time()
            conn.execute("BEGIN IMMEDIATE")
            lexical_runs.flush(conn)  # nothing to write but the files of runs that have none
            conn.commit()
            log(f"  {index.name}: BM25 runs' files checked ({time.time() - t:.0f}s)")
            return
        t = time.time()
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA cache_size=-2000000")
        conn.execute("BEGIN IMMEDIATE")
        n = lexical_runs.rebuild_runs(conn)
        conn.commit()
        conn.execute("PRAGMA journal_mode=WAL")
        log(f"  {index.name}: BM25 runs written for {n:,} documents ({time.time() - t:.0f}s)")
    finally:
        conn.close()


def _copy_postings(conn: sqlite3.Connection, copy_los: dict[int, list[int]], log) -> None:
    """The copies' BM25 postings (the original's records under each copy's first chunk id), written into a
    new table in primary-key order (term, then chunk id): appends, not random inserts into a large B-tree.
    Copies of an earlier filing have lower chunk ids, so per term: the originals, then each original's copies."""
    t = time.time()
    orig = conn.execute("SELECT term, lo, post FROM lex_post ORDER BY term, lo").fetchall()

    def rows():
        i = 0
        while i < len(orig):
            j = i
            while j < len(orig) and orig[j][0] == orig[i][0]:
                j += 1
            group = orig[i:j]
            yield from group
            for term, lo, post in group:
                for clo in copy_los.get(lo, ()):
                    yield term, clo, post
            i = j

    conn.execute("BEGIN")
    conn.execute("DROP TABLE IF EXISTS lex_post_new")
    conn.execute("CREATE TABLE lex_post_new(term TEXT, lo INTEGER, post BLOB, PRIMARY KEY(term, lo)) WITHOUT ROWID")
    conn.executemany("INSERT INTO lex_post_new(term, lo, post) VALUES (?,?,?)", rows())
    conn.execute("DROP TABLE lex_post")
    conn.execute("ALTER TABLE lex_post_new RENAME TO lex_post")
    conn.commit()
    log(f"  postings of the copies written ({time.time() - t:.0f}s)")


def _exact_many(vf, qs: np.ndarray, k: int) -> list[np.ndarray]:
    """Exact top-k chunk ids for many queries in one pass over the vector file (the same ranking as
    `VectorFile.exact_search`: inner product, ties by chunk id, zero rows skipped)."""
    mat = vf.matrix()
    best_i = [np.zeros(0, np.int64) for _ in qs]
    best_s = [np.zeros(0, np.float32) for _ in qs]
    for start in range(1, len(mat), 65_536):
        sims = np.asarray(mat[start:start + 65_536]) @ qs.T  # (rows, queries)
        for j in range(len(qs)):
            col = sims[:, j]
            top = np.argpartition(-col, min(k, len(col)) - 1)[:k] if len(col) > k else np.arange(len(col))
            ids = np.concatenate([best_i[j], top + start])
            sc = np.concatenate([best_s[j], col[top]])
            keep = sc != 0.0
            ids, sc = ids[keep], sc[keep]
            order = np.lexsort((ids, -sc))[:k]
            best_i[j], best_s[j] = ids[order], sc[order]
    return best_i


def load_questions(path: Path, n: int) -> list[str]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r["question"] for r in rows][:n]


def measure(index: Path, questions: list[str], systems: list[str], warm_pass: bool = False) -> dict:
    """Latency, recall and memory on one index (run in its own process).

    `warm_pass`: answer every question once, untimed, before the timed pass, so that the index's pages are
    in the OS page cache as on a server that has been answering (finrag's own caches, query vectors and
    BM25 postings, are still emptied before every timed question)."""
    from finrag.api import run_query
    from finrag.state.configuration import Configuration
    from finrag.tools.indexing import lexical, open_index
    from finrag.tools.indexing.vectors import AUTO_ANN_ROWS, Ann, recall_at

    out: dict = {"index": str(index), "load_avg_start": os.getloadavg()[0], "warm_pass": warm_pass}
    warmers = ["What was the revenue of Acme in 2020?", "Total assets of the company in FY2021?"]
    for warm in warmers + (questions if warm_pass else []):
        for system in systems:
            run_query(warm, system=system, index_dir=str(index))
    embedder = open_index.open_index(Configuration(index_dir=str(index))).embedder
    for system in systems:
        lat, parts = [], {}
        for q in questions:
            if hasattr(embedder, "_queries"):  # MiniLM's query cache (the static model has none: a table lookup)
                embedder._queries = type(embedder._queries)()  # no query vector from an earlier run
            lexical.POSTINGS.clear()  # nor decoded postings: every question reads its terms' postings
            t = time.perf_counter()
            res = run_query(q, system=system, index_dir=str(index))
            wall = (time.perf_counter() - t) * 1000.0
            gen = res["timings_ms"].get("generate", 0.0)
            lat.append(wall - gen)
            for k, v in res["timings_ms"].items():
                parts.setdefault(k, []).append(v)
        out[system] = {"p50_ms": round(statistics.median(lat), 2),
                       "p95_ms": round(float(np.percentile(lat, 95)), 2), "n": len(lat),
                       "nodes_p50_ms": {k: round(statistics.median(v), 2) for k, v in parts.items() if k != "total"}}
    rss_serving = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the recall check maps every vector
    store = open_index.open_index(Configuration(index_dir=str(index)))
    stats = store.stats()
    vf = store.vector_file("base")
    ann = Ann.load(vf, vf.file_id())
    qv = [store.embedder.embed_query(q) for q in questions]
    exact = _exact_many(vf, np.stack(qv), 30)
    t = time.perf_counter()
    approx = [ann.search(v, 30)[0] for v in qv] if ann else exact
    ann_ms = (time.perf_counter() - t) * 1000.0 / max(1, len(qv))
    t = time.perf_counter()
    for v in qv[:10]:  # the exact scan reads every vector: 10 timings are enough
        vf.exact_search(v, 30)
    exact_ms = (time.perf_counter() - t) * 1000.0 / max(1, len(qv[:10]))
    out.update({
        "documents": stats["documents"], "chunks": stats["chunks"],
        "vector_search_cbr": "ivf" if stats["chunks"] >= AUTO_ANN_ROWS else "exact",
        "ann": ann.record if ann else None,
        "ann_recall_at_30_questions": round(recall_at(exact, approx, 30), 4),
        "ann_search_ms": round(ann_ms, 2), "exact_search_ms": round(exact_ms, 2),
        "index_bytes": _du(index), "peak_rss_mb": round(rss_serving, 1),
        "peak_rss_with_recall_check_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_avg_end": os.getloadavg()[0],
    })
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, required=False, help="a finished finrag index (it is only read)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/finrag-scale"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100])
    ap.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    ap.add_argument("--n", type=int, default=86, help="questions per system and size")
    ap.add_argument("--systems", nargs="+", default=["hdrr", "cbr"])
    ap.add_argument("--fts5-up-to", type=int, default=10, help="copies get FTS5 rows up to this size")
    ap.add_argument("--text-up-to", type=int, default=10,
                    help="copies keep their chunk text up to this size (beyond, '' to fit the disk: 100x with text "
                         "is ~50 GB; the BM25 postings, vectors and registry entries of the copies are complete)")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--warm-pass", action="store_true",
                    help="answer every question once before timing (index pages in the OS cache, as on a server)")
    ap.add_argument("--build-only", action="store_true", help="build the missing sizes, measure nothing")
    ap.add_argument("--retune", action="store_true",
                    help="tune the approximate index of already built sizes again (vectors.tune), keeping the index")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--measure", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    questions = load_questions(args.questions, args.n)
    if args.measure:
        print(json.dumps(measure(args.measure, questions, args.systems, args.warm_pass)))
        return 0
    if not args.source:
        ap.error("--source is required")
    results = []
    for m in args.sizes:
        dst = args.work / f"x{m}"
        if args.rebuild or not (dst / "BUILT").exists():
            shutil.rmtree(dst, ignore_errors=True)
            print(f"building x{m} in {dst}", file=sys.stderr)
            build(args.source, dst, m, args.fts5_up_to, args.text_up_to, log=lambda s: print(s, file=sys.stderr))
        if args.retune:  # a built copy whose approximate index predates a change of the tuning
            from finrag.tools.indexing.store import Store
            from finrag.tools.indexing.vectors import retune_ann

            store = Store(dst)
            vf = store.vector_file("base")
            print(f"x{m}: retuned {retune_ann(vf, vf.file_id())}", file=sys.stderr)
            store.close()
        write_runs(dst, log=lambda s: print(s, file=sys.stderr))
        if args.build_only:
            continue
        res = measure_in_subprocess(m, [__file__, "--measure", str(dst), "--questions", str(args.questions), "--n",
                                        str(args.n), "--systems", *args.systems,
                                        *(["--warm-pass"] if args.warm_pass else [])])
        if res is None:
            return 1
        results.append(res)
    if args.build_only:
        return 0
    print("| size | documents | chunks | HDRR p50 / p95 ms | CBR p50 / p95 ms | CBR vectors | ANN recall@30 | "
          "index size | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['size']}x | {r['documents']:,} | {r['chunks']:,} | {r['hdrr']['p50_ms']} / {r['hdrr']['p95_ms']} | "
              f"{r['cbr']['p50_ms']} / {r['cbr']['p95_ms']} | {r['vector_search_cbr']} | "
              f"{r['ann_recall_at_30_questions']} | {r['index_bytes'] / 1e9:.2f} GB | {r['peak_rss_mb']:.0f} MB |")
    if args.out:
        save_results(args.out, args.sizes, results)
    return 0


def measure_in_subprocess(size: int, argv: list[str]) -> dict | None:
    """Run one size's measuring process (`python ARGV...`, printing its result as the last JSON line) and
    return {"size": size, **result}; None (its stderr shown) when it failed."""
    r = subprocess.run([sys.executable, *argv], capture_output=True, text=True)
    if r.returncode:
        print(r.stderr[-3000:], file=sys.stderr)
        return None
    res = {"size": size, **json.loads(r.stdout.strip().splitlines()[-1])}
    print(json.dumps(res), file=sys.stderr)
    return res


def save_results(out: Path, sizes, results: list[dict]) -> None:
    """Write `results` to `out`, keeping the sizes measured in earlier runs into the same file unless measured
    again."""
    try:
        earlier = [r for r in json.loads(out.read_text()) if r.get("size") not in sizes]
    except (OSError, ValueError):
        earlier = []
    out.write_text(json.dumps(sorted(earlier + results, key=lambda r: r["size"]), indent=2))


if __name__ == "__main__":
    raise SystemExit(main())
