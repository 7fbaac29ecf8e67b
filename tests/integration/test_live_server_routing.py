"""A running server routes to filings indexed, replaced and removed after it started (issue 34 case 1).

The cause: routing's FTS5 tokenizer wrote its temp table through the request thread's read connection, which
opened a transaction that was never ended; that connection kept reading the index as it was at its first
question, so the registry (keyed by the index generation it read) never changed. `/health` and `/documents`,
answered on other threads, listed the new filing while `/hdrr/invoke` said `company_not_indexed`.
"""
from __future__ import annotations

import shutil
import uuid

import httpx
import pytest
from support.servers import ThreadServer

from finrag.cli import main as cli
from finrag.server import create_app
from finrag.tools.indexing import open_index

QUESTIONS = {"ACMEWIDGETS": "What was Acme Widgets' total revenue in FY2023?",
             "BOREALISENERGY": "What was Borealis Energy's total revenue in FY2023?"}


def routed(url: str, company: str, system: str = "hdrr") -> tuple[str, list[str]]:
    r = httpx.post(f"{url}/{system}/invoke", json={"input": {"question": QUESTIONS[company]}}, timeout=60)
    assert r.status_code == 200, r.text
    routing = r.json()["output"]["routing"]
    return routing["status"], routing["routed_docs"]


@pytest.fixture
def live(tmp_path, demo_corpus):
    """A served index of Acme's filings, and a folder holding Borealis Energy's (not yet indexed)."""
    folder, files = demo_corpus
    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir(), later.mkdir()
    for f in files:
        if f.name.startswith("ACMEWIDGETS_"):
            shutil.copy(f, first)
        elif f.name.startswith("BOREALISENERGY_"):
            shutil.copy(f, later)
    index = tmp_path / "idx"
    assert cli(["index", str(first), "--index", str(index), "--embedder", "static", "--quiet"]) == 0
    open_index.reset()
    with ThreadServer(create_app(index, warm_up=False)) as srv:
        yield srv.url, index, later
    open_index.reset()


def test_a_live_server_routes_to_filings_added_and_removed_after_it_started(live):
    """Issue 34 case 1. Every system is asked first (each reads BM25 on the request threads), then Borealis is
    indexed and asked about, then removed: each answer routes as a fresh `finrag ask` would."""
    url, index, later = live
    for system in ("hdrr", "sfr", "cbr", "agentic"):
        httpx.post(f"{url}/{system}/invoke", json={"input": {"question": QUESTIONS["ACMEWIDGETS"]}}, timeout=60)
    assert routed(url, "BOREALISENERGY")[0] == "company_not_indexed"

    assert cli(["index", str(later), "--index", str(index), "--quiet"]) == 0
    for _ in range(3):  # every request thread, not only the first one that asks
        status, docs = routed(url, "BOREALISENERGY")
        assert status == "exact_path" and docs == ["BOREALISENERGY_2023_10K"], (status, docs)
    assert routed(url, "ACMEWIDGETS", "sfr")[1] == ["ACMEWIDGETS_2023_10K"]

    assert cli(["index", "--remove", "BOREALISENERGY_2023_10K", "--index", str(index), "--quiet"]) == 0
    for _ in range(3):
        status, docs = routed(url, "BOREALISENERGY")
        assert "BOREALISENERGY_2023_10K" not in docs, (status, docs)


def test_reader_connections_hold_no_transaction_after_questions(live):
    """Issue 34 case 1, at its cause: after BM25 queries, no read connection of the open store is left inside a
    transaction (one that reads a frozen snapshot of the index)."""
    url, index, _ = live
    for system in ("hdrr", "cbr"):  # words no earlier test asked (the tokenizer remembers the words it saw)
        question = f"What was Acme Widgets' {uuid.uuid4().hex[:8]}zq revenue in FY2023?"
        assert httpx.post(f"{url}/{system}/invoke", json={"input": {"question": question}},
                          timeout=60).status_code == 200
    stores = list(open_index._STORES.values())
    assert stores and all(not c.in_transaction for s in stores for c in s._readers)
