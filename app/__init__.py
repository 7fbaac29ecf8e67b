"""finrag = the folder `app/`: question answering over large collections of SEC filings.

The package root holds the public API (api.py), the CLI (cli/) and the server (server.py); the
other top-level folders are its subpackages (`finrag.graphs` = `graphs/`, `finrag.tools` = `tools/`, ...).

    from finrag import run_query, SYSTEMS
    from finrag.graphs import hdrr          # hdrr.graph is the compiled LangGraph graph

Python API (app/api.py, app/loader.py): `run_query` / `arun_query` (an `Answer`), `stream_answer` /
`astream_answer` (answer text pieces, then the `Answer`), `index` (index files), `FinragLoader` (a filing's
pages as LangChain documents), `retriever` / `FinragRetriever` (a LangChain retriever). Typed (py.typed).
"""
from finrag.api import (
    QuestionError,
    arun_query,
    astream_answer,
    run_query,
    stream_answer,
    to_contract,
    validate_question,
)
from finrag.graphs import SYSTEMS, get_graph
from finrag.state.contract import Answer

_LAZY = {"FinragRetriever": "finrag.langchain_retriever",
         "retriever": "finrag.langchain_retriever",
         "FinragLoader": "finrag.loader", "index": "finrag.loader"}
"""Names loaded on first use only (a one-shot `finrag ask` never needs LangChain's retriever or loader)."""


def __getattr__(name: str):
    """`finrag.retriever`, `finrag.FinragRetriever`, `finrag.index` and `finrag.FinragLoader`, loaded on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'finrag' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the lazily loaded ones included (so `dir(finrag)` lists all of `__all__`)."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["SYSTEMS", "Answer", "FinragLoader", "FinragRetriever", "QuestionError", "__version__", "arun_query",
           "astream_answer", "get_graph", "index", "retriever", "run_query", "stream_answer", "to_contract",
           "validate_question"]
__version__ = "0.1.0"
