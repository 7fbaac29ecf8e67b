"""Shared state, schemas and configuration."""
from finrag.state.schema import DocumentInfo, ExtractedMetadata, RetrievedChunk

__all__ = ["DocumentInfo", "ExtractedMetadata", "RetrievedChunk"]
