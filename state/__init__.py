"""finrag.state = the folder `state/`: the shared graph state, schemas, run configuration and prompts.

graph_state.py (FinragState, InputState, OutputState), schema.py (ExtractedMetadata, DocumentInfo,
RetrievedChunk), facts.py (Fact, FactSource: the evidence sources' typed facts), configuration.py (Configuration, the run context of every graph), prompts.py.
"""
from finrag.state.schema import DocumentInfo, ExtractedMetadata, RetrievedChunk

__all__ = ["DocumentInfo", "ExtractedMetadata", "RetrievedChunk"]
