"""Issue 37, the per-request work: every shortcut gives what the plain computation gives.

The open question's ranking read only as far as the budget needs (`LazyRanking`, `ScoreParts`), the chunk stem
filter, the faster word stems, the hits as dicts, the fusion's one copy per hit, the shared query vector: each
is compared here with the computation it replaces, on random data with ties and on a whole graph run.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from support.readers import MemoryReader

from finrag.nodes.rrf import reciprocal_rank_fusion
from finrag.state.configuration import Configuration
from finrag.state.schema import RetrievedChunk
from finrag.tools.retrieval.context_budget import LazyRanking, LazySequence, fill_budget
from finrag.tools.retrieval.query_vectors import query_vector
from finrag.tools.retrieval.question_search import hit_dicts
from finrag.tools.retrieval.rerankers.offline import OfflineReranker, chunk_coverage, table_features
from finrag.tools.retrieval.vocabulary import WORD, KeywordCoverage, _lowered, stem, stem_filter, word_stems
from finrag.tools.vocabulary.statements import statement_intent


def test_a_lazy_ranking_is_the_sorted_order_and_scores_only_what_it_hands_out():
    rng = random.Random(7)
    for trial in range(300):
        n = rng.randint(1, 40)
        scores = [round(rng.random(), 1) for _ in range(n)]  # rounded: many ties
        bounds = [s + rng.choice([0.0, 0.0, round(rng.random(), 1)]) for s in scores]
        items = [{"chunk_id": i} for i in range(n)]
        calls: list[int] = []

        def score(i, scores=scores, calls=calls):
            calls.append(i)
            return scores[i]

        ranking = LazyRanking(items, bounds, score)
        want = sorted(range(n), key=lambda i: -scores[i])  # stable: ties in the given order
        depth = rng.randint(1, n)
        if trial % 3 == 0:  # a candidate scored out of turn (an expansion's neighbour) keeps its place
            ranking.ensure(rng.randrange(n))
        got = [ranking[k]["chunk_id"] for k in range(depth)]
        assert got == want[:depth]
        assert len(calls) == len(set(calls))  # each candidate scored once
        for i in calls:
            assert items[i]["rerank_score"] == scores[i] == items[i]["score"]
        assert [c["chunk_id"] for c in ranking] == want  # read to the end: everything
    # a bound far below the first scores leaves the tail unscored
    calls = []
    ranking = LazyRanking([{"chunk_id": i} for i in range(100)], [1.0] * 5 + [0.1] * 95,
                          lambda i: calls.append(i) or (0.9 if i < 5 else 0.05))
    assert [ranking[k]["chunk_id"] for k in range(5)] == [0, 1, 2, 3, 4]
    assert sorted(calls) == [0, 1, 2, 3, 4]


def _chunks(texts: list[str], scores: list[float]) -> list[dict]:
    return [{"chunk_id": i, "text": t, "rerank_score": s} for i, (t, s) in enumerate(zip(texts, scores))]


def test_the_budget_over_a_lazy_ranking_is_the_budget_over_the_sorted_list():
    rng = random.Random(11)
    for _ in range(200):
        n = rng.randint(1, 30)
        scores = [round(rng.random(), 2) for _ in range(n)]
        texts = ["x" * rng.randint(100, 6000) for _ in range(n)]

        plain = fill_budget(sorted(_chunks(texts, scores), key=lambda c: -c["rerank_score"]), 4000, 0.5)
        items = _chunks(texts, scores)
        ranking = LazyRanking(items, [s + 0.05 for s in scores], scores.__getitem__)
        lazy = fill_budget(LazySequence(iter(ranking), n), 4000, 0.5)
        assert [c["chunk_id"] for c in lazy] == [c["chunk_id"] for c in plain]


def test_the_stem_filter_and_the_new_word_stems_change_no_coverage():
    rng = random.Random(3)
    alphabet = "abcdefg0123456789%-.&, \n\u00e9Z\u0130\u212a\u00df'\u2019$()"
    words = ["revenue", "revenues", "operating", "margin", "3m", "3m\u2019s", "2022", "fy2022", "r&d", "cash-flow",
             "12.5%", "net", "income", "the", "e", "-", "%"]
    for _ in range(3000):
        text = " ".join(rng.choice(words) if rng.random() < 0.5 else
                        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(rng.randint(0, 40)))
        reference = " " + " ".join(sorted({stem(t) for t in WORD.findall(_lowered(text))})) + " "
        assert word_stems(text) == reference
        bits = stem_filter(reference)
        for s in reference.split():  # no false negatives
            cov = KeywordCoverage([s])
            assert cov.of_stems(reference, text, bits) == cov(text)
        keywords = rng.sample(words, rng.randint(0, 6))
        cov = KeywordCoverage(keywords)
        assert cov.of_stems(reference, text, bits) == cov.of_stems(reference, text) == cov(text)


def test_chunk_coverage_is_the_coverage_on_every_sight():
    cov = KeywordCoverage(["operating", "margin", "fy2022"])
    text = "Operating margins improved in FY2022, driven by pricing."
    assert [chunk_coverage(cov, 987_654_321, text) for _ in range(4)] == [cov(text)] * 4


def _old_offline_score(store, query, keywords, chunks, weights=(0.35, 0.3, 0.2, 0.15)):
    """The offline reranker as it was before issue 37 (one loop, the coverage read from the text)."""
    w_cos, w_kw, w_st, w_fu = weights
    qv = store.embedder.embed_query(query)
    wanted = statement_intent(query)
    if not wanted:
        w_cos, w_kw, w_fu = (w / (1.0 - w_st) for w in (w_cos, w_kw, w_fu))
        w_st = 0.0
    best_rrf = max((c.get("rrf_score") or 0.0) for c in chunks) or 1.0
    coverage = KeywordCoverage(keywords)
    cosines = store.faiss_index("base").reconstruct_many([int(c["chunk_id"]) for c in chunks]) @ qv
    out = []
    for c, cos in zip(chunks, cosines):
        st = 0.0
        if w_st:
            found, density = table_features(int(c["chunk_id"]), c["text"])
            st = density if found & wanted else 0.0
        out.append(w_cos * max(0.0, float(cos)) + w_kw * coverage(c["text"]) + w_st * st
                   + w_fu * (c.get("rrf_score") or 0.0) / best_rrf)
    return out


def _filings(seed: int = 5, pages: int = 80) -> dict[str, list[str]]:
    rng = random.Random(seed)
    vocab = ("revenue growth drove higher widget volumes pricing operating margin customers segments cash flow "
             "statements of operations net sales total 2023 2022 fiscal management discussion acquisitions debt").split()
    body = [" ".join(rng.choice(vocab) for _ in range(rng.randint(5, 60))) for _ in range(pages // 2)]
    texts = ["Acme Corp annual report, Form 10-K, fiscal year 2023."] + body + body[: pages // 4]  # repeats: ties
    return {"/c/2023/ACME.pdf": texts,
            "/c/2023/MSFT.pdf": ["Microsoft Corporation annual report, Form 10-K, fiscal year 2023.",
                                 "Total revenue was $211,915 million in fiscal 2023."]}


def test_score_parts_are_the_old_scores_and_bounds_hold(tmp_path):
    reader = MemoryReader(tmp_path, _filings())
    chunks = [{**c.model_dump(), "rrf_score": 1.0 / (60 + k)} for k, c in enumerate(reader.chunks.values(), 1)]
    for query, keywords in (("What drove revenue growth?", ["drove", "revenue", "growth"]),
                            ("What was the operating cash flow in 2023?", ["operating", "cash", "flow", "2023"])):
        reranker = OfflineReranker(reader)
        assert reranker.score(query, keywords, chunks) == _old_offline_score(reader, query, keywords, chunks)
        parts = reranker.parts(query, keywords, chunks)
        assert all(parts.bound(i) >= parts.exact(i) for i in range(len(parts)))


def _run(tmp_path, monkeypatch, question: str, eager: bool) -> dict:
    import importlib

    from finrag.graphs import get_graph

    rerank_node = importlib.import_module("finrag.nodes.rerank")  # the module (`finrag.nodes.rerank` is the node)

    if eager:  # a reranker without `parts`: every candidate scored, as before issue 37
        class Eager:
            name = "offline"

            def __init__(self, inner):
                self.inner = inner

            def score(self, query, keywords, chunks):
                return self.inner.score(query, keywords, chunks)

        real = rerank_node.get_reranker
        monkeypatch.setattr(rerank_node, "get_reranker", lambda spec, store, variant="base": Eager(real(spec, store, variant)))
    reader = MemoryReader(tmp_path, _filings())
    try:
        return get_graph("hdrr").invoke({"question": question}, context=Configuration(index_reader=reader, expand_top=3,
                                                                                        context_budget_tokens=1500))
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("question", ["What drove Acme's revenue growth in fiscal 2023?",
                                      "Which segments and customers does Acme discuss in fiscal 2023?"])
def test_the_lazy_context_is_the_context_of_scoring_every_candidate(tmp_path, monkeypatch, question):
    lazy = _run(tmp_path / "lazy", monkeypatch, question, eager=False)
    eager = _run(tmp_path / "eager", monkeypatch, question, eager=True)
    assert lazy["context_plan"]["scope"] == "open"
    assert len(lazy["fused"]) > len(lazy["reranked"]) > 2
    view = [(c["chunk_id"], c["score"], c["rerank_score"], c.get("expanded_from")) for c in lazy["reranked"]]
    assert view == [(c["chunk_id"], c["score"], c["rerank_score"], c.get("expanded_from")) for c in eager["reranked"]]
    assert lazy["context_plan"] == eager["context_plan"]
    assert lazy["answer"] == eager["answer"]
    assert any(c.get("rerank_score") is None for c in lazy["fused"])  # the tail was never scored


def test_hits_as_dicts_are_their_model_dump():
    c = RetrievedChunk(chunk_id=3, doc_id="D", page_start=1, page_end=2, text="t")
    for h in (c, c.model_copy(update={"score": 0.25, "fts_rank": 4}),
              c.model_copy(update={"vector_rank": 2, "vector_distance": 0.5, "score": 0.9})):
        assert hit_dicts([h]) == [h.model_dump()]
        assert hit_dicts([h])[0] is not h.__dict__


def _old_rrf(lists, k=60):
    fused: dict = {}
    for hits in lists:
        for rank, hit in enumerate(hits, 1):
            entry = fused.setdefault(hit["chunk_id"], {**hit, "rrf_score": 0.0})
            entry["rrf_score"] += 1.0 / (k + rank)
            for key in ("fts_rank", "vector_rank", "vector_distance"):
                if hit.get(key) is not None:
                    entry[key] = hit[key]
    out = sorted(fused.values(), key=lambda h: (-h["rrf_score"], h["chunk_id"]))
    for h in out:
        h["score"] = h["rrf_score"]
    return out


def test_the_fusion_is_unchanged():
    rng = random.Random(2)
    for _ in range(200):
        ids = list(range(rng.randint(0, 60)))
        fts = [{"chunk_id": i, "fts_rank": r, "vector_rank": None, "rrf_score": None, "score": 1.0}
               for r, i in enumerate(rng.sample(ids, rng.randint(0, len(ids))), 1)]
        vec = [{"chunk_id": i, "vector_rank": r, "vector_distance": rng.random(), "fts_rank": None, "score": 0.5}
               for r, i in enumerate(rng.sample(ids, rng.randint(0, len(ids))), 1)]
        assert reciprocal_rank_fusion([fts, vec]) == _old_rrf([fts, vec])
        assert [list(h) for h in reciprocal_rank_fusion([fts, vec])] == [list(h) for h in _old_rrf([fts, vec])]


def test_the_query_vector_is_shared_read_only_and_per_embedder():
    class Counting:
        calls = 0

        def embed_query(self, text):
            Counting.calls += 1
            return np.full(4, float(len(text)), dtype=np.float32)

    a, b = Counting(), Counting()
    v1 = query_vector(a, "revenue of acme")
    assert query_vector(a, "revenue of acme") is v1 and Counting.calls == 1
    assert not v1.flags.writeable
    assert query_vector(b, "revenue of acme") is not v1 and Counting.calls == 2
    np.testing.assert_array_equal(v1, a.embed_query("revenue of acme"))
