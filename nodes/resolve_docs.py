"""resolve_docs: turn the extracted identity into documents of the index.

Only document ids that exist in the registry can be returned; the status says
how the route was found (`exact_path`, `filename_fallback`, `default_year`,
`multi_doc`) or why there is none (`fallback_no_tickers`,
`fallback_no_files_on_disk`), in which case retrieval uses the full corpus.
"""
from __future__ import annotations

from langgraph.runtime import Runtime

from finrag.nodes.common import configuration, timed
from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.state.schema import ExtractedMetadata
from finrag.tools.runtime import get_registry, get_store


@timed("resolve_docs")
def resolve_docs(state: FinragState, runtime: Runtime[Configuration]) -> dict:
    """Route `extracted` to indexed filings: `routed_docs`, `routing_status`, `routing_reason`."""
    cfg = configuration(runtime)
    registry = get_registry(get_store(cfg), cfg.alias_file)
    extracted = ExtractedMetadata.model_validate(state.get("extracted") or {})
    res = registry.resolve(extracted, question=state.get("question", ""), default_year=int(cfg.default_year))
    docs = [d for d in res.doc_ids if registry.get(d) is not None]
    return {"routed_docs": docs, "routing_status": res.status, "routing_reason": res.reason}
