"""fts_search: BM25 through the index's `search_fts` (the embedded index scores finrag's own BM25 postings,
per filing for a scoped search and in runs for a corpus-wide one; the V-A/V-B variants and documents indexed
before the postings existed use SQLite FTS5) (top-20 by default; inside routed filings `routed_candidates`, see
`candidates_k`), scoped to routed documents when the graph says so.

A scoped search leaves out the keywords that only name the routed company (`without_company_words`).
The question is always searched: an LLM rewrite's keywords and the question's own offline keywords are two
BM25 searches fused by RRF (`finrag.tools.retrieval.question_search`), so a bad rewrite can only add."""
from __future__ import annotations

from typing import Optional, cast

from langgraph.runtime import Runtime

from finrag.nodes.common import candidates_k, configuration, reader_of, scope_of, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.tools.retrieval.query_rewrite import without_company_words
from finrag.tools.retrieval.question_search import fts_hits, fuse_hit_lists, keyword_texts


@timed("fts_search")
def fts_search(state: FinragState, runtime: Runtime[Configuration], *, variant: str = "base",
               scoped: bool = False) -> dict:
    """BM25 candidates for the keywords (else the query, else the question) and for the question's own
    keywords, fused, into `fts_results`."""
    cfg = configuration(runtime)
    store = reader_of(cfg)
    scope = scope_of(state, scoped)
    question, extracted = state.get("question", ""), cast(Optional[dict], state.get("extracted"))

    def trim(keywords: list[str]) -> list[str]:  # inside the routed filings the company's name is no search term
        return without_company_words(keywords, question, extracted) if scope else keywords

    k = candidates_k(cfg, scope, cfg.fts_k, state)
    lists = [fts_hits(store, text, k=k, doc_ids=scope, variant=variant)
             for text in keyword_texts(state, cfg.retry_prefix, trim)]
    return {"fts_results": fuse_hit_lists(lists, "fts_rank", k=cfg.rrf_k)}
