"""Issue 21 ("Trust, round two"), the server side: what a hostile pass found on `finrag serve`.

Before the fixes:
1. LangServe's `/{system}/c/{config_hash}/invoke|batch|stream|stream_log|stream_events` routes skipped the
   guard's checks: a 300-input batch was answered (the cap is 32), the request timeout did not apply, and a
   body that is not UTF-8 got a 500. Now those routes are not mounted (clients cannot configure the server, so
   they had no use), and the guard classifies a run endpoint by its first and last path segments, so every
   route the app has goes through the same checks (API key, body limit, batch cap, UTF-8, timeout).
2. A lone surrogate (`"\\ud800"`), a 20,000-deep nested JSON body and a 5,000-digit number got a 500. Now the
   guard reads the JSON of every body before LangServe does and answers 422 with one line.
3. An LLM that failed during `/stream` ended the stream with LangServe's `{"status_code": 500, "message":
   "Internal Server Error"}`. Now the stream's error event carries what `/invoke` answers: 502 when the LLM
   failed, 503 when it is misconfigured or the index is unusable, with the same one-line detail.
4. `/health`, which needs no API key, showed the index's absolute path. Now it shows the folder's name.
5. An index rebuilt while the server ran (deleted and indexed again, or built elsewhere and moved into place)
   was not seen until a restart: the server kept reading the old, deleted database, and `/health` kept the old
   count. Now each request checks (one `stat`) whether the database file is still the one the server opened,
   and opens the new one when it is not. (Filings added to the same index in place were already seen.)

Real uvicorn servers on loopback: in a thread of the test process where a test patches the app or reads its
log, `finrag serve` as a subprocess where another process changes the index under it.
"""
from __future__ import annotations

import json
import logging
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from support.openai_stub import OpenAIStub
from support.servers import CLI_PYTHON, SlowGraph, ThreadServer, clean_env, finrag_serve

import finrag.server_runnable as server_runnable
from finrag.graphs import SYSTEMS

pytestmark = [pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance"),
              pytest.mark.filterwarnings("ignore:astream_log is deprecated"),  # LangServe's /stream_log
              pytest.mark.usefixtures("fresh_index")]


KEY = "hostile-key"
RUN_ENDPOINTS = ("invoke", "batch", "stream", "stream_log", "stream_events")


@pytest.fixture(scope="module")
def plain_server(demo_index):
    """The real app on the demo index, no API key, in a thread (its log reaches caplog)."""
    from finrag.server import create_app

    with ThreadServer(create_app(demo_index)) as srv:
        yield srv


def sse_events(text: str) -> list[tuple[str, str]]:
    """(event, data) pairs of a server-sent-event body."""
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        if "event" in fields:
            out.append((fields["event"], fields.get("data", "")))
    return out


EMPTY_CONFIG_HASH = "N4XyA"  # LangServe's config hash of {} (LZString.compressToEncodedURIComponent("{}"))


def concrete(path: str) -> str:
    """A request path for a route's path template."""
    return path.replace("{config_hash}", EMPTY_CONFIG_HASH).replace("{file_path:path}", "index.html")


# ------------------------------------------------------------------------------------------- 1. guards
def test_config_hash_routes_do_not_bypass_the_guards(demo_index, demo_qas, monkeypatch):
    import finrag.server as server

    q = {"question": demo_qas[0]["question"]}
    with ThreadServer(server.create_app(demo_index, warm_up=False)) as srv:
        many = {"inputs": [{"question": f"What was Acme Widgets' revenue in FY2022? ({i})"} for i in range(40)]}
        r = httpx.post(f"{srv.url}/cbr/c/{EMPTY_CONFIG_HASH}/batch", json=many, timeout=120)
        assert r.status_code in (404, 413), (r.status_code, r.text[:300])
        r = httpx.post(f"{srv.url}/hdrr/c/{EMPTY_CONFIG_HASH}/invoke", headers={"content-type": "application/json"},
                       content=b'{"input": {"question": "Acme\xff revenue?"}}', timeout=60)
        assert r.status_code in (404, 422), (r.status_code, r.text[:300])
    monkeypatch.setattr(server_runnable, "get_graph", lambda system: SlowGraph())
    with ThreadServer(server.create_app(demo_index, timeout_s=0.5, warm_up=False)) as srv:
        t0 = time.monotonic()
        r = httpx.post(f"{srv.url}/hdrr/c/{EMPTY_CONFIG_HASH}/invoke", json={"input": q}, timeout=10)
        assert r.status_code in (404, 504) and time.monotonic() - t0 < 5, (r.status_code, r.text[:300])


