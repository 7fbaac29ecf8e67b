"""verify (Agentic): do the top three reranked chunks belong to the target company?

With an LLM (`verifier` role) the model answers `{"belongs": bool, "reason": str}`;
offline the chunks' registry metadata decides. On "no", the graph retries CBR with
the entity-anchored prefix "In {ticker}'s 10-K annual report: " (at most
`max_retries` times). A question about a company the index does not hold never
passes: the verdict says which company is missing, no retry runs (no filing of it
can be found), and the run reports `routing_status` `company_not_indexed` so that
`generate` answers with that instead of another company's figures.

The LLM's verdict is checked: a "belongs" for top chunks that the registry says are other companies'
filings (doc id -> company, against the question's routed companies) does not pass; the verdict is
overridden to "no" (a retry, or the target company's chunks only) and `verification` records it
(`overridden: true`, `llm_verdict` with the model's own answer).
"""
from __future__ import annotations

from typing import Any, Literal, Mapping, cast

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel

from finrag.nodes.common import configuration, registry_of, timed
from finrag.state.configuration import Configuration
from finrag.state.contract import NO_RETRIEVAL_STATUSES, Verification
from finrag.state.graph_state import ChunkRecord, FinragState, LLMCallRecord, VerificationRecord
from finrag.state.schema import ExtractedMetadata, LLMReason
from finrag.tools.answering.extractive import context_label
from finrag.tools.llm.calls import try_structured
from finrag.tools.llm.chat import get_chat_model


def verification_record(*, belongs: bool, reason: str, anchor: str, retry: bool, attempt: int,
                        unverified_dropped: int | None = None, llm_verdict: dict | None = None,
                        overridden_attempts: list[int] | None = None) -> VerificationRecord:
    """The state's `verification`: a `Verification` without `retries` (`to_contract` adds the run's count);
    `llm_verdict` (the model's verdict when the chunks' owners overrode it) adds `overridden: true` and it,
    `overridden_attempts` (when any) the attempts of the run whose LLM verdict was overridden."""
    extra: dict = {"overridden": True, "llm_verdict": llm_verdict} if llm_verdict is not None else {}
    if overridden_attempts:
        extra["overridden_attempts"] = list(overridden_attempts)
    return cast(VerificationRecord, Verification(
        belongs=belongs, reason=reason, anchor=anchor, retry=retry, attempt=attempt, retries=0,
        unverified_dropped=unverified_dropped, **extra).model_dump(exclude={"retries"}))


class Judgement(BaseModel):
    """A verdict on the top chunks: do they belong to the target company, and why. The registry's own verdict
    keeps its reason whole (it names every other filing); only an LLM's reply is bounded (`Verdict`)."""

    belongs: bool
    reason: str = ""


class Verdict(Judgement):
    """What an LLM verifier returns (its structured-output schema, named so to the server)."""

    reason: LLMReason = ""  # bounded in the schema: the reply ends inside the verifier's limit


def target_companies(registry, extracted: Mapping[str, Any], question: str, default_year: int,
                     res=None) -> tuple[set[str], str]:
    """Company keys the question is about, and the ticker (or name) to anchor a retry on."""
    if res is None:
        res = registry.resolve(ExtractedMetadata.model_validate(extracted or {}), question=question,
                               default_year=default_year)
    keys, anchor = set(), ""
    for doc_id in res.doc_ids:
        info = registry.get(doc_id)
        if info is None:
            continue
        keys.add(info.company_key)
        anchor = anchor or (info.tickers[0] if info.tickers else info.company or info.company_key)
    if not keys:
        ex = extracted or {}
        anchor = (ex.get("tickers") or ex.get("companies") or [""])[0]
    return keys, anchor


def owners_verdict(registry, top: list[ChunkRecord], targets: set[str]) -> Judgement:
    """The registry's verdict: do all `top` chunks come from filings of the `targets` companies?"""
    owners = [(known.company_key if (known := registry.get(c["doc_id"])) else "?") for c in top]
    wrong = [c["doc_id"] for c, o in zip(top, owners) if o not in targets]
    return Judgement(belongs=not wrong,
                   reason="all top chunks from the target company" if not wrong
                   else f"chunks from other filings: {', '.join(dict.fromkeys(wrong))}")


