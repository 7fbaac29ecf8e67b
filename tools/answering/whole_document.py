"""SFR's context: the routed filings page by page, within a token budget."""
from __future__ import annotations

from finrag.state.index_reader import IndexReader
from finrag.tools.llm.tokens import count_tokens


def whole_document_contexts(store: IndexReader, doc_ids: list[str], max_tokens: int) -> list[dict]:
    """One context per page of the routed documents; each document gets an equal share of the budget,
    so a multi-company question is not answered from the first filing alone."""
    out = []
    share = max_tokens // max(1, len(doc_ids))
    for doc_id in doc_ids:
        budget = share
        for page_no, text in enumerate(store.pages_of(doc_id)):
            cost = count_tokens(text)
            if cost > budget:
                break
            budget -= cost
            out.append({"chunk_id": None, "doc_id": doc_id, "page_start": page_no, "page_end": page_no,
                        "score": 1.0, "text": text})
    return out