def test_every_route_of_the_app_is_guarded(demo_index, demo_qas, monkeypatch):
    """Each route the app has: no API key is a 401 (but /health); each POST route refuses a body over the limit,
    a body that is not UTF-8 and a batch over the cap, and times out."""
    import finrag.server as server

    monkeypatch.setattr(server_runnable, "get_graph", lambda system: SlowGraph())
    app = server.create_app(demo_index, api_key=KEY, max_body_bytes=4_000, timeout_s=0.5, warm_up=False, max_batch=4)
    routes = [(m, concrete(r.path)) for r in app.routes for m in sorted(getattr(r, "methods", None) or ())
              if m != "HEAD"]
    posts = sorted({p for m, p in routes if m == "POST"})
    runs = [p for p in posts if p.split("/")[1] in SYSTEMS]  # the routes that run a graph (not /threads)
    assert {f"/{s}/{e}" for s in SYSTEMS for e in RUN_ENDPOINTS} <= set(posts)
    key = {"X-API-Key": KEY, "content-type": "application/json"}
    q = {"input": {"question": demo_qas[0]["question"]}}
    failures = []

    def request(method: str, path: str, what: str, **kwargs) -> httpx.Response | None:
        try:
            return http.request(method, path, **kwargs)
        except httpx.TimeoutException:
            failures.append(f"{method} {path} {what}: no answer after 5 s (the timeout is 0.5 s)")
            return None

    with ThreadServer(app) as srv, httpx.Client(base_url=srv.url, timeout=5) as http:
        for method, path in routes:
            r = request(method, path, "without the API key", json=q if method != "GET" else None)
            if r is not None and r.status_code != (200 if path == "/health" else 401):
                failures.append(f"{method} {path} without the API key: {r.status_code}")
        for path in posts:
            r = request("POST", path, "with a body over the limit", headers=key,
                        content=json.dumps({"input": {"question": "x" * 5_000}}))
            if r is not None and r.status_code != 413:
                failures.append(f"POST {path} with a body over the limit: {r.status_code}")
            r = request("POST", path, "with a body that is not UTF-8", headers=key,
                        content=b'{"input": {"question": "Acme\xff revenue?"}}')
            if r is not None and (r.status_code != 422 or "not valid UTF-8" not in r.text):
                failures.append(f"POST {path} with a body that is not UTF-8: {r.status_code} {r.text[:100]}")
            many = {"inputs": [{"question": f"revenue {i}?"} for i in range(5)]}
            r = request("POST", path, "with a batch of 5", json=many, headers=key)
            if r is not None and r.status_code != (413 if path.endswith("/batch") else 422):  # not an input there
                failures.append(f"POST {path} with a batch of 5 (the cap is 4): {r.status_code}")
        assert not failures, "\n".join(failures)
        for path in runs:  # the timeout: a 504, or a started stream that ends with a 504 error event
            t0 = time.monotonic()
            body = {"inputs": [q["input"]]} if path.endswith("/batch") else q
            r = request("POST", path, "with a hanging graph", json=body, headers={"X-API-Key": KEY})
            if r is None:
                continue
            events = sse_events(r.text) if r.status_code == 200 else []
            timed_out = r.status_code == 504 or (events and events[-1][0] == "error"
                                                  and json.loads(events[-1][1])["status_code"] == 504)
            if not timed_out or time.monotonic() - t0 > 5:
                failures.append(f"POST {path} with a hanging graph: {r.status_code} {r.text[-120:]!r}")
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------- 2. hostile bodies
def _wrap(endpoint: str, inp: bytes) -> bytes:
    return b'{"inputs": [' + inp + b"]}" if endpoint == "batch" else b'{"input": ' + inp + b"}"


