"""The HTTP server (LangServe on FastAPI), tested through real servers on 127.0.0.1.

- `finrag serve` runs as a subprocess on a free port against the demo index (the real CLI path);
  it is called with LangServe's `RemoteRunnable` and with plain `httpx`.
- Variants that need other settings (API key, a tiny timeout, a missing index, an injected bug) run
  `create_app(...)` under uvicorn in a thread of the test process.
Every request is bounded; no test talks to anything but loopback.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path

import httpx
import pytest

import finrag.server_runnable as server_runnable
from finrag.graphs import SYSTEMS

# LangServe 0.3 reads `model_fields` on instances, deprecated since pydantic 2.11 (harmless)
pytestmark = pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance")

from support.servers import SlowGraph, ThreadServer  # noqa: E402

HDRR_NODES = {"extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank",
              "generate"}

# langserve's RemoteRunnable closes its clients from a weakref finalizer that submits to a thread pool;
# if garbage collection runs it inside another ThreadPoolExecutor.submit (uvicorn runs in this process),
# the two deadlock on concurrent.futures' global lock. Keeping the clients alive until exit avoids that.
_CLIENTS: list = []


def _remote(url: str, **kwargs):
    from langserve import RemoteRunnable

    client = RemoteRunnable(url, **kwargs)
    _CLIENTS.append(client)
    return client



@pytest.fixture(scope="session")
def http(demo_server):
    with httpx.Client(base_url=demo_server, timeout=60) as client:
        yield client


def single_company_qas(demo_qas, n=3):
    qs = [q for q in demo_qas if q["question_type"] == "metric_lookup"]
    assert len(qs) >= n
    return qs[:n]


def assert_contract(out: dict, system: str):
    for key in ("id", "system", "question", "answer", "routing", "contexts", "cost", "timings_ms"):
        assert key in out, key
    assert out["system"] == system
    assert isinstance(out["answer"], str) and out["answer"].strip()
    assert set(out["routing"]) >= {"status", "routed_docs", "reason", "extracted"}
    for c in out["contexts"]:
        assert set(c) >= {"chunk_id", "doc_id", "page_start", "page_end", "score", "text"}
    assert set(out["cost"]) >= {"llm_calls", "prompt_tokens", "completion_tokens", "context_tokens"}
    assert out["timings_ms"]["total"] > 0


# ----------------------------------------------------------------- happy paths
def test_health(http, demo_index):
    r = http.get("/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok"
    assert body["documents"] == 6
    assert body["index"] == Path(demo_index).name  # the folder's name, never its absolute path (issue 21)
    assert body["systems"] == list(SYSTEMS)


def test_hdrr_invoke_remote_runnable(demo_server, demo_qas):
    hdrr = _remote(f"{demo_server}/hdrr/", timeout=60)
    for qa in single_company_qas(demo_qas):
        out = hdrr.invoke({"question": qa["question"], "id": qa["id"]})
        assert_contract(out, "hdrr")
        assert out["id"] == qa["id"]
        assert out["routing"]["routed_docs"] == [qa["doc_id"]]
        assert out["contexts"], "HDRR returned no context"
        assert {c["doc_id"] for c in out["contexts"]} == {qa["doc_id"]}, "HDRR context left the routed filing"
        assert any(set(range(c["page_start"], c["page_end"] + 1)) & set(qa["evidence_pages"])
                   for c in out["contexts"]), "no context chunk covers an evidence page"


@pytest.mark.parametrize("system", SYSTEMS)
def test_invoke_every_system_httpx(http, demo_qas, system):
    qa = demo_qas[0]
    r = http.post(f"/{system}/invoke", json={"input": {"question": qa["question"]}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) >= {"output", "metadata"}
    out = body["output"]
    assert_contract(out, system)
    assert out["contexts"], f"{system} returned no context"
    if system in ("hdrr", "sfr"):
        assert {c["doc_id"] for c in out["contexts"]} == {qa["doc_id"]}


def test_hdrr_batch(demo_server, http, demo_qas):
    qas = single_company_qas(demo_qas)
    outs = _remote(f"{demo_server}/hdrr/", timeout=60).batch([{"question": q["question"]} for q in qas])
    assert len(outs) == len(qas)
    for qa, out in zip(qas, outs):
        assert_contract(out, "hdrr")
        assert out["question"] == qa["question"]
        assert {c["doc_id"] for c in out["contexts"]} == {qa["doc_id"]}

    r = http.post("/hdrr/batch", json={"inputs": [{"question": q["question"]} for q in qas[:2]]})
    assert r.status_code == 200, r.text
    assert [o["routing"]["routed_docs"] for o in r.json()["output"]] == [[q["doc_id"]] for q in qas[:2]]


def test_hdrr_stream_adds_up_to_invoke(demo_server, demo_qas):
    qa = demo_qas[0]
    hdrr = _remote(f"{demo_server}/hdrr/", timeout=60)
    chunks = list(hdrr.stream({"question": qa["question"], "id": "s1"}))
    assert len(chunks) >= 3, chunks
    assert set(chunks[0]) == {"id", "system", "question"}
    assert set(chunks[1]) == {"routing"} and chunks[1]["routing"]["routed_docs"] == [qa["doc_id"]]
    merged: dict = {}
    for c in chunks:
        assert not set(c) & set(merged), "stream pieces overlap"
        merged.update(c)
    invoked = hdrr.invoke({"question": qa["question"], "id": "s1"})
    merged["timings_ms"], invoked["timings_ms"] = {}, {}
    assert merged == invoked


def test_hdrr_stream_raw_sse(http, demo_qas):
    events = []
    with http.stream("POST", "/hdrr/stream", json={"input": {"question": demo_qas[0]["question"]}}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("event:"):
                events.append(line.split(":", 1)[1].strip())
    assert events[0] == "metadata" and events[-1] == "end"
    assert events.count("data") >= 3


def test_hdrr_stream_events_show_nodes(demo_server, demo_qas):
    async def collect():
        hdrr = _remote(f"{demo_server}/hdrr/", timeout=60)
        return [e async for e in hdrr.astream_events({"question": demo_qas[0]["question"]}, version="v2")]

    events = asyncio.run(collect())
    started = [e["name"] for e in events if e["event"] == "on_chain_start"]
    assert HDRR_NODES <= set(started), started
    assert started.index("extract_metadata") < started.index("resolve_docs") < started.index("generate")
    end = [e for e in events if e["event"] == "on_chain_end" and e["name"] == "/hdrr"]
    assert end and end[-1]["data"]["output"]["answer"].strip()


def test_root_and_schemas(http):
    assert http.get("/").json()["systems"] == list(SYSTEMS)
    inp = http.get("/hdrr/input_schema").json()
    assert inp["required"] == ["question"] and set(inp["properties"]) == {"question", "id"}
    out = json.dumps(http.get("/hdrr/output_schema").json())
    for key in ("routed_docs", "contexts", "page_start", "timings_ms", "context_tokens"):
        assert key in out
    assert http.get("/hdrr/playground/").status_code == 200


# ---------------------------------------------------------------- bad requests
SYSTEM_LIST = list(SYSTEMS)


@pytest.mark.parametrize("payload,status,message", [
    ({"input": {"question": ""}}, 422, "question is empty"),
    ({"input": {"question": "   \n\t "}}, 422, "question is empty"),
    ({"input": {}}, 422, "question: Field required"),
    ({"input": {"question": 42}}, 422, "question"),
    ({"input": {"question": "x", "bogus": 1}}, 422, "bogus"),
    ({"input": {"question": "word " * 1000}}, 422, "question is too long"),
    ({"question": "no input wrapper"}, 422, "input"),
])
def test_bad_input(http, payload, status, message):
    r = http.post("/hdrr/invoke", json=payload)
    assert r.status_code == status, r.text
    assert message in r.json()["detail"], r.json()
    assert "Traceback" not in r.text


def test_client_cannot_reconfigure_server(http, demo_index):
    """A client's `configurable` is dropped: the server's index (and models) always apply."""
    r = http.post("/hdrr/invoke", json={"input": {"question": "What was CBLT's total revenue for fiscal 2023?"},
                                        "config": {"configurable": {"index_dir": "/etc", "llm": "openai/gpt-4.1"}}})
    assert r.status_code == 200, r.text
    out = r.json()["output"]
    assert out["routing"]["routed_docs"] == ["COBALTSOFTWARE_2023_10K"] and out["cost"]["llm_calls"] == 0


def test_malformed_json(http):
    for path in ("/hdrr/invoke", "/hdrr/batch", "/hdrr/stream"):
        r = http.post(path, content=b'{"input": {"question": ', headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        assert r.json()["detail"] == "malformed JSON body"


def test_empty_question_in_stream_and_batch(http):
    r = http.post("/hdrr/stream", json={"input": {"question": " "}})
    assert r.status_code == 422 and "question is empty" in r.json()["detail"]
    r = http.post("/hdrr/batch", json={"inputs": [{"question": "What was CBLT's revenue?"}, {"question": ""}]})
    assert r.status_code == 422 and "question is empty" in r.json()["detail"]


def test_unknown_system_404(http):
    for method, path in (("POST", "/nope/invoke"), ("GET", "/nope"), ("POST", "/hdrr/nope")):
        r = http.request(method, path, json={"input": {"question": "q"}})
        assert r.status_code == 404, r.text
        body = r.json()
        assert body["systems"] == SYSTEM_LIST
        assert "hdrr" in body["detail"] and path in body["detail"]


def test_body_too_large_413(http):
    big = {"input": {"question": "x" * 70_000}}
    r = http.post("/hdrr/invoke", json=big)
    assert r.status_code == 413
    assert "limit of 64,000 bytes" in r.json()["detail"]

    def chunks():  # no Content-Length: the limit is enforced while reading
        for _ in range(20):
            yield b"x" * 8192

    r = http.post("/hdrr/invoke", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["detail"]


# -------------------------------------------------- variants run in this process
@pytest.fixture(scope="module")
def keyed_server(demo_index):
    from finrag.server import create_app

    with ThreadServer(create_app(demo_index, api_key="s3cret-key")) as srv:
        yield srv


def test_api_key(keyed_server, demo_qas):
    url, q = keyed_server.url, {"input": {"question": demo_qas[0]["question"]}}
    assert httpx.get(f"{url}/health", timeout=30).json()["status"] == "ok"  # health stays open
    for headers in ({}, {"X-API-Key": "wrong"}):
        r = httpx.post(f"{url}/hdrr/invoke", json=q, headers=headers, timeout=30)
        assert r.status_code == 401, r.text
        assert "X-API-Key" in r.json()["detail"]
    assert httpx.get(f"{url}/hdrr/playground/", timeout=30).status_code == 401
    assert httpx.get(f"{url}/", timeout=30).status_code == 401
    r = httpx.post(f"{url}/hdrr/invoke", json=q, headers={"X-API-Key": "s3cret-key"}, timeout=60)
    assert r.status_code == 200 and r.json()["output"]["answer"].strip()
    out = _remote(f"{url}/cbr/", headers={"X-API-Key": "s3cret-key"}, timeout=60).invoke(
        {"question": demo_qas[1]["question"]})
    assert_contract(out, "cbr")
    with pytest.raises(httpx.HTTPStatusError) as err:
        _remote(f"{url}/cbr/", timeout=30).invoke({"question": demo_qas[1]["question"]})
    assert err.value.response.status_code == 401


def test_unexpected_error_is_one_line_500(keyed_server, demo_qas, monkeypatch, caplog):

    def boom(*a, **k):
        raise RuntimeError("kaboom\n  File 'secret.py', line 1")

    monkeypatch.setattr(server_runnable, "to_contract", boom)
    headers = {"X-API-Key": "s3cret-key"}
    with caplog.at_level(logging.ERROR, logger="finrag.server"):
        r = httpx.post(f"{keyed_server.url}/hdrr/invoke", json={"input": {"question": demo_qas[0]["question"]}},
                       headers=headers, timeout=60)
    assert r.status_code == 500
    assert r.json() == {"detail": "internal error (RuntimeError); see the server log"}
    assert "Traceback" not in r.text and "secret.py" not in r.text
    lines = [rec.getMessage() for rec in caplog.records if rec.name == "finrag.server"]
    assert any("RuntimeError" in m and "kaboom" in m and "\n" not in m for m in lines), lines

    # the same bug in a stream: the first pieces arrive, then an SSE error event, and the stream is closed
    chunks = []
    with pytest.raises(httpx.HTTPStatusError) as err:
        for chunk in _remote(f"{keyed_server.url}/hdrr/", headers=headers, timeout=60).stream(
                {"question": demo_qas[0]["question"]}):
            chunks.append(chunk)
    assert err.value.response.status_code == 500
    assert chunks and chunks[0]["system"] == "hdrr"


def test_timeout_504(demo_index, demo_qas, monkeypatch):
    import finrag.server as server

    q = {"question": demo_qas[0]["question"]}
    # a real graph, a timeout it cannot meet
    with ThreadServer(server.create_app(demo_index, timeout_s=0.001, warm_up=False)) as srv:
        r = httpx.post(f"{srv.url}/hdrr/invoke", json={"input": q}, timeout=30)
        assert r.status_code == 504, r.text
        assert r.json() == {"detail": "request timed out after 0.001 s"}
        assert httpx.get(f"{srv.url}/health", timeout=30).status_code == 200  # health is not timed

    # a hanging graph: invoke gets a 504 response; a stream that has started ends with a 504 error event
    monkeypatch.setattr(server_runnable, "get_graph", lambda system: SlowGraph())
    with ThreadServer(server.create_app(demo_index, timeout_s=0.5, warm_up=False)) as srv:
        t0 = time.monotonic()
        r = httpx.post(f"{srv.url}/hdrr/invoke", json={"input": q}, timeout=30)
        assert r.status_code == 504 and r.json()["detail"] == "request timed out after 0.5 s"
        assert time.monotonic() - t0 < 5
        with httpx.stream("POST", f"{srv.url}/hdrr/stream", json={"input": q}, timeout=30) as resp:
            assert resp.status_code == 200
            text = "".join(resp.iter_text())
        assert '"question"' in text  # the first piece went out before the timeout
        assert text.rstrip().endswith('data: {"status_code": 504, "message": "request timed out after 0.5 s"}')
        assert "Internal Server Error" not in text
        chunks = []
        with pytest.raises(httpx.HTTPStatusError) as err:
            for chunk in _remote(f"{srv.url}/hdrr/", timeout=30).stream(q):
                chunks.append(chunk)
        assert err.value.response.status_code == 504
        assert chunks and chunks[0]["question"] == q["question"]


def test_missing_index_503(tmp_path):
    from finrag.server import create_app

    with ThreadServer(create_app(tmp_path / "no-index-here", warm_up=False)) as srv:
        r = httpx.get(f"{srv.url}/health", timeout=30)
        assert r.status_code == 503
        assert r.json()["status"] == "unavailable" and "no finrag index" in r.json()["detail"]
        r = httpx.post(f"{srv.url}/sfr/invoke", json={"input": {"question": "What was CBLT's revenue in 2023?"}},
                       timeout=30)
        assert r.status_code == 503 and "no finrag index" in r.json()["detail"]
