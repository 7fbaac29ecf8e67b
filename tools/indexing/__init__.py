"""finrag.tools.indexing = `tools/indexing/`: files -> pages -> chunks -> vectors -> the index.

parsing.py (PDF/HTML/text pages), chunking.py (chunks with page spans, embedding segments),
embedders.py (offline MiniLM, OpenAI), store.py (SQLite source of truth + derived FAISS files),
indexer.py (the incremental `finrag index` pipeline), variants.py (the V-A / V-B chunk prefixes).
"""
