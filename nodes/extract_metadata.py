"""extract_metadata: the document identity a question asks about.

The registry linker (company names, tickers, aliases, ticker history, fiscal
periods, forms, dates) always runs. With an LLM configured for the `router`
role, structured output adds what the linker missed; LLM values are only kept
if the registry knows them, so nothing extracted reaches the file system
unchecked.
"""
from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.state.schema import ExtractedMetadata
from finrag.tools.llm.calls import try_structured
from finrag.tools.llm.chat import get_chat_model
from finrag.tools.runtime import get_registry, get_store


def merge_extracted(linked: ExtractedMetadata, llm: ExtractedMetadata | None, registry) -> ExtractedMetadata:
    """The linker's extraction plus what the LLM router found that the registry recognises."""
    if llm is None:
        return linked
    out = linked.model_copy(deep=True)
    known = registry.link(" ; ".join(llm.companies + llm.tickers)) if (llm.companies or llm.tickers) else None
    for field in ("companies", "tickers"):
        extra = getattr(known, field) if known else []
        setattr(out, field, list(dict.fromkeys(getattr(out, field) + extra)))
    out.years = sorted(set(out.years) | {y for y in llm.years if 1990 <= int(y) <= 2100})
    for field in ("periods", "forms", "dates"):
        setattr(out, field, list(dict.fromkeys(getattr(out, field) + [str(v) for v in getattr(llm, field)])))
    return out


@timed("extract_metadata")
def extract_metadata(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """Find the companies, tickers, years, periods, forms and dates the question names (`extracted`)."""
    cfg = configuration(runtime)
    registry = get_registry(get_store(cfg), cfg.alias_file)
    question = state.get("question", "")
    linked = registry.link(question)
    model = get_chat_model("router", cfg)
    calls = []
    llm_out = None
    if model is not None:
        llm_out, rec = try_structured("router", model, ExtractedMetadata,
                                      [SystemMessage(cfg.router_prompt), HumanMessage(question)])
        calls.append(rec)  # on failure the linker's answer stands
    merged = merge_extracted(linked, llm_out, registry)
    return {"extracted": merged.model_dump(), "llm_calls": calls}
