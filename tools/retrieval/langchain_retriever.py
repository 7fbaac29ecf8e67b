"""finrag's retrieval as a LangChain retriever: routing + scoped hybrid search + RRF + rerank + cutoff.

    from finrag import retriever
    r = retriever(system="hdrr", index=".finrag")          # or index="milvus:/data/finrag.db"
    docs = r.invoke("What was 3M's FY2018 capital expenditure?")
    docs[0].metadata  # {'doc_id', 'chunk_id', 'pages', 'page_start', 'page_end', 'score', 'routing': {...}}

The retriever runs the system's own graph (the same nodes as `finrag ask`) and stops once the context
is chosen (after `rerank`), so no answer is generated and no generator model is called; a question the
routing ends (e.g. a company the index does not hold) returns no documents, and every document carries
the routing that chose it (`routing.status`, `routing.reason`, `routing.routed_docs`). Any index works:
a directory (embedded backend) or a `milvus:` location.
"""
from __future__ import annotations

from typing import Any, Optional

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

RETRIEVER_SYSTEMS = ("hdrr", "cbr", "cbr_meta", "cbr_llm_ctx")
"""Systems whose context is a reranked chunk list (SFR reads whole filings; Agentic verifies and retries)."""


class FinragRetriever(BaseRetriever):
    """A LangChain `BaseRetriever` over a finrag index, using one of finrag's retrieval systems."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    system: str = "hdrr"
    index: Optional[str] = None
    configurable: dict[str, Any] = Field(default_factory=dict)

    def _configuration(self):
        from finrag.api import run_configuration

        return run_configuration(self.configurable, index_dir=self.index)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        from finrag.api import validate_question
        from finrag.graphs import get_graph

        if self.system not in RETRIEVER_SYSTEMS:
            raise ValueError(f"finrag.retriever supports the systems {', '.join(RETRIEVER_SYSTEMS)}, "
                             f"not {self.system!r}")
        cfg = self._configuration()
        question = validate_question(query, int(cfg.max_question_chars))
        state: dict[str, Any] = {"question": question}
        for step in get_graph(self.system).stream({"question": question}, context=cfg, stream_mode="updates"):
            for node, update in step.items():
                state.update(update or {})
                if node == "rerank":
                    return self._documents(state)
            if "generate" in step:  # the graph answered without retrieving (routing ended the run)
                break
        return []

    def _documents(self, state: dict) -> list[Document]:
        routing = {k: state.get(k) for k in ("routing_status", "routing_reason", "routed_docs") if k in state}
        routing = {k.removeprefix("routing_"): v for k, v in routing.items()}
        out = []
        for c in state.get("reranked") or []:
            pages = list(range(int(c["page_start"]), int(c["page_end"]) + 1))
            out.append(Document(page_content=c.get("text", ""), metadata={
                "doc_id": c["doc_id"], "chunk_id": int(c["chunk_id"]), "pages": pages,
                "page_start": int(c["page_start"]), "page_end": int(c["page_end"]),
                "score": float(c.get("score") or 0.0), "system": self.system, "routing": routing}))
        return out


def retriever(system: str = "hdrr", index: str | None = None, **configurable: Any) -> FinragRetriever:
    """A LangChain retriever over the finrag index at `index` (a directory or a milvus: location; default
    $FINRAG_HOME, else ./.finrag) with `system`'s retrieval; keyword arguments set Configuration fields."""
    if system not in RETRIEVER_SYSTEMS:
        raise ValueError(f"finrag.retriever supports the systems {', '.join(RETRIEVER_SYSTEMS)}, not {system!r}")
    return FinragRetriever(system=system, index=str(index) if index is not None else None, configurable=configurable)
