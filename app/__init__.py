"""finrag = the folder `app/`: question answering over large collections of SEC filings.

The package root holds the public API (api.py), the CLI (cli/) and the server (server.py); the
other top-level folders are its subpackages (`finrag.graphs` = `graphs/`, `finrag.tools` = `tools/`, ...).

    from finrag import run_query, SYSTEMS
    from finrag.graphs import hdrr          # hdrr.graph is the compiled LangGraph graph

Python API (app/api.py, app/loader.py): `run_query` / `arun_query` (an `Answer`), `stream_answer` /
`astream_answer` (answer text pieces, then the `Answer`), `index` (index files), `FinragLoader` (a filing's
pages as LangChain documents), `retriever` / `FinragRetriever` (a LangChain retriever). Typed (py.typed).
"""
import importlib
from typing import TYPE_CHECKING

from finrag.state.contract import Answer
from finrag.state.systems import SYSTEMS

if TYPE_CHECKING:  # what the lazy names below are, for type checkers
    from finrag.api import (
        QuestionError,
        arun_query,
        astream_answer,
        run_query,
        stream_answer,
        to_contract,
        validate_question,
    )
    from finrag.graphs import get_graph

_LAZY = {**dict.fromkeys(("QuestionError", "arun_query", "astream_answer", "run_query", "stream_answer",
                          "to_contract", "validate_question"), "finrag.api"),
         "get_graph": "finrag.graphs",
         "FinragRetriever": "finrag.langchain_retriever", "retriever": "finrag.langchain_retriever",
         "FinragLoader": "finrag.loader", "index": "finrag.loader"}
"""Names loaded on first use only: `import finrag` (every `finrag` command, `finrag --help` too) does not import
the API's graphs, nodes and LangChain adapters until one of them is used."""


def __getattr__(name: str):
    """The API's names (`finrag.run_query`, `finrag.retriever`, ...), loaded on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'finrag' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names, the lazily loaded ones included (so `dir(finrag)` lists all of `__all__`)."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["SYSTEMS", "Answer", "FinragLoader", "FinragRetriever", "QuestionError", "__version__", "arun_query",
           "astream_answer", "get_graph", "index", "retriever", "run_query", "stream_answer", "to_contract",
           "validate_question"]
__version__ = "0.1.0"
