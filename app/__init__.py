"""finrag: question answering over large collections of SEC filings.

    from finrag import run_query, SYSTEMS
    from finrag.graphs import hdrr          # hdrr.graph is the compiled LangGraph graph
"""
from finrag.api import QuestionError, run_query, to_contract, validate_question
from finrag.graphs import SYSTEMS, get_graph

__all__ = ["SYSTEMS", "QuestionError", "get_graph", "run_query", "to_contract", "validate_question"]
__version__ = "0.1.0"
