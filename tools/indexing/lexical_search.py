"""BM25 search over the index's postings: `search` (an OR of phrases, the best k chunks), the exhaustive scorer
it falls back to, and the corpus-wide block-max search over the run files (`search_blocks`, MaxScore with block
bounds; the file format and the bounds are `lexical_blocks.py`'s, the runs `lexical_runs.py`'s, the postings and
BM25's arithmetic `lexical.py`'s).

Every chunk whose score can reach the final k-th score is scored exactly (in the term order and arithmetic of the
exhaustive scorer, so scores are bitwise the same), so the top k, ties by chunk id, is the one the exhaustive
scorer returns (`tests/unit/test_lexical_runs.py`).
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from finrag.tools.indexing import lexical_blocks, lexical_runs
from finrag.tools.indexing.lexical import (
    IDF_FLOOR,
    K1,
    POSTINGS,
    TERMS,
    decode_records,
    fetch_postings,
    idf,
    term_score,
    top_k,
)

__all__ = ["search", "search_blocks"]


def search(conn: sqlite3.Connection, phrases: Sequence[str], k: int,
           los: Sequence[int] | None = None, cache_key=None, exhaustive: bool = False) -> list[tuple[int, float]]:
    """(chunk_id, BM25 score) of the best k chunks for an OR of `phrases`, best first.

    `los`: restrict to the documents whose first chunk ids these are (None: the whole corpus).
    `cache_key`: identifies the index and its generation; with it, a corpus-wide search keeps the terms'
    decoded postings in `POSTINGS` for the next query.
    `exhaustive`: score every posting of every term (the reference the pruned corpus-wide search equals).
    """
    if k <= 0 or not phrases or (los is not None and not los):
        return []
    phrase_terms = [t for t in (TERMS.phrase(p) for p in phrases) if t]
    if not phrase_terms:
        return []
    n_rows, tokens = conn.execute("SELECT rows, tokens FROM lex_stats WHERE id = 0").fetchone()
    if not n_rows:
        return []
    avgdl = tokens / n_rows
    terms = sorted({t for p in phrase_terms for t in p})
    df = dict(conn.execute(f"SELECT term, df FROM lex_df WHERE term IN ({','.join('?' * len(terms))})", terms))
    weights = []
    for p in phrase_terms:
        d = min(df.get(t, 0) for t in p)
        weights.append((p, idf(n_rows, d) if d else 0.0))
    weights = [(p, w) for p, w in weights if w > 0]
    if not weights:
        return []
    if los is None:  # terms at FTS5's IDF floor add nothing measurable; read them only if needed
        strong = [(p, w) for p, w in weights if w > IDF_FLOOR]
        if strong and len(strong) < len(weights):
            hits = _score(conn, strong, k, None, avgdl, cache_key, exhaustive)
            if len(hits) >= k:
                return hits
    return _score(conn, weights, k, los, avgdl, cache_key if los is None else None, exhaustive)


def _postings_of(conn: sqlite3.Connection, terms: list[str], los: Sequence[int] | None,
                 cache_key=None) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each term's (chunk ids, tf, dl): from the cache where it has them (corpus-wide with a `cache_key`)."""
    out = {}
    if cache_key is not None:
        for t in terms:
            hit = POSTINGS.get((cache_key, t))
            if hit is not None:
                out[t] = hit
    missing = [t for t in terms if t not in out]
    if missing:
        from_runs = None
        if los is None:
            from_runs = lexical_runs.fetch_runs(conn, missing)
        fetched = fetch_postings(conn, missing, los) if from_runs is None else {}
        for t in missing:
            out[t] = from_runs[t] if from_runs is not None else decode_records(fetched[t])
            if cache_key is not None:
                for a in out[t]:
                    a.flags.writeable = False  # shared with later queries
                POSTINGS.put((cache_key, t), out[t])
    return out


