"""finrag's benchmarks: the scripts behind the numbers in README.md and docs/ (not run by the test command).

Run each from the repository root as a module, `python -m bench.<name> --help`; question sets are JSONL under
bench/data/ (their provenance in bench/data/README.md). What each script measures:

Answers and questions
- analyst_questions: generated analyst questions (segments, changes, margins, cover facts) on the EDGAR filings.
- analyst_fresh: the hand-written analyst sets (`--set`: analyst_fresh, analyst_blind, analyst_blind2..5).
- analyst_answers: every answer of the analyst blind sets 1-5, to compare two versions answer by answer.
- edgar_real: routing, evidence and exact values on the real EDGAR inline-XBRL filings.
- defined_blind: issue 47's blind sets, metrics the question defines or composes, judged on the first sentence.
- defined_blind47_gold: computes those sets' gold from the filings' inline XBRL (writes bench/data/defined_blind47*.jsonl).
- defined_perturb: mechanical paraphrases of the defined sets (gold unchanged), rates per transform family.
- prose_blind: prose questions written blind (counts, dates, names, drivers), gold facts in the first sentence.
- fallback_blind: questions about companies the index does not hold: no other company's figure as the answer.
- conversations: follow-up questions on LangGraph threads (period and company changes), resolved and answered.
- reader_tables: statement cells read by finrag's table reader against PyMuPDF's and pymupdf4llm's tables.
- sections: section detection against hand-labelled filings (precision and recall per section key).
- stub_fast_path: HDRR's statement-reader fast path with an LLM: the generator calls it saves.
- local_llm: every LLM path against a real local OpenAI-compatible server (llama.cpp, Gemma 3 270M).

Retrieval and routing
- routing_bench: the offline linker + resolver on the open-world development set (410 companies).
- routing_scale: the same as the registry grows to every SEC registrant.
- routing_calibration: a reliability table of the linker's confidence on labelled routing sets (issue 48).
- routing_perturb: the labelled routing queries rewritten one way each (ticker, lower case, name, position, words
  around it), gold unchanged: robustness per family (issue 48).
- bm25_baselines: plain BM25 top-k (whole store and scoped to the gold filing), evidence-page recall.
- scale: retrieval cost at 1x, 10x, 100x copies of a real index.
- bm25_scale: corpus-wide BM25 alone as the corpus grows: the pruned search against the exhaustive scorer.
- milvus_bm25: per question, where the embedded backend's and Milvus' BM25 and vector search differ.
- milvus_parity: Milvus against the embedded backend on the same eval runs: routing, evidence, latency.
- diff_batches: two `finrag batch` outputs compared (routing, contexts, answers, or the whole contract).

Indexing and embedding
- index_bench: indexing a folder, each stage's wall and CPU time, then the re-run.
- index_diff: two indexes compared row for row (documents, pages, chunks, vectors, facts, postings).
- index_ab: two indexes of the same filings asked the same questions: latency per system, answers that differ.
- embed_pass: time to answerable, a question answered during the embed pass, the pass's speed.
- embedders: the embedders side by side (distillation, encoder speed, index wall time, evidence).

Serving, latency and robustness
- request_cpu: CPU and wall time of one HDRR request, per node and per question kind.
- latency_budget: HDRR retrieval's p50 against a baseline commit (fails past the 20% budget).
- latency_floor: what a question costs before retrieval (LangGraph's overhead, the query embedding).
- load_test: a bounded load test of `finrag serve` on loopback (N requests, C at a time).
- load_serving: that load test of this code against an older checkout, alternated on one machine.
- web_page: the answer page's answer and cited-page times on `finrag serve`.
- open_files: open files and memory of a long `finrag batch` under a low open-file limit.
- fault_injection: kill -9, races, a full disk, a damaged database: nothing inconsistent or lost.
- live_server_faults: fault_injection's live-server scenario (filings changed while the server answers).
- round4_faults: fault_injection's issue-49 faults (open-file limit, a filing swapped, the thread store deleted).

Code structure
- imports_count: function-local finrag imports (with their reasons) and the imports between tools/ subpackages.

Shared modules (not run on their own)
- analyst_common: reading a filing's inline XBRL with members and row labels; one question row.
- analyst_dated, analyst_ranking: analyst_questions' dated-change and ranking classes.
- analyst_judge: the analyst benchmarks' judge (the gold stated, or another measure instead).
- analyst_fb: FinanceBench dev questions by analyst class.
- defined_blind47_xbrl: a minimal inline-XBRL fact reader for defined_blind47_gold.

Scripts that served one past change were removed (issue 52); their results stay in docs/, and each can be read
at the commit before: `git show 0faba06:bench/<name>` (seams_counts.py, load_oldnew.sh, six_batches.sh,
embed_throughput.py, registry_build.py, wrong_docs_by_routing.py; analyst_answers.py is back, reading bench/data/).
"""
