"""resolve_docs: turn the extracted identity into documents of the index.

Only document ids that exist in the registry can be returned; the status says how the route was found
(`exact_path`, `filename_fallback`, `default_year`, `multi_doc`, `forward_looking`, `comparative_period`,
`company_scope`, `period_not_in_index`) or why there is none (`fallback_no_tickers`,
`fallback_low_confidence`: retrieval then uses the full corpus (the paper's fallback) or, with
`fallback_scope=top_document`, one filing; `company_not_indexed`: no retrieval at all, the answer says which
company is missing; `which_company`: the question names no company and `fallback_scope=ask`, the default:
no retrieval, the answer asks which company). `routing_scope` decides whether a route that is not sure reads the company's tied filings too.
Filings that share a routed filing's identity (issue 34 case 7) go into `extracted.same_identity` and the reason.
"""
from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, question_facts, registry_of, timed
from finrag.state.configuration import Configuration
from finrag.state.contract import NO_RETRIEVAL_STATUSES
from finrag.state.graph_state import FinragState
from finrag.state.schema import ExtractedMetadata
from finrag.tools.routing.fallback import FALLBACK_STATUSES, left_out, record_fallback


@timed("resolve_docs")
def resolve_docs(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """Route `extracted` to indexed filings: `routed_docs`, `routing_status`, `routing_reason`,
    `routing_confidence`."""
    cfg = configuration(runtime)
    registry = registry_of(cfg)
    extracted = ExtractedMetadata.model_validate(state.get("extracted") or {})
    question = state.get("question", "")
    res = registry.resolve(extracted, question=question, default_year=cfg.default_year,
                           scope=cfg.routing_scope, facts=question_facts(state))
    fallback = record_fallback(extracted.candidates or [], question,
                               "top_document" if cfg.fallback_scope == "top_document" else "corpus",
                               registry.tickers_of, registry.holds) if res.status in FALLBACK_STATUSES else None
    if res.status == "fallback_no_tickers" and cfg.fallback_scope == "ask":
        # nothing to route: any corpus answer would be about a company the user did not name. A mention that
        # routing could not resolve with confidence (`fallback_low_confidence`) keeps the paper's corpus fallback.
        res = registry.ask_company(res, offered=(fallback or {}).get("candidates") or [])
        fallback = {**fallback, "scope": "none"} if fallback else None
    docs = [info.doc_id for d in res.doc_ids if (info := registry.get(d)) is not None]
    update = {"routed_docs": docs, "routing_status": res.status, "routing_reason": res.reason,
              "routing_confidence": res.confidence}
    for cand in (fallback or {}).get("candidates") or []:  # where the question about each candidate would go
        if cand.get("in_index"):
            asked = str(cand["question"])
            route = registry.resolve(registry.link(asked), asked, default_year=cfg.default_year, scope=cfg.routing_scope)
            cand["doc_ids"] = [d for d in route.doc_ids if registry.company_of(d) == cand["key"]]
    if fallback and not docs:  # the contract records the fallback; the answer leads with it (issue 48)
        extracted = extracted.model_copy(update={"fallback": fallback})
        update["extracted"] = extracted.model_dump()
    dropped = left_out(extracted.candidates or [], question, {registry.company_of(d) for d in docs},
                       registry.holds) if docs else []
    if dropped:  # listed companies routing did not take are named, not dropped silently (issue 49)
        extracted = extracted.model_copy(update={"left_out": dropped})
        update["extracted"] = extracted.model_dump()
    twins = registry.same_identity(docs)
    if twins:  # filings of one identity: the contract, the reason and the answer name them all (issue 34 case 7)
        update["extracted"] = extracted.model_copy(update={"same_identity": twins}).model_dump()
        update["routing_reason"] = res.reason + "".join(
            f"; {len(g['doc_ids'])} filings of one identity ({g['identity']}): {', '.join(g['doc_ids'])}, "
            f"read: {', '.join(g['read'])}" for g in twins)
    return update


def route_after_resolve(state: FinragState) -> Literal["generate", "rewrite"]:
    """HDRR's conditional edge: a route that ends without retrieval (a company the index does not hold) goes
    straight to `generate`, which says so; every other route goes on to `rewrite`."""
    return "generate" if state.get("routing_status") in NO_RETRIEVAL_STATUSES else "rewrite"
