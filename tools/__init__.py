"""finrag.tools = the folder `tools/`: the machinery nodes call (not LLM "tools" in LangGraph's sense).

One subpackage per concern; each `finrag.tools.<sub>.<module>` is the file `tools/<sub>/<module>.py`:

Layered, top to bottom (pyproject's "tools/ in layers" contract; docs/architecture.md): conversation and demo >
answering > retrieval > indexing and edgar > routing > question > documents > vocabulary and llm > the leaf modules.

* `documents/` a filing read from its file: PDF/HTML/text pages, inline-XBRL facts, document ids
* `vocabulary/` the words of finance: line items, the metric catalog and its evaluator, statements, months and dates
* `indexing/`  chunk, embed, store (SQLite with finrag's own BM25 postings, memory-mapped NumPy
               vector files, an optional FAISS IVF/HNSW index), build index variants; `open_index.py` holds
               the process-wide handles (the cached open index and its registry)
* `routing/`   the document registry and the question linker (which filing a question is about)
* `retrieval/` query-time helpers: offline query rewriting, vocabulary, rerankers and the adaptive cutoff
* `answering/` offline answer strategies (the statement reader, XBRL facts, the fast path, the extractive generator)
* `edgar/`     filings from SEC EDGAR for `finrag fetch` (tickers -> CIKs -> filings -> files with identity sidecars)
* `llm/`       chat models per role, the one place LLM calls are made and counted, token counting
* `demo/`      the generated demo corpus (companies and numbers as data files)
* `question/`  the question read once (`read_question` -> `finrag.state.question.QuestionFacts`)
"""
