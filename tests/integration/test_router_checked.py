"""The LLM router's output is checked against the question before it is used (issue 34 case 4, issue 38).

A real loopback OpenAI-format server (tests/support/openai_stub.py) whose router replies are fixed by the
test, the way a confused or hostile model would answer: naming another indexed company's filing for an
"Evil Corp" question, or an invented company, form "20K" and year the question never mentions. finrag
must keep the offline reading (the linker's candidates and the question's own years and forms) and list
what it refused in `extracted.llm_overridden`.
"""
from __future__ import annotations

import json

import pytest
from support.openai_stub import OpenAIStub

from finrag import run_query

ROUTER_SCHEMAS = {"RouteAndRewrite", "RouterOutput"}


class FixedRouterStub(OpenAIStub):
    """The stub, except that the router's structured reply is `router_reply` (the other roles as usual)."""

    router_reply: dict = {}

    def chat_reply(self, body: dict):
        status, headers, payload = super().chat_reply(body)
        rf = body.get("response_format") or {}
        if status == 200 and (rf.get("json_schema") or {}).get("name") in ROUTER_SCHEMAS:
            reply = {"companies": [], "tickers": [], "years": [], "periods": [], "forms": [], "dates": [],
                     "documents": [], "rejected": [], "query": "total revenue", "keywords": ["revenue"],
                     **self.router_reply}
            payload["choices"][0]["message"]["content"] = json.dumps(reply)
        return status, headers, payload


@pytest.fixture(scope="module")
def stub_class():
    return FixedRouterStub


pytestmark = pytest.mark.usefixtures("fresh_stub")


def ask(demo_index, stub, question: str, reply: dict, system: str = "hdrr") -> dict:
    stub.router_reply = reply
    conf = stub.configurable(fast_path="off")
    res = run_query(question, system=system, index_dir=str(demo_index), configurable=conf)
    assert [c["role"] for c in res["cost"]["calls"]][:1] == ["router"] and "error" not in res["cost"]["calls"][0]
    return res


@pytest.mark.parametrize("system", ["hdrr", "sfr"])
def test_router_naming_another_companys_filing_does_not_route_there(demo_index, demo_qas, stub, system):
    """Issue 34 case 4: a router naming Acme's filing (and Acme) for an Evil Corp question. Before the check,
    `merge_llm` kept any indexed document id, and the question was answered `exact_path` from Acme's chunks."""
    acme = next(q for q in demo_qas if q["doc_id"].startswith("ACMEWIDGETS_"))["doc_id"]
    res = ask(demo_index, stub, "What was Evil Corp's total revenue in FY2023?",
              {"companies": ["Acme Widgets"], "tickers": ["ACME"], "documents": [acme]}, system)
    routing = res["routing"]
    assert acme not in routing["routed_docs"] and not any(c["doc_id"] == acme for c in res["contexts"])
    assert routing["status"] == "company_not_indexed", routing
    assert "Acme Widgets" not in str(routing["extracted"]["companies"])
    refused = " ".join(routing["extracted"]["llm_overridden"])
    assert acme in refused and "Acme Widgets" in refused


def test_router_inventions_are_not_shown_as_found_or_missing(demo_index, demo_qas, stub):
    """Issue 38 (every LLM output checked): an invented company, form "20K" and a year the question does not
    name. Before the check they became a "Not in the index: ..." line and "Found in the question" values."""
    q = next(q for q in demo_qas if q["doc_id"].startswith("ACMEWIDGETS_"))
    year = int(q["doc_id"].split("_")[1])
    res = ask(demo_index, stub, q["question"],
              {"companies": ["Acme Widgets", "E Engineering & Construction Company"], "forms": ["20K"],
               "years": [year + 7], "periods": [f"FY{year + 7}"]})
    ex = res["routing"]["extracted"]
    assert res["routing"]["routed_docs"] == [q["doc_id"]], res["routing"]
    assert "E Engineering" not in json.dumps(ex["not_indexed"]) and "Not in the index" not in res["answer"]
    assert "20K" not in ex["forms"] and year + 7 not in ex["years"] and f"FY{year + 7}" not in ex["periods"]
    refused = " ".join(ex["llm_overridden"])
    assert all(s in refused for s in ("E Engineering", "'20K'", str(year + 7))), refused


def test_router_choice_among_the_candidates_still_counts(demo_index, demo_qas, stub):
    """The check keeps what the question supports: the router naming the question's own company and year."""
    q = next(q for q in demo_qas if q["doc_id"].startswith("ACMEWIDGETS_"))
    year = int(q["doc_id"].split("_")[1])
    res = ask(demo_index, stub, q["question"], {"companies": ["Acme Widgets"], "years": [year],
                                                "documents": [q["doc_id"]]})
    assert res["routing"]["routed_docs"] == [q["doc_id"]]
    assert res["routing"]["extracted"]["llm_overridden"] == []
