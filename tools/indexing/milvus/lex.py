"""finrag's own BM25 searched by Milvus: the embedded backend's terms and weights as sparse vectors.

BM25 is an inner product: score(q, d) = sum over query terms t of idf(t) * w(t, d) with
w(t, d) = tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)). So each chunk row stores the sparse
vector {key(t): w(t, d)} over its FTS5 terms (`lexical.Terms`: porter unicode61, exactly what the
embedded index's FTS5 tables and postings see), and a query sends {key(t): idf(t)} with idf from
finrag's document-frequency table, searched with metric IP over a SPARSE_INVERTED_INDEX. The result is
the embedded backend's BM25 (`lexical_search.search`: k1 = 1.2, b = 0.75, IDF log((N - n + 0.5) / (n + 0.5))
floored at 1e-6), up to float32 rounding of the stored weights:

* the statistics live in Milvus: `<p>_lex_terms` (id `variant:term` -> df) and, in `<p>_meta`,
  `lex_rows_<variant>` / `lex_tokens_<variant>` (N and the corpus's token count); the store caches them;
* document weights use the avgdl of the moment they were written (recorded per document in
  `documents.lex_json`): a full `finrag copy` writes every document with the source's avgdl and
  rewrites documents whose recorded avgdl drifted more than `FINRAG_MILVUS_AVGDL_DRIFT` (default 1%);
  incremental writes (`finrag index --index milvus:...`, `--remove`) keep df / N / tokens current
  but leave the older documents' weights as written;
* a quoted query word FTS5 splits into several tokens (`"p&l"`, `"3m's"`) is a phrase: as in
  `lexical.py` it matches chunks that contain all its tokens, with the smallest of their frequencies
  (for a chunk w(t, d) grows with tf, so this is idf(phrase) * min over the tokens of w(t, d)). Milvus
  ranks candidates by an upper bound (the phrase's idf on its rarest token), finrag rescores them
  exactly from their stored vectors and widens the candidates until the bound proves the top k (the
  variants' embedded search is FTS5 with real phrase positions: there a phrase's score is this
  approximation).

term_key: the first 4 bytes of blake2b(term) mapped into [1, 2**32 - 2] (Milvus reserves 2**32 - 1;
key 0 marks a chunk without terms, which Milvus needs since a sparse vector cannot be empty). A
collision (two terms with one key; about n**2 / 2**33 pairs for n distinct terms, ~0.1 for this
corpus's 27,000) makes the two terms one for Milvus: a query for either also matches chunks with the
other, weighted with the queried term's idf; the exact rescoring cannot tell them apart either.
"""
from __future__ import annotations

import functools
import hashlib
import sqlite3
from collections import Counter
from typing import TYPE_CHECKING, Sequence

import numpy as np

from finrag.state.settings import MilvusSettings
from finrag.tools.indexing import lexical
from finrag.tools.indexing.store_schema import DB_NAME

if TYPE_CHECKING:
    from finrag.tools.indexing.store import Store

EMPTY_KEY = 0
_MOD = 2 ** 32 - 2
TERM_MAX = 1000  # characters of a term id stored in `<p>_lex_terms` (longer terms are not searchable)
TERM_KEYS_KEPT = 1 << 18  # term keys remembered (a corpus of 168 filings has ~27,000 distinct terms)