def checked(judged: Judgement, owners: Judgement, targets: set[str]) -> tuple[Judgement, dict | None]:
    """The LLM's verdict checked against the chunks' owners: a "belongs" for another company's chunks is
    overridden (the owners' "no", with the model's verdict returned for the record); else kept, None."""
    if not (judged.belongs and targets and not owners.belongs):
        return judged, None
    reason = f"the verifier said the chunks belong, but the registry disagrees: {owners.reason}"
    return Judgement(belongs=False, reason=reason), judged.model_dump()


@timed("verify")
def verify(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """Judge whether the top three `reranked` chunks come from the target company; set `verification`
    (with `retry` when another anchored attempt is allowed) and count `retries`."""
    cfg = configuration(runtime)
    registry = registry_of(cfg)
    retries = int(state.get("retries") or 0)
    top = (state.get("reranked") or [])[:3]
    res = registry.resolve(ExtractedMetadata.model_validate(state.get("extracted") or {}),
                           question=state.get("question", ""), default_year=cfg.default_year)
    targets, anchor = target_companies(registry, state.get("extracted") or {}, state.get("question", ""),
                                       cfg.default_year, res=res)
    calls: list[LLMCallRecord] = []
    llm_verdict: dict | None = None
    if res.status in NO_RETRIEVAL_STATUSES:
        anchor = ", ".join(res.missing) or anchor
        verification = verification_record(belongs=False, reason=res.reason, anchor=anchor, retry=False,
                                           attempt=retries + 1)
        return {"verification": verification, "retries": retries, "llm_calls": calls,
                "routing_status": res.status, "routing_reason": res.reason}
    if not targets and not anchor:
        verdict: Judgement = Judgement(belongs=True, reason="no target company in the question; nothing to verify")
    elif not top:
        verdict = Judgement(belongs=False, reason="no chunks retrieved")
    else:
        model = get_chat_model("verifier", cfg)
        judged: Verdict | None = None
        if model is not None:
            passages = "\n\n".join(f"{context_label(cast(dict, c))}\n{c['text'][:1500]}" for c in top)
            msg = f"Target company: {anchor}\nQuestion: {state.get('question', '')}\n\nPassages:\n{passages}"
            judged, rec = try_structured("verifier", model, Verdict, [SystemMessage(cfg.verify_prompt), HumanMessage(msg)])
            calls.append(cast(LLMCallRecord, rec))  # `try_structured` builds a call record
        owners = owners_verdict(registry, top, targets)
        verdict, llm_verdict = (owners, None) if judged is None else checked(judged, owners, targets)
    retry = (not verdict.belongs) and retries < cfg.max_retries
    overridden = [int(a) for a in (state.get("verification") or {}).get("overridden_attempts") or []
                  if retries] + ([retries + 1] if llm_verdict is not None else [])
    kept: list[ChunkRecord] | None = None
    dropped: int | None = None
    if not verdict.belongs and not retry and targets:
        # the last attempt still failed: generate from the target company's chunks only (the registry says
        # whose each chunk is), or from none, never from the other companies' chunks that failed the check
        reranked = state.get("reranked") or []
        kept = [c for c in reranked if (info := registry.get(c["doc_id"])) is not None and info.company_key in targets]
        dropped = len(reranked) - len(kept)
    update: dict = {"verification": verification_record(belongs=verdict.belongs, reason=verdict.reason, anchor=anchor,
                                                        retry=retry, attempt=retries + 1, unverified_dropped=dropped,
                                                        llm_verdict=llm_verdict, overridden_attempts=overridden),
                    "retries": retries + 1 if retry else retries, "llm_calls": calls}
    if kept is not None:
        update["reranked"] = kept
    return update


def route_after_verify(state: FinragState) -> Literal["rewrite", "generate"]:
    """Conditional edge: retry CBR with the anchored prefix, or generate."""
    return "rewrite" if (state.get("verification") or {}).get("retry") else "generate"
