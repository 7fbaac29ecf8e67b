"""extract_metadata: the document identity a question asks about.

The registry linker (company names, derived short names, tickers scored by context, ticker history,
company-like names the index does not hold, fiscal periods, forms, dates) always runs; every
candidate carries a confidence and its reason (`extracted.candidates`). With an LLM configured for
the `router` role, one structured call adjudicates the linker's candidates (it may drop them, and it
may only name documents the registry holds) and, with `router_rewrite` on (the default), also writes
the search query and keywords, so HDRR needs 2 LLM calls instead of 3 (the `rewrite` node then makes
none on the first attempt). Nothing the LLM says reaches the file system unchecked.
"""
from __future__ import annotations

from typing import Any, Literal, Mapping

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, question_facts, registry_of, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.state.schema import ExtractedMetadata, RouteAndRewrite, RouterOutput
from finrag.tools.llm.calls import try_structured
from finrag.tools.llm.chat import get_chat_model
from finrag.tools.routing.mentions import ACCEPT


def merge_extracted(linked: ExtractedMetadata, llm: RouterOutput | ExtractedMetadata | None,
                    registry) -> ExtractedMetadata:
    """The linker's extraction adjudicated by the LLM router (see `Registry.merge_llm`)."""
    return registry.merge_llm(linked, llm)


@timed("extract_metadata")
def extract_metadata(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """Find the companies, tickers, years, periods, forms and dates the question names (`extracted`, and the
    question's one reading, `question_facts`); with the merged router + rewriter call, also `query` and
    `keywords` (and `query_from_router`)."""
    cfg = configuration(runtime)
    registry = registry_of(cfg)
    question = state.get("question", "")
    facts = question_facts(state)  # the question's one reading, for every node after this one
    linked = registry.link(question, facts)
    model = get_chat_model("router", cfg)
    update: dict = {"llm_calls": [], "query_from_router": False, "question_facts": facts}
    llm_out = None
    if model is not None:
        merged_call = cfg.router_rewrite
        schema = RouteAndRewrite if merged_call else RouterOutput
        prompt = cfg.router_rewrite_prompt if merged_call else cfg.router_prompt
        system = f"{prompt}\n\n{registry.describe_candidates(linked)}"
        llm_out, rec = try_structured("router", model, schema, [SystemMessage(system), HumanMessage(question)])
        update["llm_calls"].append(rec)  # on failure the linker's answer stands (and `rewrite` calls its LLM)
        if merged_call and isinstance(llm_out, RouteAndRewrite) and (llm_out.query or "").strip():
            update["query"] = llm_out.query.strip()
            update["keywords"] = [str(k) for k in llm_out.keywords if str(k).strip()]
            update["query_from_router"] = True  # the first `rewrite` keeps them and makes no call
    update["extracted"] = merge_extracted(linked, llm_out, registry).model_dump()
    return update


def names_only_missing_companies(extracted: Mapping[str, Any]) -> bool:
    """True when the question names companies, none of which the index holds (nothing to retrieve)."""
    ex = extracted or {}
    indexed = any(c.get("in_index") and float(c.get("confidence") or 0) >= ACCEPT for c in ex.get("candidates") or [])
    return bool(ex.get("not_indexed")) and not indexed and not ex.get("documents")


def route_after_extract(state: FinragState) -> Literal["verify", "rewrite"]:
    """Agentic's conditional edge: a question about a company the index does not hold skips retrieval and
    goes to `verify` (which fails it and says why); anything else goes to `rewrite`."""
    return "verify" if names_only_missing_companies(state.get("extracted") or {}) else "rewrite"
