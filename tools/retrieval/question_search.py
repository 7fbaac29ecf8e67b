"""The question always searched: the search texts of `fts_search` and `vector_search`, and the fusion of the
hit lists they get for them.

An LLM rewrite (the `rewriter` role, or the router's merged call) can be wrong: keywords that name nothing in
the filings ("zzz qqq") found nothing, and the run answered "could not find passages". So each search runs for
the rewrite AND for the question's own offline rewrite (the question, anchored on an Agentic retry, without
boilerplate, with its abbreviations expanded), and the two hit lists are merged by reciprocal rank fusion
(`fuse_hit_lists`): a bad rewrite can only add candidates, never remove the question's. When the rewrite IS
the offline one (no LLM, or its fallback) the two texts are equal and one search runs, as before.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence, cast

from finrag.state.configuration import RRF_K
from finrag.state.index_reader import IndexReader
from finrag.state.schema import RetrievedChunk
from finrag.tools.indexing.store_search import SearchMixin
from finrag.tools.retrieval.query_rewrite import offline_rewrite


def anchored(state: Mapping[str, Any], prefix_template: str) -> str:
    """The question the rewriter is given: the question, with the Agentic retry prefix on a retry (`rewrite`
    and both searches read it here)."""
    question = str(state.get("question") or "")
    if not state.get("retries"):
        return question
    who = (state.get("verification") or {}).get("anchor")
    if not who:
        extracted = state.get("extracted") or {}
        who = (extracted.get("tickers") or extracted.get("companies") or ["the company"])[0]
    return prefix_template.format(ticker=who) + question


def keyword_texts(state: Mapping[str, Any], prefix_template: str,
                  trim: Callable[[list[str]], list[str]] = list) -> list[str]:
    """The BM25 texts: the rewrite's keywords (else its query, else the question), then the question's own
    offline keywords when they differ; `trim` drops words from a keyword list (the routed company's name)."""
    question = str(state.get("question") or "")
    rewritten = " ".join(trim(list(state.get("keywords") or []))) or str(state.get("query") or "") or question
    own = offline_rewrite(anchored(state, prefix_template))
    mine = " ".join(trim(list(own.keywords))) or own.query or question
    return unique([rewritten, mine])


def query_texts(state: Mapping[str, Any], prefix_template: str) -> list[str]:
    """The vector search texts: the rewrite's query (else the question), then the question's own offline
    query when it differs."""
    question = str(state.get("question") or "")
    own = offline_rewrite(anchored(state, prefix_template)).query or question
    return unique([str(state.get("query") or "") or question, own])


def hit_dicts(hits: Iterable[Any]) -> list[dict]:
    """The search hits as the state's dicts, `hit.model_dump()` each: for a `RetrievedChunk` (flat fields,
    no serialisers, no extras) a copy of its field values, which is the same dict without pydantic's
    serialiser (an open question's ~400 hits per search); any other hit type through `model_dump()`."""
    return [dict(h.__dict__) if type(h) is RetrievedChunk else h.model_dump() for h in hits]


def fts_hits(store: IndexReader, text: str, k: int, doc_ids: Sequence[str] | None, variant: str) -> list[dict]:
    """`hit_dicts(store.search_fts(text, ...))`: from finrag's embedded Store, its `search_fts_dicts` (the same
    dicts, without a model per hit in between) unless `search_fts` is someone else's (a subclass's, a test's)."""
    if _own(store, "search_fts"):
        return cast(SearchMixin, store).search_fts_dicts(text, k=k, doc_ids=doc_ids, variant=variant)
    return hit_dicts(store.search_fts(text, k=k, doc_ids=doc_ids, variant=variant))


def vector_hits(store: IndexReader, vector: Any, k: int, doc_ids: Sequence[str] | None, variant: str,
                max_distance: float | None) -> list[dict]:
    """`hit_dicts(store.search_vectors(vector, ...))`, through the Store's `search_vectors_dicts` as `fts_hits`."""
    if _own(store, "search_vectors"):
        return cast(SearchMixin, store).search_vectors_dicts(vector, k=k, doc_ids=doc_ids, variant=variant,
                                                             max_distance=max_distance)
    return hit_dicts(store.search_vectors(vector, k=k, doc_ids=doc_ids, variant=variant, max_distance=max_distance))


def _own(store: object, name: str) -> bool:
    """Is `store.<name>` the embedded Store's own search (`SearchMixin`'s, not replaced on its class or on it)?"""
    return (isinstance(store, SearchMixin) and getattr(type(store), name) is getattr(SearchMixin, name)
            and name not in vars(store))


def unique(texts: list[str]) -> list[str]:
    """The non-blank texts, each once, in order (at least one entry, possibly blank)."""
    out: list[str] = []
    for t in texts:
        if t.strip() and t not in out:
            out.append(t)
    return out or texts[:1]


def fuse_hit_lists(lists: list[list[dict]], rank_key: str, k: int = RRF_K) -> list[dict]:
    """One search's hit lists for several texts as one list, ordered by reciprocal rank fusion (sum of
    1 / (k + rank), ties by chunk id). Each chunk is the hit where it ranked best, so its `rank_key` (`fts_rank`
    / `vector_rank`) is its best rank in any list: the top n of every list stays in the top-n pool (`rerank`'s
    `usual_pool`). A single list is returned as it is."""
    lists = [hits for hits in lists if hits]
    if len(lists) <= 1:
        return list(lists[0]) if lists else []
    score: dict[int, float] = {}
    best: dict[int, tuple[int, dict]] = {}
    for hits in lists:
        for pos, hit in enumerate(hits, 1):
            cid = int(hit["chunk_id"])
            score[cid] = score.get(cid, 0.0) + 1.0 / (k + pos)
            rank = int(hit.get(rank_key) or pos)
            if cid not in best or rank < best[cid][0]:
                best[cid] = (rank, hit)
    order = sorted(score, key=lambda cid: (-score[cid], cid))
    return [{**best[cid][1], rank_key: best[cid][0]} for cid in order]
