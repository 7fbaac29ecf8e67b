"""finrag.tools = the folder `tools/`: the machinery nodes call (not LLM "tools" in LangGraph's sense).

One subpackage per concern; each `finrag.tools.<sub>.<module>` is the file `tools/<sub>/<module>.py`:

* `indexing/`  parse files, chunk, embed, store (SQLite + FTS5 + FAISS), build index variants
* `routing/`   the document registry and the question linker (which filing a question is about)
* `retrieval/` query-time helpers: offline query rewriting, vocabulary, rerankers and the adaptive cutoff
* `answering/` offline answer strategies (the extractive generator)
* `llm/`       chat models per role, the one place LLM calls are made and counted, token counting
* `demo/`      the generated demo corpus (companies and numbers as data files)
* `runtime.py` process-wide handles: the open index and its registry, shared by requests
"""