def _score(conn: sqlite3.Connection, weights: list[tuple[tuple[str, ...], float]], k: int,
           los: Sequence[int] | None, avgdl: float, cache_key=None, exhaustive: bool = False) -> list[tuple[int, float]]:
    if los is None and not exhaustive:  # corpus-wide: block-max search of the runs (below)
        hits = search_blocks(conn, weights, k, avgdl)
        if hits is not None:
            return hits
    terms = sorted({t for p, _ in weights for t in p})
    per_term = _postings_of(conn, terms, los, cache_key)
    all_ids, all_scores = [], []
    for phrase, w in weights:
        ids, tf, dl = per_term[phrase[0]]
        for t in phrase[1:]:  # a phrase: chunks with all its tokens, the smallest frequency
            ids2, tf2, _ = per_term[t]
            common, i1, i2 = np.intersect1d(ids, ids2, assume_unique=True, return_indices=True)
            ids, tf, dl = common, np.minimum(tf[i1], tf2[i2]), dl[i1]
        if not len(ids):
            continue
        all_ids.append(ids)
        all_scores.append(term_score(w, tf, dl, avgdl))
    return top_k(all_ids, all_scores, k)


# -------------------------------------------------------------------------------------------- search
@dataclass
class Source:
    """One term's records in one run (or outside runs), its blocks, and how to scale their impacts."""
    rec: np.ndarray
    block: np.ndarray  # uint32, ascending
    start: np.ndarray  # uint32: each block's first record
    f: np.ndarray  # float32: each block's largest impact
    scale: float  # impact -> bound factor: max(1, A / A0) * lexical_blocks.SAFETY
    fmax: float
    live: tuple[np.ndarray, np.ndarray] | None  # the run's live documents when some were removed

    def bounds(self, w: float) -> np.ndarray:
        return self.f.astype(np.float64) * (w * (K1 + 1.0) * self.scale)

    def at(self, blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of `blocks` (uint32, ascending) this source has, and where in its block arrays."""
        pos = np.searchsorted(self.block, blocks)
        ok = pos < len(self.block)
        ok[ok] = self.block[pos[ok]] == blocks[ok]
        return ok, pos[ok]


def sources(conn: sqlite3.Connection, terms: list[str], avgdl: float) -> dict[str, list[Source]] | None:
    """Each term's sources (inside the caller's snapshot); None when there are no runs or too many documents
    outside them."""
    runs = conn.execute("SELECT run, file FROM lex_runs ORDER BY run").fetchall()
    if not runs:
        return None
    pending = [r[0] for r in conn.execute("SELECT lo FROM lex_docs WHERE run IS NULL")]
    if len(pending) > lexical_runs.PENDING_LOOKUPS:
        return None
    lives = lexical_runs.run_lives(conn, [r for r, _ in runs])
    out: dict[str, list[Source]] = {t: [] for t in terms}
    marks = ",".join("?" * len(terms))

    def loose(term: str, rec: np.ndarray, live) -> None:
        block, start, f = lexical_blocks.blocks_of(rec, avgdl)
        out[term].append(Source(rec, block, start, f, lexical_blocks.SAFETY, float(f.max()) if len(f) else 0.0, live))

    for run, token in runs:
        m = lexical_blocks.mapped(conn, token) if token else None
        if m is not None:
            scale = max(1.0, avgdl / m.avgdl) * lexical_blocks.SAFETY
            for term in terms:
                got = m.term(term)
                if got is not None:
                    out[term].append(Source(*got[:4], scale, got[4], lives[run]))
            continue
        for term, post in conn.execute(f"SELECT term, post FROM lex_run WHERE run=? AND term IN ({marks})",
                                       (run, *terms)):
            loose(term, np.frombuffer(post, dtype=lexical_blocks.RUN_DTYPE), lives[run])
    outside = lexical_runs.pending_records(conn, terms, pending)
    if outside is None:
        return None
    for term, rec in outside.items():
        loose(term, rec, None)
    return out


def search_blocks(conn: sqlite3.Connection, weights: list[tuple[tuple[str, ...], float]], k: int,
                  avgdl: float) -> list[tuple[int, float]] | None:
    """The best k chunks of a corpus-wide OR of terms (`weights`: (phrase's terms, idf) pairs, in the exhaustive
    scorer's order), scoring only the blocks that can hold one; None when it does not apply (no runs, too many
    documents outside them): score every posting then. A phrase of several terms is bounded by its first term
    (its frequency is the smallest of its terms') and scored where all its terms occur."""
    if k <= 0 or not weights:
        return None
    with lexical_runs.read_snapshot(conn):
        src = sources(conn, sorted({t for p, _ in weights for t in p}), avgdl)
    if src is None:
        return None
    # a term's largest contribution anywhere, and which phrases can reach the top k at all
    u = np.array([max((s.fmax * s.scale for s in src[p[0]]), default=0.0) * w * (K1 + 1.0) for p, w in weights])
    present = [i for i in range(len(weights)) if u[i] > 0]
    if not present:
        return []
    found_ids: list[np.ndarray] = []  # every scored chunk once (blocks are scored once), with its score
    found: list[np.ndarray] = []
    best = np.zeros(0)  # the k best chunk scores so far

    def score(blocks: np.ndarray) -> float:
        """Score `blocks` (uint32, ascending, none scored before) exactly; returns the k-th best score so far
        (0: fewer than k chunks)."""
        nonlocal best
        if len(blocks):
            i, t = _totals(*_score_blocks(weights, src, blocks, avgdl), blocks)
            found_ids.append(i)
            found.append(t)
            best = np.concatenate([best, t])
            if len(best) > k:
                best = -np.partition(-best, k - 1)[:k]
        return float(best.min()) if len(best) >= k else 0.0

    # 1. the highest-impact blocks of the strongest phrases give a first threshold
    first = [np.zeros(0, dtype=np.uint32)]
    for i in sorted(present, key=lambda i: -u[i])[:3]:
        for s in src[weights[i][0][0]]:
            b = s.bounds(weights[i][1])
            top = np.argpartition(-b, lexical_blocks.FIRST_BLOCKS - 1)[:lexical_blocks.FIRST_BLOCKS] if len(b) > lexical_blocks.FIRST_BLOCKS else np.arange(len(b))
            first.append(s.block[top])
    first_blocks = np.unique(np.concatenate(first))
    theta = score(first_blocks)
    # 2. essential phrases: a chunk with none of them scores at most the sum of the other phrases' maxima
    cut = theta * (1.0 - 1e-9)
    order = sorted(present, key=lambda i: u[i])
    weak_sum, n_weak = 0.0, 0
    for i in order:
        if (weak_sum + u[i]) * lexical_blocks.SAFETY >= cut:
            break
        weak_sum += u[i]
        n_weak += 1
    weak, essential = order[:n_weak], order[n_weak:]
    nb = 1 + max(int(s.block[-1]) for i in essential for s in src[weights[i][0][0]] if len(s.block))
    ub = np.zeros(nb)
    for i in essential:  # dense: the essential phrases' block maxima everywhere
        ss = src[weights[i][0][0]]
        if len(ss) == 1:
            ub[ss[0].block] += ss[0].bounds(weights[i][1])
            continue
        per = np.zeros(nb)
        for s in ss:
            per[s.block] = np.maximum(per[s.block], s.bounds(weights[i][1]))
        ub += per
    ub[first_blocks[first_blocks < nb]] = 0.0  # scored already
    cand = np.flatnonzero((ub + weak_sum * lexical_blocks.SAFETY >= cut) & (ub > 0)).astype(np.uint32)
    ub = ub[cand]
    for i in reversed(weak):  # looked up at the candidates only, strongest first, fewer candidates each time
        weak_sum -= u[i]
        ub += _bound_at(src[weights[i][0][0]], weights[i][1], cand, nb)
        keep = ub + max(weak_sum, 0.0) * lexical_blocks.SAFETY >= cut
        cand, ub = cand[keep], ub[keep]
    # 3. the best bounds first (doubling batches); theta rises as blocks are scored, and fewer remain
    batch = lexical_blocks.BATCH
    while len(cand):
        take = np.argpartition(-ub, batch - 1)[:batch] if len(cand) > batch else np.arange(len(cand))
        theta = max(theta, score(np.sort(cand[take])))
        rest = np.ones(len(cand), dtype=bool)
        rest[take] = False
        rest &= ub >= theta * (1.0 - 1e-9)
        cand, ub = cand[rest], ub[rest]
        batch *= 2
    ids, total = np.concatenate(found_ids), np.concatenate(found)
    if len(ids) > k:  # as `lexical.top_k` chooses: the k best, ties by chunk id
        top = np.flatnonzero(total >= -np.partition(-total, k - 1)[k - 1])
    else:
        top = np.arange(len(ids))
    top = top[np.lexsort((ids[top], -total[top]))][:k]
    return [(int(ids[i]), float(total[i])) for i in top]


def _totals(all_ids: list[np.ndarray], all_scores: list[np.ndarray], blocks: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """`lexical.totals` for chunks inside `blocks` (uint32, ascending): each chunk's phrase scores summed in list
    order (the exhaustive scorer's), counted densely by position in the blocks instead of sorting chunk ids."""
    if not all_ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    ids = np.concatenate(all_ids)
    mask = (1 << lexical_blocks.BITS) - 1
    local = (np.searchsorted(blocks, (ids >> lexical_blocks.BITS).astype(np.uint32)).astype(np.int64) << lexical_blocks.BITS) | (ids & mask)
    total = np.bincount(local, weights=np.concatenate(all_scores), minlength=len(blocks) << lexical_blocks.BITS)
    at = np.flatnonzero(total > 0)
    return (blocks[at >> lexical_blocks.BITS].astype(np.int64) << lexical_blocks.BITS) | (at & mask), total[at]


def _bound_at(sources_: list[Source], w: float, blocks: np.ndarray, nb: int) -> np.ndarray:
    """A phrase's largest contribution in each of `blocks` (uint32, ascending, below `nb`; 0 where it does not
    occur)."""
    out = np.zeros(len(blocks))
    for s in sources_:
        if len(blocks) * 16 > len(s.block):  # many candidates: through a dense array of the blocks
            dense = np.zeros(max(nb, int(s.block[-1]) + 1 if len(s.block) else 0))
            dense[s.block] = s.bounds(w)
            out = np.maximum(out, dense[blocks])
            continue
        ok, pos = s.at(blocks)
        if len(pos):
            out[ok] = np.maximum(out[ok], s.f[pos].astype(np.float64) * (w * (K1 + 1.0) * s.scale))
    return out


def _records_in(sources_: list[Source], blocks: np.ndarray) -> np.ndarray:
    """One term's live records in `blocks` (uint32, ascending), from all its sources, in chunk-id order."""
    parts = []
    for s in sources_:
        _, pos = s.at(blocks)
        if not len(pos):
            continue
        starts = s.start[pos].astype(np.int64)
        nxt = pos + 1
        ends = np.full(len(pos), len(s.rec), dtype=np.int64)
        inside = nxt < len(s.start)
        ends[inside] = s.start[nxt[inside]]
        r = s.rec[lexical_runs.id_ranges(starts, ends)]
        if s.live is not None:
            r = r[lexical_runs.alive_mask(r["id"].astype(np.int64), *s.live)]
        parts.append(r)
    if not parts:
        return np.zeros(0, dtype=lexical_blocks.RUN_DTYPE)
    if len(parts) == 1:
        return parts[0]
    r = np.concatenate(parts)
    return r[np.argsort(r["id"], kind="stable")]
def _score_blocks(weights: Sequence[tuple[tuple[str, ...], float]], src: dict[str, list[Source]],
                  blocks: np.ndarray, avgdl: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Chunk ids and phrase scores (one pair per phrase, in `weights` order) of the chunks in `blocks`, computed
    as the exhaustive scorer does."""
    cache: dict[str, np.ndarray] = {}
    all_ids, all_scores = [], []
    for phrase, w in weights:
        for t in phrase:
            if t not in cache:
                cache[t] = _records_in(src.get(t, []), blocks)
        r = cache[phrase[0]]
        ids, tf, dl = r["id"].astype(np.int64), r["tf"].astype(np.float64), r["dl"].astype(np.float64)
        for t in phrase[1:]:  # a phrase: chunks with all its tokens, the smallest frequency
            r2 = cache[t]
            common, i1, i2 = np.intersect1d(ids, r2["id"].astype(np.int64), assume_unique=True, return_indices=True)
            ids, tf, dl = common, np.minimum(tf[i1], r2["tf"].astype(np.float64)[i2]), dl[i1]
        if len(ids):
            all_ids.append(ids)
            all_scores.append(term_score(w, tf, dl, avgdl))
    return all_ids, all_scores