@functools.lru_cache(maxsize=TERM_KEYS_KEPT)
def term_key(term: str) -> int:
    """The term's sparse-vector key (see the module docstring); a pure function, remembered for the most used."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=4).digest(), "little") % _MOD + 1


def chunk_terms(texts: Sequence[str]) -> list[Counter]:
    """Each text's FTS5 terms with their frequencies (what an FTS5 table with the index's tokenizer sees)."""
    words = [lexical.fts_words(t) for t in texts]
    flat, bounds = lexical.TERMS.flat([w for ws in words for w in ws])
    names = lexical.TERMS.names
    out, i = [], 0
    for ws in words:
        ids = flat[bounds[i]:bounds[i + len(ws)]]
        i += len(ws)
        u, c = np.unique(ids, return_counts=True)
        out.append(Counter({names[t]: int(n) for t, n in zip(u.tolist(), c.tolist())}))
    return out


def weights(tf: Counter, avgdl: float) -> dict[int, float]:
    """A chunk's sparse vector {term_key: w(t, d)} (BM25's document side)."""
    dl = sum(tf.values())
    if not dl or avgdl <= 0:
        return {EMPTY_KEY: 1.0}
    out: dict[int, float] = {}
    for t, n in tf.items():
        k = term_key(t)
        out[k] = out.get(k, 0.0) + lexical.term_score(1.0, n, dl, avgdl)
    return out


def term_id(variant: str, term: str) -> str:
    return f"{variant}:{term}"


# ---------------------------------------------------------------- statistics of an embedded source
def source_stats(store: Store, variant: str) -> tuple[int, int, dict[str, int]] | None:
    """(N, tokens, term -> df) of a variant's FTS5 table in an embedded index (what its BM25 uses), read
    through a read-only connection (fts5vocab in the temp schema); None when the variant has no rows."""

    table = "chunks_fts" if variant == "base" else f"chunks_fts_{variant}"
    c = sqlite3.connect(f"file:{store.index_dir / DB_NAME}?mode=ro", uri=True)
    try:
        if variant == "base":
            n = c.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        else:
            n = c.execute("SELECT COUNT(*) FROM chunk_prefix p JOIN chunks c ON c.chunk_id = p.chunk_id "
                          "WHERE p.variant = ?", (variant,)).fetchone()[0]
        if not n:
            return None
        c.execute(f"CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, {table}, row)")
        df, tokens = {}, 0
        for term, d, cnt in c.execute("SELECT term, doc, cnt FROM temp.vocab"):
            df[term] = int(d)
            tokens += int(cnt)
        return int(n), tokens, df
    finally:
        c.close()


def drift_limit(settings: MilvusSettings) -> float:
    """The relative avgdl drift above which a full copy rewrites a document's weights (`avgdl_drift`, 0.01)."""
    try:
        return float(settings.avgdl_drift or 0.01)
    except ValueError:
        return 0.01


# ------------------------------------------------------------------------------- query side
def query_plan(phrases: Sequence[str], n_rows: int, df_of) -> list[tuple[tuple[str, ...], float, str]]:
    """(terms of a phrase, idf, its rarest term) for the phrases with a positive weight, as `lexical_search.search`
    weighs them (a phrase's df: the smallest of its terms')."""
    phrase_terms = [t for t in (lexical.TERMS.phrase(p) for p in phrases) if t]
    if not phrase_terms or not n_rows:
        return []
    df = df_of(sorted({t for p in phrase_terms for t in p}))
    out = []
    for p in phrase_terms:
        rare = min(p, key=lambda t: (df.get(t, 0), t))
        d = df.get(rare, 0)
        w = lexical.idf(n_rows, d) if d else 0.0
        if w > 0:
            out.append((p, w, rare))
    return out


def query_vector(plan: list[tuple[tuple[str, ...], float, str]]) -> dict[int, float]:
    """The sparse query: each phrase's idf on its rarest term. For a chunk, idf * min over the phrase's
    terms of w(t, d) <= idf * w(rarest, d), so the inner product bounds the exact score from above and
    is exact for single-term phrases (the store widens the candidates until the bound proves the top k)."""
    q: dict[int, float] = {}
    for _p, w, rare in plan:
        k = term_key(rare)
        q[k] = q.get(k, 0.0) + w
    return q


def rescore(plan: list[tuple[tuple[str, ...], float, str]], vec: dict) -> float:
    """The exact BM25 of a chunk from its stored vector (phrases: the smallest of their tokens' weights)."""
    total = 0.0
    for p, w, _rare in plan:
        total += w * min(float(vec.get(term_key(t), 0.0)) for t in p)
    return total
