"""rerank: score the fused candidates and keep the top with the adaptive cutoff.

For a multi-document route, candidates are reranked and cut per routed document
(each gets an equal share of `max_chunks`), so every company keeps its chunks.
When a scoped graph (HDRR) found no route, `fallback_scope="top_document"` keeps
only the chunks of the filing with the highest total score among the top ten
instead of a mixture of filings (`corpus` is the paper's). Inside routed filings the keywords that only
name the routed company are left out of the keyword coverage (`without_company_words`), and the cutoff's
cliff is `routed_rerank_cliff` (0.25) instead of `rerank_cliff` (0.15): every candidate there comes from a
routed filing, so a wider cut lets in no other company's chunks.

Inside routed filings with `routed_context="budget"` (the default) the context follows the question
(`tools/retrieval/context_budget.py`): chunks in the sections the question points to get
`section_weight`; a line-item question keeps the adaptive cutoff; an open one fills
`context_budget_tokens` down to `context_floor` x the top score, its top `expand_top` chunks bringing their
neighbours and their section's first chunk. The plan, with its reason, is `context_plan` (the answer's
`retrieval.context`). `routed_context="paper"` is the adaptive cutoff for every question.
"""
from __future__ import annotations

import heapq
import itertools
from typing import Any, Callable, Iterator, Optional, cast

from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, reader_of, routed_budget, scope_of_question, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.state.index_reader import IndexReader
from finrag.tools.indexing.sections_store import sections_of
from finrag.tools.retrieval.context_budget import (
    LazyRanking,
    LazySequence,
    expansion_ids,
    fill_budget,
    plan_context,
    prefer_sections,
    section_bonus,
)
from finrag.tools.retrieval.cutoff import adaptive_cutoff
from finrag.tools.retrieval.query_rewrite import without_company_words
from finrag.tools.retrieval.rerankers import get_reranker
from finrag.tools.retrieval.rerankers.offline import ScoreParts


def only_top_document(candidates: list[dict], top: int = 10) -> list[dict]:
    """The candidates of the one document with the largest score mass among the top `top`."""
    mass: dict[str, float] = {}
    for c in sorted(candidates, key=lambda c: -c["rerank_score"])[:top]:
        mass[c["doc_id"]] = mass.get(c["doc_id"], 0.0) + c["rerank_score"]
    best = max(mass, key=lambda doc: mass[doc])
    return [c for c in candidates if c["doc_id"] == best]


