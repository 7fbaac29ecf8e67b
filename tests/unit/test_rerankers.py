"""Rerankers: the adaptive cutoff, the offline reranker's signals, and the Jina API client against a
real HTTP server on loopback that speaks Jina's rerank protocol."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from finrag.tools.retrieval.cutoff import adaptive_cutoff
from finrag.tools.retrieval.rerankers import JinaReranker, get_reranker
from finrag.tools.retrieval.vocabulary import keyword_coverage
from finrag.tools.vocabulary.statements import statement_intent, statements_in


def scored(*scores):
    return [{"chunk_id": i, "rerank_score": s} for i, s in enumerate(scores)]


def test_cutoff_stops_at_the_cliff():
    kept = adaptive_cutoff(scored(0.9, 0.85, 0.8, 0.5, 0.49), cumulative=0.99, cliff=0.15, max_chunks=10)
    assert [c["chunk_id"] for c in kept] == [0, 1, 2]


def test_cutoff_stops_at_the_cumulative_share():
    kept = adaptive_cutoff(scored(*([0.5] * 20)), cumulative=0.55, cliff=0.15, max_chunks=50)
    assert len(kept) == 11  # 11 x 5% reaches 55%


def test_cutoff_caps_and_keeps_at_least_one():
    assert len(adaptive_cutoff(scored(*([0.5] * 40)), max_chunks=10)) == 10
    assert len(adaptive_cutoff(scored(0.9, 0.1), cliff=0.0)) == 1
    assert adaptive_cutoff([]) == []


def test_offline_signals():
    assert keyword_coverage(["capital", "expenditures", "2022"], "Capital expenditure was $5 in 2022") == 1.0
    assert keyword_coverage(["2021"], "in 2022") == 0.0
    assert statement_intent("What is the FY2018 capital expenditure for 3M?") == {"cash_flow"}
    assert "balance" in statement_intent("total current assets at year end")
    assert statements_in("CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions)") == {"cash_flow"}


class _JinaHandler(BaseHTTPRequestHandler):
    seen: list = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"auth": self.headers.get("Authorization"), "body": body})
        docs = body["documents"]
        results = [{"index": i, "relevance_score": (1.0 if "revenue" in d else 0.1)} for i, d in enumerate(docs)]
        results.sort(key=lambda r: -r["relevance_score"])
        payload = json.dumps({"model": body["model"], "results": results}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture()
def jina_server():
    server = HTTPServer(("127.0.0.1", 0), _JinaHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/rerank"
    server.shutdown()


def test_jina_reranker_speaks_the_api(jina_server):
    rr = JinaReranker(api_key="k", url=jina_server)
    chunks = [{"text": "cash flows"}, {"text": "total revenue grew"}, {"text": "risk factors"}]
    assert rr.score("revenue?", [], chunks) == [0.1, 1.0, 0.1]
    req = _JinaHandler.seen[-1]
    assert req["auth"] == "Bearer k" and req["body"]["model"] == "jina-reranker-v2-base-multilingual"
    assert req["body"]["top_n"] == 3 and req["body"]["documents"][1] == "total revenue grew"


def test_reranker_specs_are_validated(monkeypatch):
    monkeypatch.delenv("JINA_API_KEY", raising=False)
    with pytest.raises(ValueError, match="JINA_API_KEY"):
        get_reranker("jina", store=None)
    with pytest.raises(ValueError, match="unknown reranker"):
        get_reranker("magic", store=None)


def test_keyword_coverage_equals_stemming_every_word():
    """KeywordCoverage only tokenises around stem occurrences; it must agree with stemming every word."""
    import random

    from finrag.tools.retrieval.vocabulary import WORD, KeywordCoverage, stem

    def every_word(keywords, text):
        words = {stem(w) for w in set(WORD.findall(text.lower().replace(",", "")))}
        items = {k.lower(): 2.0 if any(ch.isdigit() for ch in k) else 1.0 for k in keywords}
        got = sum(w for k, w in items.items() if stem(k.replace(",", "")) in words)
        return got / sum(items.values()) if items else 0.0

    rng = random.Random(11)
    alphabet = "abes1 2&.%-,ingd"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        keywords = ["".join(rng.choice(alphabet.replace(" ", "")) for _ in range(rng.randint(1, 6)))
                    for _ in range(rng.randint(1, 4))]
        assert KeywordCoverage(keywords)(text) == every_word(keywords, text), (keywords, text)


def test_table_features_are_statements_in_and_the_digit_density_remembered():
    from finrag.tools.retrieval.rerankers import offline

    texts = ["CONSOLIDATED STATEMENTS OF CASH FLOWS\nNet income 1,234 5,678 9,012",
             "Consolidated Balance Sheets and statements of operations 12 34",
             "Risk factors: our business depends on consumers.", "", "statement sheet"]
    for i, text in enumerate(texts * 2):  # the second round is answered from the memo
        found, density = offline.table_features(i % len(texts), text)
        assert found == statements_in(text)
        expected = min(1.0, sum(ch.isdigit() for ch in text) / max(len(text), 1) / 0.08) if found else 0.0
        assert density == pytest.approx(expected)
    # the same chunk id with another text (another index) is computed anew, not taken from the memo
    assert offline.table_features(0, texts[2]) == (frozenset(), 0.0)