def _assert_422_one_line(srv, body_of, caplog, needle: str) -> None:
    with caplog.at_level(logging.ERROR, logger="finrag.server"):
        for endpoint in ("invoke", "batch", "stream"):
            r = httpx.post(f"{srv.url}/hdrr/{endpoint}", content=body_of(endpoint),
                           headers={"content-type": "application/json"}, timeout=60)
            assert r.status_code == 422, (endpoint, r.status_code, r.text[:300])
            detail = r.json()["detail"]
            assert needle in detail and "\n" not in detail and "Traceback" not in r.text, (endpoint, detail)
    assert not [rec.getMessage() for rec in caplog.records if rec.name == "finrag.server"]


def test_lone_surrogate_is_422(plain_server, caplog):
    for inp in (b'{"question": "What was CBLT revenue \\ud800 in fiscal 2023?"}',
                b'{"question": "What was CBLT revenue in fiscal 2023?", "id": "\\udfff"}'):
        _assert_422_one_line(plain_server, lambda e, inp=inp: _wrap(e, inp), caplog, "surrogate")


def test_deeply_nested_json_is_422(plain_server, caplog):
    deep = b"[" * 20_000 + b"]" * 20_000
    _assert_422_one_line(plain_server, lambda e: _wrap(e, b'{"question": ' + deep + b"}"), caplog, "nested")
    _assert_422_one_line(plain_server, lambda e: deep, caplog, "nested")


def test_huge_number_is_422(plain_server, caplog):
    inp = b'{"question": "What was CBLT revenue in fiscal 2023?", "id": ' + b"7" * 5_000 + b"}"
    _assert_422_one_line(plain_server, lambda e: _wrap(e, inp), caplog, "digits")


# ------------------------------------------------------------------------------ 3. errors in a stream
def _invoke_and_stream(url: str, question: str) -> tuple[httpx.Response, list[tuple[str, str]]]:
    body = {"input": {"question": question}}
    invoked = httpx.post(f"{url}/hdrr/invoke", json=body, timeout=120)
    streamed = httpx.post(f"{url}/hdrr/stream", json=body, timeout=120)
    assert streamed.status_code == 200, streamed.text[:300]
    return invoked, sse_events(streamed.text)


def _assert_stream_error_like_invoke(url: str, question: str, status: int) -> str:
    invoked, events = _invoke_and_stream(url, question)
    assert invoked.status_code == status, invoked.text[:300]
    detail = invoked.json()["detail"]
    assert events[-1][0] == "error", events
    assert json.loads(events[-1][1]) == {"status_code": status, "message": detail}
    return detail


def test_llm_failure_in_a_stream_is_502_like_invoke(demo_index, demo_qas, monkeypatch, machine_settings_cleared):
    from langserve import RemoteRunnable

    from finrag.server import create_app

    with OpenAIStub() as stub:
        stub.mode = "http500"
        monkeypatch.setenv("FINRAG_LLM", "openai/stub-model")
        monkeypatch.setenv("FINRAG_LLM_BASE_URL", stub.base_url)
        monkeypatch.setenv("FINRAG_FAST_PATH", "off")
        with ThreadServer(create_app(demo_index, warm_up=False)) as srv:
            detail = _assert_stream_error_like_invoke(srv.url, demo_qas[0]["question"], 502)
            assert detail.startswith("the router LLM (stub-model at "), detail
            r = httpx.post(f"{srv.url}/hdrr/stream_events", json={"input": {"question": demo_qas[0]["question"]}},
                           timeout=120)
            assert sse_events(r.text)[-1] == ("error", json.dumps({"status_code": 502, "message": detail}))
            with pytest.raises(httpx.HTTPStatusError) as err:
                list(RemoteRunnable(f"{srv.url}/hdrr/", timeout=60).stream({"question": demo_qas[0]["question"]}))
            assert err.value.response.status_code == 502


