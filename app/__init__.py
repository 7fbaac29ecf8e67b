"""finrag = the folder `app/`: question answering over large collections of SEC filings.

The package root holds the public API (api.py), the CLI (cli.py) and the server (server.py); the
other top-level folders are its subpackages (`finrag.graphs` = `graphs/`, `finrag.tools` = `tools/`, ...).

    from finrag import run_query, SYSTEMS
    from finrag.graphs import hdrr          # hdrr.graph is the compiled LangGraph graph
"""
from finrag.api import QuestionError, run_query, to_contract, validate_question
from finrag.graphs import SYSTEMS, get_graph


def __getattr__(name: str):
    """`finrag.retriever` and `finrag.FinragRetriever` load LangChain's retriever classes on first use only
    (a one-shot `finrag ask` never needs them)."""
    if name in ("FinragRetriever", "retriever"):
        from finrag.tools.retrieval import langchain_retriever

        return getattr(langchain_retriever, name)
    raise AttributeError(f"module 'finrag' has no attribute {name!r}")


__all__ = ["SYSTEMS", "FinragRetriever", "QuestionError", "get_graph", "retriever", "run_query", "to_contract",
           "validate_question"]
__version__ = "0.1.0"
