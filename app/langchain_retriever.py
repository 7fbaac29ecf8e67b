"""finrag's retrieval as a LangChain retriever: routing + scoped hybrid search + RRF + rerank + cutoff.

    from finrag import retriever
    r = retriever(system="hdrr", index=".finrag")          # or index="milvus:/data/finrag.db"
    docs = r.invoke("What was 3M's FY2018 capital expenditure?")
    docs[0].metadata  # {'doc_id', 'chunk_id', 'pages', 'page_start', 'page_end', 'score', 'routing': {...}}
    r.invoke(question, k=3)                                 # the 3 best reranked chunks
    await r.ainvoke(question)                               # the graph's own async path (`astream`)

The retriever runs the system's own graph (the same nodes as `finrag ask`) and stops once the context
is chosen (after `rerank`), so no answer is generated and no generator model is called; a question the
routing ends (e.g. a company the index does not hold) returns no documents, and every document carries
the routing that chose it (`routing.status`, `routing.reason`, `routing.routed_docs`). Any index works:
a directory (embedded backend) or a `milvus:` location.

`k` (constructor or per call): without it the system's adaptive cutoff decides how many chunks are returned
(at most `max_chunks`, 10); with it the retriever returns the `k` best reranked chunks (fewer only when the
search found fewer), the cutoff's share and cliff rules off. The retriever's callbacks, tags and metadata
go into the graph run, so its node runs (and any LLM call) nest under the retriever run in a trace.
"""
from __future__ import annotations

from typing import Any, Optional

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from finrag.api import run_configuration, validate_question
from finrag.graphs import get_graph
from finrag.state.configuration import Configuration
from finrag.state.systems import DEFAULT_SYSTEM, names

RETRIEVER_SYSTEMS = names(retriever=True)
"""Systems whose context is a reranked chunk list (the registry's `retriever` flag: SFR reads whole filings;
Agentic verifies and retries)."""

CALL_ARGUMENTS = ("k",)
"""Keyword arguments `invoke`/`ainvoke` take (besides LangChain's own `run_id` and `verbose`)."""

_NO_CUTOFF = {"rerank_cumulative": 2.0, "rerank_cliff": float("inf"), "routed_rerank_cliff": float("inf")}


def _check_k(k: Any) -> Optional[int]:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    return k


class FinragRetriever(BaseRetriever):
    """A LangChain `BaseRetriever` over a finrag index, using one of finrag's retrieval systems."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    system: str = DEFAULT_SYSTEM
    """One of RETRIEVER_SYSTEMS."""
    index: Optional[str] = None
    """The index: a directory or a `milvus:` location (default $FINRAG_HOME, else ./.finrag)."""
    k: Optional[int] = None
    """How many documents to return: None = the adaptive cutoff's chunks; N = the N best reranked chunks."""
    configurable: dict[str, Any] = Field(default_factory=dict)
    """Configuration fields for the runs (`finrag.state.configuration.Configuration`)."""

    def __init__(self, **data: Any) -> None:
        """Like any pydantic model, except that an unknown argument or system is one clear error."""
        unknown = sorted(set(data) - set(type(self).model_fields))
        if unknown:
            raise TypeError(f"FinragRetriever got unknown argument(s): {', '.join(unknown)}; it takes "
                            f"{', '.join(sorted(type(self).model_fields))}")
        system = data.get("system", DEFAULT_SYSTEM)
        if system not in RETRIEVER_SYSTEMS:
            raise ValueError(f"finrag.retriever supports the systems {', '.join(RETRIEVER_SYSTEMS)}, "
                             f"not {system!r}")
        _check_k(data.get("k"))
        super().__init__(**data)

    def _configuration(self, k: Optional[int]):
        values = dict(self.configurable)
        if k is not None:
            values.update(_NO_CUTOFF, max_chunks=k)
        return run_configuration(values, index_dir=self.index)

    def _prepare(self, query: str, kwargs: dict) -> tuple[Any, str, Optional[int]]:
        kwargs.pop("verbose", None)  # LangChain's own: BaseRetriever.invoke reads it and passes it on
        unknown = sorted(set(kwargs) - set(CALL_ARGUMENTS))
        if unknown:
            raise TypeError(f"FinragRetriever.invoke got unknown argument(s): {', '.join(unknown)}; it takes "
                            f"{', '.join(CALL_ARGUMENTS)}")
        k = _check_k(kwargs.get("k", self.k))
        cfg = self._configuration(k)
        return cfg, validate_question(query, cfg.max_question_chars), k

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        """The system's context for `query`: its graph run up to `rerank`, nested under this retriever run."""
        cfg, question, k = self._prepare(query, kwargs)
        state: dict[str, Any] = {"question": question}
        stream = get_graph(self.system).stream({"question": question}, {"callbacks": run_manager.get_child()},
                                               context=cfg, stream_mode="updates")
        try:
            for step in stream:
                if self._absorb(state, step):
                    return self._documents(state, k)
        finally:
            stream.close()
        return []

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> list[Document]:
        """As `_get_relevant_documents`, on the graph's async path (`astream`), no thread around the run."""
        cfg, question, k = self._prepare(query, kwargs)
        state: dict[str, Any] = {"question": question}
        stream = get_graph(self.system).astream({"question": question}, {"callbacks": run_manager.get_child()},
                                                context=cfg, stream_mode="updates")
        try:
            async for step in stream:
                if self._absorb(state, step):
                    return self._documents(state, k)
        finally:
            await stream.aclose()
        return []

    @staticmethod
    def _absorb(state: dict, step: dict) -> bool:
        """Add one step's updates to `state`; True once the context is chosen (rerank ran)."""
        for node, update in step.items():
            state.update(update or {})
            if node == "rerank":
                return True
        return False

    def _documents(self, state: dict, k: Optional[int] = None) -> list[Document]:
        routing = {k: state.get(k) for k in ("routing_status", "routing_reason", "routed_docs") if k in state}
        routing = {name.removeprefix("routing_"): v for name, v in routing.items()}
        chunks = list(state.get("reranked") or [])
        if k is not None:  # several routed filings each keep a share of at least one: the best k overall
            chunks = sorted(chunks, key=lambda c: -float(c.get("rerank_score", c.get("score")) or 0.0))[:k]
        out = []
        for c in chunks:
            pages = list(range(int(c["page_start"]), int(c["page_end"]) + 1))
            out.append(Document(page_content=c.get("text", ""), metadata={
                "doc_id": c["doc_id"], "chunk_id": int(c["chunk_id"]), "pages": pages,
                "page_start": int(c["page_start"]), "page_end": int(c["page_end"]),
                "score": float(c.get("score") or 0.0), "system": self.system, "routing": routing}))
        return out


def retriever(system: str = DEFAULT_SYSTEM, index: str | None = None, *, k: int | None = None,
              **configurable: Any) -> FinragRetriever:
    """A LangChain retriever over the finrag index at `index` (a directory or a milvus: location; default
    $FINRAG_HOME, else ./.finrag) with `system`'s retrieval, returning `k` documents (default: the adaptive
    cutoff's); keyword arguments set Configuration fields (an unknown one is an error here, not at the first
    query)."""
    known = set(Configuration.model_fields)
    unknown = sorted(set(configurable) - known)
    if unknown:
        raise TypeError(f"finrag.retriever got unknown argument(s): {', '.join(unknown)}; besides system, index "
                        f"and k it takes Configuration fields ({', '.join(sorted(known))})")
    return FinragRetriever(system=system, index=str(index) if index is not None else None, k=k,
                           configurable=configurable)
