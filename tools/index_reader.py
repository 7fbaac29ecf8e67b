"""The `IndexReader` Protocol's former home: it lives in `finrag.state.index_reader` (so that
`Configuration.index_reader` is typed with it); these names are re-exported for importers of this path."""
from __future__ import annotations

from finrag.state.index_reader import IndexBackend, IndexLabels, IndexReader, SectionLabels, VectorView

__all__ = ["IndexReader", "IndexLabels", "IndexBackend", "VectorView", "SectionLabels"]
