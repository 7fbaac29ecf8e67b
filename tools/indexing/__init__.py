"""finrag.tools.indexing = `tools/indexing/`: files -> pages -> chunks -> vectors -> the index.

(a file's pages come from `finrag.tools.documents`) chunking.py (chunks with page spans, embedding segments),
embedders.py (the static default, MiniLM, OpenAI; minilm_onnx.py and minilm_numpy.py embed queries without torch), store.py (SQLite
source of truth; its search half in store_search.py, BM25 postings in lexical.py and lexical_runs.py, the memory-mapped vector
files and the optional approximate index in vectors.py), indexer.py (the incremental `finrag index`
pipeline: text first, vectors after), variants.py (the V-A / V-B chunk prefixes).
backend.py: open an index wherever it lives.
check.py: `finrag index --check`.
chunk_text.py: a chunk's text, stored once as a span of its document's page text, and the FTS5 rows written with it.
embed_threads.py: how many threads document embedding may use on the CPU (one rule for every embedder).
facts_store.py: inline-XBRL facts in the SQLite store.
lexical_blocks.py: corpus-wide BM25 top k by block-max pruning over memory-mapped run files.
lexical_search.py: bM25 search over the index's postings.
locking.py: the index's two locks.
minilm_weights.py: where the bundled all-MiniLM-L6-v2 weights lie (both embedders start from them).
open_index.py: the per-process open index and its registry.
read_cache.py: what a serving process reads again and again from one index, remembered until the index changes.
sections.py: sections of a filing.
sections_store.py: section labels per chunk.
static_distill.py: the static embedder's table distilled from MiniLM in NumPy (model2vec's recipe, no torch).
static_embedder.py: static embedder.
static_encode.py: the static embedder's encoding (model2vec's `StaticModel.encode`) with the tokenizer's work done
    once per word.
store_read.py: the Store's reading side.
store_schema.py: the embedded index's database.
store_write.py: the Store's writing side.
"""
