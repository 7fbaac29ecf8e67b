"""finrag.tools.retrieval = `tools/retrieval/`: query-time retrieval helpers the nodes call.

Offline query rewriting, the shared vocabulary (stop words, stemming, keyword coverage), rerankers
(one file per implementation over a base type) and the paper's adaptive cutoff.
"""
