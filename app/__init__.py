"""finrag = the folder `app/`: question answering over large collections of SEC filings.

The package root holds the public API (api.py), the CLI (cli.py) and the server (server.py); the
other top-level folders are its subpackages (`finrag.graphs` = `graphs/`, `finrag.tools` = `tools/`, ...).

    from finrag import run_query, SYSTEMS
    from finrag.graphs import hdrr          # hdrr.graph is the compiled LangGraph graph
"""
from finrag.api import QuestionError, run_query, to_contract, validate_question
from finrag.graphs import SYSTEMS, get_graph
from finrag.tools.retrieval.langchain_retriever import FinragRetriever, retriever

__all__ = ["SYSTEMS", "FinragRetriever", "QuestionError", "get_graph", "retriever", "run_query", "to_contract",
           "validate_question"]
__version__ = "0.1.0"
