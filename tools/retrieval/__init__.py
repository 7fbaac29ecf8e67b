"""finrag.tools.retrieval = `tools/retrieval/`: query-time retrieval helpers the nodes call.

Offline query rewriting, the shared vocabulary (stop words, stemming, keyword coverage), rerankers
(one file per implementation over a base type) and the paper's adaptive cutoff.
context_budget.py: the context of a routed filing.
form_evidence.py: the routed filing's sentences that state a count, date or name on the question's topic.
model_window.py: the model's window respected.
query_rewrite.py: the offline query rewriter.
query_vectors.py: the query's vector, embedded once per request.
question_search.py: the question always searched.
text_memo.py: a value computed from a text, remembered by the text.
"""