@timed("rerank")
def rerank(state: FinragState, runtime: Runtime[Configuration], *, variant: str = "base",
           scoped: bool = False) -> dict:
    """Score `fused` with the configured reranker and keep the adaptive cutoff's chunks in `reranked`."""
    cfg = configuration(runtime)
    # the rerankers and the cutoff take plain dicts (`ChunkRecord`s, scored in place)
    candidates = cast("list[dict[str, Any]]", list(state.get("fused") or []))
    if not candidates:
        return {"reranked": []}
    store = reader_of(cfg)
    reranker = get_reranker(cfg.reranker, store, variant)
    routed = state.get("routed_docs") or []
    keywords = list(state.get("keywords") or [])
    if scoped and routed:  # as in fts_search: the company's own name says nothing inside its filings
        keywords = without_company_words(keywords, state.get("question", ""), cast(Optional[dict], state.get("extracted")))
    query = state.get("query") or state.get("question", "")
    cliff = cfg.routed_rerank_cliff if scoped and routed else cfg.rerank_cliff  # only routed filings' chunks here
    cut = dict(cumulative=cfg.rerank_cumulative, cliff=cliff)
    if scoped and routed and routed_budget(cfg) and scope_of_question(state) == "open" and hasattr(reranker, "parts"):
        # an open question's budget reads its ranking down to the floor: only the candidates that can reach it
        # are scored in full (`LazyRanking`; the same context as scoring all of them)
        return budgeted(state, cfg, store, routed, candidates, cut, parts=reranker.parts(query, keywords, candidates))
    scores = reranker.score(query, keywords, candidates)
    for c, s in zip(candidates, scores):
        c["rerank_score"] = float(s)
        c["score"] = float(s)
    if scoped and routed and routed_budget(cfg):
        return budgeted(state, cfg, store, routed, candidates, cut)
    if scoped and len(routed) > 1:
        share = max(1, cfg.max_chunks // len(routed))
        kept = []
        for doc in routed:
            kept += adaptive_cutoff([c for c in candidates if c["doc_id"] == doc], max_chunks=share, **cut)
        kept.sort(key=lambda c: -c["rerank_score"])
    else:
        if scoped and not routed and cfg.fallback_scope == "top_document":
            candidates = only_top_document(candidates)
        kept = adaptive_cutoff(candidates, max_chunks=cfg.max_chunks, **cut)
    return {"reranked": kept}


def budgeted(state: FinragState, cfg: Configuration, store: IndexReader, routed: list[str], candidates: list[dict],
             cut: dict, parts: Optional[ScoreParts] = None) -> dict:
    """The context of routed filings under the question's plan (see the module docstring). With `parts` (an
    open question, the offline reranker) the candidates are not scored yet: each filing's ranking is a
    `LazyRanking` over them."""
    plan = plan_context(state.get("question", ""), budget_tokens=cfg.context_budget_tokens,
                        floor=cfg.context_floor, section_weight=cfg.section_weight,
                        expand_top=cfg.expand_top, scope=scope_of_question(state))
    labels: dict = {}
    for doc in routed:
        labels.update(sections_of(store, doc))
    rule = cfg.section_rule  # a Literal of Configuration: checked when the run's configuration was built
    wanted = plan["sections"] if rule != "off" and plan["scope"] == "open" else []  # line items: the statements
    weight = cfg.section_weight if rule == "prefer" else 0.0
    if parts is None:
        plan["boosted"] = prefer_sections(candidates, labels, wanted, weight)
        bonus: list[bool] = []
    else:
        bonus = section_bonus(candidates, labels, wanted, weight)
        plan["boosted"] = sum(bonus)
    plan["section_rule"] = rule
    index = list(range(len(candidates)))  # each candidate's place in `parts`
    if rule == "require" and wanted:
        inside = [i for i, c in enumerate(candidates) if {c["section"]["item"], c["section"]["note"]} & set(wanted)]
        plan["boosted"] = len(inside)
        if inside:  # a filing without those sections keeps every candidate
            index, candidates = inside, [candidates[i] for i in inside]
    share = max(1, cfg.max_chunks // len(routed))
    kept: list[dict] = []
    if parts is not None:
        for doc in routed:
            kept += lazy_budget(cfg, store, labels, plan, parts, bonus, weight, len(routed),
                                [i for i, c in zip(index, candidates) if c["doc_id"] == doc], doc)
        plan["expanded"] = sum(1 for c in kept if c.get("expanded_from") is not None)
        plan["chunks"] = len(kept)
        return {"reranked": kept, "context_plan": plan}
    for doc in routed:
        mine = sorted((c for c in candidates if c["doc_id"] == doc), key=lambda c: -c["rerank_score"])
        if not mine:
            continue
        # the fused lists' best (`sorted(...)[:n]`, ties in `mine`'s order, without sorting all ~400)
        must = heapq.nsmallest(max(0, cfg.fused_keep), mine, key=lambda c: -(c.get("rrf_score") or 0.0))
        if plan["scope"] == "line_item":
            limit = share if len(routed) > 1 else cfg.max_chunks
            pool = usual_pool(mine, cfg.fts_k, cfg.vector_k) or mine  # shares as in the paper
            cutoff = adaptive_cutoff(pool, max_chunks=limit, **cut)
            kept += with_fused(cutoff, must, len(cutoff))  # as many chunks as the cutoff kept, the best fused among them
            continue
        extra = expander(store, labels, doc, mine, int(plan["expand_top"])) if plan["expand_top"] else None
        budget = cfg.context_budget_tokens // len(routed)
        ranked = mine[:1] + [c for c in must if c is not mine[0]] + [c for c in mine[1:] if not any(c is m for m in must)]
        kept += fill_budget(ranked, budget, cfg.context_floor, extra, always={int(c["chunk_id"]) for c in must})
    if plan["scope"] == "line_item" and len(routed) > 1:
        kept.sort(key=lambda c: -c["rerank_score"])  # as the paper's cut of a multi-document route
    plan["expanded"] = sum(1 for c in kept if c.get("expanded_from") is not None)
    plan["chunks"] = len(kept)
    return {"reranked": kept, "context_plan": plan}


def lazy_budget(cfg: Configuration, store: IndexReader, labels: dict, plan: dict, parts: ScoreParts, bonus: list[bool],
                weight: float, routes: int, index: list[int], doc: str) -> list[dict]:
    """One routed filing's open-question context from unscored candidates (`index`: their places in `parts`):
    what `budgeted` keeps for it after scoring every candidate, scoring only those that can reach it."""
    if not index:
        return []
    items = [parts.chunks[i] for i in index]

    def final(j: int) -> float:  # rerank() then prefer_sections: the reranker's score, plus the bonus
        s = float(parts.exact(index[j]))
        return float(s) + weight if bonus[index[j]] else s

    bound = [parts.bound(i) + weight if bonus[i] else parts.bound(i) for i in index]
    ranking = LazyRanking(items, bound, final)
    must: list[dict] = []
    n = max(0, cfg.fused_keep)
    if n:  # `sorted(mine, key=-rrf)[:n]` with `mine` in score order: the tied candidates scored to order them
        rrf = [c.get("rrf_score") or 0.0 for c in items]
        least = heapq.nlargest(n, rrf)[-1]
        tied = [j for j in range(len(items)) if rrf[j] >= least]
        for j in tied:
            ranking.ensure(j)
        tied.sort(key=lambda j: (-rrf[j], -ranking.scored[j], j))
        must = [items[j] for j in tied[:n]]

    def ranked() -> Iterator[dict]:  # mine[:1] + the must chunks + the rest of mine, read as far as needed
        first = ranking[0]
        yield first
        yield from (m for m in must if m is not first)
        for c in itertools.islice(ranking, 1, None):
            if not any(c is m for m in must):
                yield c

    place = {int(c["chunk_id"]): j for j, c in enumerate(items)}
    extra = (expander(store, labels, doc, items, int(plan["expand_top"]),
                      scored=lambda c: ranking.ensure(place[int(c["chunk_id"])]))
             if plan["expand_top"] else None)
    budget = cfg.context_budget_tokens // routes
    return fill_budget(LazySequence(ranked(), len(items)), budget, cfg.context_floor, extra,
                       always={int(c["chunk_id"]) for c in must})


def with_fused(kept: list[dict], must: list[dict], limit: int) -> list[dict]:
    """`kept` with the `must` chunks (the fused lists' best) in it, the lowest-scored others making room, at
    most `limit` chunks (and at least one of `kept`'s)."""
    out = list(kept)
    for m in must:
        if any(c is m for c in out):
            continue
        if len(out) >= limit:
            if len(out) <= 1:
                break
            out.pop()
        out.append(m)
    return out


def usual_pool(candidates: list[dict], fts_k: int, vector_k: int) -> list[dict]:
    """The candidates the paper's search would have had: the top `fts_k` BM25 and top `vector_k` vector hits
    (ranks from 1), in the given order."""
    return [c for c in candidates if (c.get("fts_rank") or fts_k + 1) <= fts_k
            or (c.get("vector_rank") or vector_k + 1) <= vector_k]


def expander(store: IndexReader, labels: dict, doc: str, candidates: list[dict], top: int,
             scored: Optional[Callable[[dict], object]] = None):
    """`fill_budget`'s `extra` for one routed filing: the top `top` chunks bring their section's first chunk
    and their neighbours (`expansion_ids`), read from the store when they were no candidates. `scored(c)`
    scores a candidate that is not scored yet (a `LazyRanking`'s), before its score is read."""
    order = [int(i) for i in store.chunk_ids_of([doc])]
    by_id = {int(c["chunk_id"]): c for c in candidates}

    def extra(c: dict, pos: int) -> list[dict]:
        if pos >= top:
            return []
        ids = expansion_ids(c, labels, order)
        missing = [i for i in ids if i not in by_id]
        fetched = store.get_chunks(missing) if missing else {}
        out = []
        for i in ids:
            if scored is not None and i in by_id:
                scored(by_id[i])
            e = by_id.get(i) or (fetched[i].model_dump() if i in fetched else None)
            if e is None:
                continue
            e = dict(e)
            e.setdefault("rerank_score", 0.0)
            e["score"] = float(e.get("rerank_score") or 0.0)
            e["expanded_from"] = int(c["chunk_id"])
            out.append(e)
        return out

    return extra
