"""The registry of systems: one entry per retrieval system, read by every place that lists them.

The CLI's `--system` choices, the server's routes, the page's system list and notes, the demo, the LangChain
retriever, the evaluation (its order, plots, index costs), the answer contract's descriptions and langgraph.json
(checked by tests/unit/test_systems.py) all come from `REGISTRY`. The graph builders are mapped by name in
`finrag.graphs` (a higher layer: state imports nothing of finrag), and a test checks that the two agree and that
each entry's flags match its graph's nodes. Adding a system is its graph module (`graphs/<name>.py`) plus one entry
here (plus its line in langgraph.json, which a test enforces).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class System:
    """One retrieval system, as its graph (`graphs/<name>.py`) wires it."""

    name: str
    """The system's name: its graph module, its server route (`/<name>/invoke`), `--system <name>`."""
    label: str
    """Its name in tables and plots, e.g. 'CBR+Meta (V-A)'."""
    description: str
    """One line on what its graph does, true to its edges (the page's note, the demo's line)."""
    routes: bool
    """Whether its graph routes the question to filings (`resolve_docs`); the others report `not_routed`."""
    extracts_metadata: bool
    """Whether its graph reads the question's company and period (`extract_metadata`)."""
    retriever: bool
    """Whether its context is a reranked chunk list that `finrag.retriever` can return (its graph ends retrieval at
    `rerank`: not SFR, which reads whole filings, nor Agentic, whose verifier may retry)."""
    variant: Optional[str] = None
    """The index variant its chunk search needs (`finrag index --variant`), None for the base index."""
    variant_llm_calls: bool = False
    """Whether that variant is built with LLM calls (its index cost is counted in the evaluation's cost table)."""
    color: str = "#17becf"
    """Its colour in the evaluation's plots."""


REGISTRY: tuple[System, ...] = (
    System("cbr", "CBR",
           "searches the chunks of all filings (BM25 + vectors, fused, reranked), then answers from the top ones",
           routes=False, extracts_metadata=False, retriever=True, color="#7f7f7f"),
    System("sfr", "SFR",
           "routes the question to its filing (company, fiscal period, form) and reads that whole filing",
           routes=True, extracts_metadata=True, retriever=False, color="#8c564b"),
    System("hdrr", "HDRR",
           "routes the question to its filing first, then searches and reranks the chunks of that filing only",
           routes=True, extracts_metadata=True, retriever=True, color="#d62728"),
    System("cbr_meta", "CBR+Meta (V-A)",
           "CBR over chunks prefixed with their filing's identity ([Company, Fiscal Year])",
           routes=False, extracts_metadata=False, retriever=True, variant="meta", color="#1f77b4"),
    System("cbr_llm_ctx", "CBR+LLM-Ctx (V-B)",
           "CBR over chunks prefixed with a situating context line (offline: company, form, period, section)",
           routes=False, extracts_metadata=False, retriever=True, variant="llmctx", variant_llm_calls=True,
           color="#2ca02c"),
    System("agentic", "Agentic",
           "CBR, then a verifier checks that the top chunks belong to the question's company; on no, retries "
           "the search anchored on it",
           routes=False, extracts_metadata=True, retriever=False, color="#9467bd"),
)
"""Every system, in the order tables, plots and lists show them."""

SYSTEMS: tuple[str, ...] = tuple(s.name for s in REGISTRY)
"""The systems' names, in registry order."""

DEFAULT_SYSTEM = "hdrr"
"""The system `finrag ask`, the page and the retriever use when none is named."""

BY_NAME: dict[str, System] = {s.name: s for s in REGISTRY}


def system(name: str) -> System:
    """The registry entry of `name`; a ValueError naming the systems for an unknown one."""
    if name not in BY_NAME:
        raise ValueError(f"unknown system {name!r}; choose one of: {', '.join(SYSTEMS)}")
    return BY_NAME[name]


def names(*, routes: Optional[bool] = None, extracts_metadata: Optional[bool] = None,
          retriever: Optional[bool] = None) -> tuple[str, ...]:
    """The names of the systems with the given flags (None: either), in registry order."""
    return tuple(s.name for s in REGISTRY
                 if (routes is None or s.routes == routes)
                 and (extracts_metadata is None or s.extracts_metadata == extracts_metadata)
                 and (retriever is None or s.retriever == retriever))


__all__ = ["BY_NAME", "DEFAULT_SYSTEM", "REGISTRY", "SYSTEMS", "System", "names", "system"]