def test_misconfigured_llm_or_missing_index_in_a_stream_is_503_like_invoke(demo_index, demo_qas, tmp_path,
                                                                            monkeypatch, machine_settings_cleared):
    from finrag.server import create_app

    monkeypatch.setenv("FINRAG_LLM", "openai/gpt-4.1")  # and no OPENAI_API_KEY
    monkeypatch.setenv("FINRAG_FAST_PATH", "off")
    with ThreadServer(create_app(demo_index, warm_up=False)) as srv:
        detail = _assert_stream_error_like_invoke(srv.url, demo_qas[0]["question"], 503)
        assert "OPENAI_API_KEY" in detail
    monkeypatch.delenv("FINRAG_LLM")
    with ThreadServer(create_app(tmp_path / "no-index-here", warm_up=False)) as srv:
        detail = _assert_stream_error_like_invoke(srv.url, demo_qas[0]["question"], 503)
        assert "no finrag index" in detail


# -------------------------------------------------------------------------------------------- 4. /health
def test_health_shows_the_index_folder_name_not_its_path(demo_index, tmp_path):
    from finrag.server import create_app

    missing = tmp_path / "no-index-here"
    with ThreadServer(create_app(demo_index, warm_up=False)) as srv, \
            ThreadServer(create_app(missing, warm_up=False)) as gone:
        r = httpx.get(f"{srv.url}/health", timeout=30)
        assert r.status_code == 200 and r.json()["index"] == Path(demo_index).name, r.text
        assert set(r.json()) == {"status", "index", "documents", "systems"} and r.json()["documents"] == 6
        assert str(Path(demo_index).resolve().parent) not in r.text
        r = httpx.get(f"{gone.url}/health", timeout=30)
        assert r.status_code == 503 and r.json()["index"] == "no-index-here", r.text
        assert "no finrag index at no-index-here" in r.json()["detail"] and str(tmp_path) not in r.text


# ------------------------------------------------------------------------------- 5. the index changes
def _index(paths: list[Path], index: Path) -> None:
    r = subprocess.run([CLI_PYTHON, "-m", "finrag.cli", "index", *map(str, paths), "--index", str(index), "-q"],
                       capture_output=True, text=True, timeout=600, env=clean_env())
    assert r.returncode == 0, r.stderr[-2000:]


def test_server_sees_the_index_change_while_it_runs(demo_corpus, demo_index, demo_qas, tmp_path):
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import index_paths
    from finrag.tools.indexing.store import Store

    pdfs = {p.stem: p for p in demo_corpus[1]}
    acme = [p for s, p in pdfs.items() if s.startswith("ACMEWIDGETS")]
    borealis = [p for s, p in pdfs.items() if s.startswith("BOREALISENERGY")]
    cblt = next(q for q in demo_qas if q["doc_id"].startswith("COBALTSOFTWARE") and q["question_type"] == "metric_lookup")
    bor = next(q for q in demo_qas if q["doc_id"].startswith("BOREALISENERGY") and q["question_type"] == "metric_lookup")
    index = tmp_path / "index"
    store = Store(index, create=True)
    store.check_embedder(get_embedder())
    assert not index_paths(acme + borealis, store, progress=False, workers=1).failed
    store.close()

    with finrag_serve(index, tmp_path) as served:
        url = served.url

        def ask(qa: dict) -> list[str]:
            r = httpx.post(f"{url}/hdrr/invoke", json={"input": {"question": qa["question"]}}, timeout=120)
            assert r.status_code == 200, r.text[:300]
            return r.json()["output"]["routing"]["routed_docs"]

        def documents() -> int:
            return httpx.get(f"{url}/health", timeout=30).json()["documents"]

        assert documents() == 4 and cblt["doc_id"] not in ask(cblt)
        _index([pdfs[cblt["doc_id"]]], index)  # a filing added in place by another process
        assert documents() == 5 and ask(cblt) == [cblt["doc_id"]]

        shutil.rmtree(index)  # the index deleted and built again, without Borealis
        _index(acme + [pdfs[cblt["doc_id"]]], index)
        assert documents() == 3, "the server still reads the deleted index"
        assert bor["doc_id"] not in ask(bor) and ask(cblt) == [cblt["doc_id"]]

        fresh = tmp_path / "fresh"  # a complete index built elsewhere (the session's, all six filings) moved into place
        shutil.copytree(demo_index, fresh)
        index.rename(tmp_path / "old")
        fresh.rename(index)
        assert documents() == 6 and ask(bor) == [bor["doc_id"]]
