"""finrag.tools.indexing = `tools/indexing/`: files -> pages -> chunks -> vectors -> the index.

parsing.py (PDF/HTML/text pages), chunking.py (chunks with page spans, embedding segments),
embedders.py (offline MiniLM, OpenAI; minilm_onnx.py and minilm_numpy.py embed queries without torch), store.py (SQLite
source of truth; its search half in store_search.py, BM25 postings in lexical.py and lexical_runs.py, the memory-mapped vector
files and the optional approximate index in vectors.py), indexer.py (the incremental `finrag index`
pipeline: text first, vectors after), variants.py (the V-A / V-B chunk prefixes).
"""
