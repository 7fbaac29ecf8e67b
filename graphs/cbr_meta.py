"""CBR+Meta (V-A): CBR over chunks prefixed `[Company: X, Fiscal Year: Y]` (index variant `meta`)."""
from finrag.graphs.builder import chunk_rag

graph = chunk_rag("cbr_meta", variant="meta")
