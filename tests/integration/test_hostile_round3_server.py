"""Issue 34 ("Trust, round three"), cases 10, 12 and 13: a second `finrag batch` on one `--out`, unbounded query
parameters of the page routes, and a request header that is never timed out.

Before the fixes:
10. Two `finrag batch --resume` on one `--out` at once both exited 0 and wrote every answer twice. Now `--out`
    is locked (`flock` on `<out>.lock`) for the run; a second writer gets exit code 4 and one line naming the file.
12. `GET /documents/ID/pages/0?chunk=99999999999999999999999` was a 500 (OverflowError in SQLite), and
    `pages/0?zoom=1e308` answered with an image URL the image route then refused. Now every query parameter of
    the page routes is bounded: 422 with one line, and the page route accepts exactly the image route's zooms.
13. A client that sent part of its request header and stalled held its connection for ever (still answered
    after 25 s). Now `finrag serve` closes a connection whose request header is not complete within
    FINRAG_SERVE_HEADER_TIMEOUT seconds (default 10), with one worker or several.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from support.servers import HOST, ThreadServer, free_port, stop_process, wait_http

from finrag.cli import main as finrag_main

pytestmark = [pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance"),
              pytest.mark.usefixtures("fresh_index")]


DOC = "ACMEWIDGETS_2022_10K"


@pytest.fixture(scope="module")
def page_server(demo_index):
    """The real app on the demo index, no API key, in a thread."""
    from finrag.server import create_app

    with ThreadServer(create_app(demo_index, warm_up=False)) as srv:
        yield srv


# ------------------------------------------------------------------------------------------------- case 12
@pytest.mark.parametrize("params", [
    {"chunk": "99999999999999999999999"}, {"chunk": str(2 ** 63)}, {"chunk": "-1"},
    {"zoom": "1e308"}, {"zoom": "inf"}, {"zoom": "nan"}, {"zoom": "0"}, {"zoom": "9"},
    {"mark": ["x" * 5000]}, {"mark": [str(i) for i in range(100)]},
])
def test_page_route_parameters_are_bounded(page_server, params):
    """Issue 34 case 12: an out-of-range query parameter of the page route is a 422 with one line, never a 500
    (a chunk id beyond SQLite's integers was an OverflowError) nor a view pointing at a refused image."""
    r = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0", params=params, timeout=30)
    assert r.status_code == 422, (params, r.status_code, r.text[:300])
    detail = r.json()["detail"]
    assert isinstance(detail, str) and len(detail.splitlines()) == 1 and detail, r.text[:300]
    assert next(iter(params)) in detail, detail


def test_image_route_cache_key_is_bounded(page_server):
    """Issue 34 case 12: the image route's `v` (a cache key, the content hash's first 16 digits) is bounded too:
    422 with one line for a long one (its zoom was already checked against ZOOMS)."""
    r = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0/image", params={"v": "v" * 500}, timeout=30)
    assert r.status_code == 422, (r.status_code, r.text[:300])
    assert len(r.json()["detail"].splitlines()) == 1 and "v" in r.json()["detail"]


@pytest.mark.parametrize("path", ["pages/0", "pages/0/image", "file"])
def test_a_long_unknown_document_id_is_not_echoed_whole(page_server, path):
    """Issue 34 case 12: a 404 for an unknown document id names at most its first 120 characters (a 5,000-character
    id was echoed whole into the one-line detail)."""
    r = httpx.get(f"{page_server.url}/documents/{'A' * 5000}/{path}", timeout=30)
    assert r.status_code == 404 and len(r.json()["detail"]) < 200, r.text[:300]


def test_page_route_accepts_exactly_the_image_routes_zooms(page_server):
    """Issue 34 case 12: every zoom the page route accepts gives an image URL the image route serves, and a zoom
    the image route refuses is refused by the page route as well (before, `zoom=1e308` gave a dead image URL)."""
    from finrag.web_pages import ZOOMS

    for zoom in (*ZOOMS, 1.25, 1e308):
        view = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0", params={"zoom": zoom}, timeout=30)
        image = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0/image", params={"zoom": zoom}, timeout=30)
        assert (view.status_code == 200) == (image.status_code == 200), (zoom, view.status_code, image.status_code)
        if view.status_code == 200:
            served = httpx.get(page_server.url + view.json()["image"], timeout=30)
            assert served.status_code == 200 and served.headers["content-type"] == "image/png", zoom


# ------------------------------------------------------------------------------------------------- case 10
class _Answer:
    """What `run_query` returns, as far as `finrag batch` uses it."""

    def __init__(self, qid: str, question: str):
        self.row = {"id": qid, "system": "cbr", "question": question, "answer": f"answer to {qid}"}

    def model_dump(self) -> dict:
        return self.row


def _batch_files(tmp_path: Path, n: int = 3) -> tuple[list[str], Path, Path]:
    src = tmp_path / "q.jsonl"
    src.write_text("".join(json.dumps({"id": f"q{i}", "question": f"question {i}?"}) + "\n" for i in range(n)))
    return [f"q{i}" for i in range(n)], src, tmp_path / "a.jsonl"


def _batch_argv(tmp_path: Path, src: Path, out: Path) -> list[str]:
    return ["batch", "--index", str(tmp_path / "index"), "--in", str(src), "--out", str(out), "--resume", "-q"]


def test_a_second_batch_on_one_out_is_locked_out(tmp_path, monkeypatch, capsys):
    """Issue 34 case 10: two `finrag batch --resume` on one `--out` at once: the second gets exit code 4 and one
    line naming the file, and every answer is in `--out` once (before, both exited 0 and wrote each one twice)."""
    ids, src, out = _batch_files(tmp_path)
    started, go = threading.Event(), threading.Event()

    def run_query(question, *, qid, **kwargs):
        if threading.current_thread().name == "first-batch":  # the first run is answering its first question
            started.set()
            assert go.wait(30)
        return _Answer(qid, question)

    monkeypatch.setattr("finrag.api.run_query", run_query)
    first: dict = {}
    thread = threading.Thread(target=lambda: first.setdefault("rc", finrag_main(_batch_argv(tmp_path, src, out))),
                              name="first-batch")
    thread.start()
    try:
        assert started.wait(30)
        second = finrag_main(_batch_argv(tmp_path, src, out))
    finally:
        go.set()
        thread.join(30)
    assert second == 4 and first["rc"] == 0, (second, first)
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ids
    locked = [line for line in capsys.readouterr().err.splitlines() if "locked" in line]
    assert len(locked) == 1 and str(out) in locked[0], locked


def test_the_out_lock_goes_with_its_holder(tmp_path, monkeypatch, capsys):
    """Issue 34 case 10: the lock is the kernel's (`flock` on `<out>.lock`): while another process holds it,
    `batch` exits 4 and leaves `--out` as it was; once that process is killed (SIGKILL: no clean-up) the next
    run goes ahead (and removes the lock file when it ends)."""
    ids, src, out = _batch_files(tmp_path)
    out.write_text(json.dumps({"id": "q0", "answer": "kept"}) + "\n")
    monkeypatch.setattr("finrag.api.run_query", lambda question, *, qid, **kw: _Answer(qid, question))
    hold = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", hold, f"{out}.lock"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = out.read_bytes()
        assert finrag_main(_batch_argv(tmp_path, src, out)) == 4
        assert out.read_bytes() == before
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and str(out) in err and "locked" in err, err
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
    assert finrag_main(_batch_argv(tmp_path, src, out)) == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ids
    assert not Path(f"{out}.lock").exists()  # a run that ends removes its lock file


# ------------------------------------------------------------------------------------------------- case 13
HALF_HEADER = b"GET /health HTTP/1.1\r\nHost: x\r\n"  # no blank line: the header is never complete
SHORT = 1.0  # the header timeout these tests serve with (seconds)
SLACK = 1.5


def _until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """What the server sends until it closes the connection, and after how many seconds; a TimeoutError if
    it is still open after `limit`."""
    t0, got = time.monotonic(), b""
    sock.settimeout(limit)
    while True:
        try:
            part = sock.recv(65536)
        except ConnectionResetError:
            part = b""
        if not part:
            return got, time.monotonic() - t0
        got += part


def _stall(port: int, first: bytes = b"", then: bytes = HALF_HEADER) -> tuple[bytes, bytes, float]:
    """Connect, send `first` (whole requests, answered), then `then` and stall: (the answers to `first`, what
    came after `then`, seconds from `then` until the server closed the connection)."""
    with socket.create_connection((HOST, port), timeout=10) as sock:
        answered = b""
        if first:
            sock.sendall(first)
            sock.settimeout(10)
            while b"\r\n\r\nok" not in answered:
                answered += sock.recv(65536)
        if then:
            sock.sendall(then)
        got, waited = _until_closed(sock, SHORT + 10)
    return answered, got, waited


async def _tiny_app(scope, receive, send):
    """An ASGI app answering every request with `ok` (after 1.5 s for /slow)."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(SHORT + 0.5)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


def _protocols() -> list:
    from finrag.http_timeouts import HeaderTimeoutH11, HeaderTimeoutHttpTools

    return [pytest.param(HeaderTimeoutH11, id="h11"),
            pytest.param(HeaderTimeoutHttpTools, id="httptools", marks=pytest.mark.skipif(
                HeaderTimeoutHttpTools is None, reason="httptools is not installed"))]


@pytest.fixture(params=_protocols())
def tiny_server(request):
    """uvicorn with one of finrag's protocol classes and a 1 s header timeout, serving `_tiny_app`."""
    import uvicorn

    from finrag.http_timeouts import with_header_timeout

    port = free_port()
    config = with_header_timeout(uvicorn.Config(_tiny_app, host=HOST, port=port, log_level="warning",
                                                http=request.param, lifespan="off"), SHORT)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


def test_a_half_sent_header_is_timed_out(tiny_server):
    """Issue 34 case 13: a client that sends part of its request header and stalls gets 408 and its connection
    closed after the header timeout (before, it was held for ever); so does a kept-alive connection whose next
    request stalls, and one that never sends a byte (closed without a reply)."""
    _, got, waited = _stall(tiny_server)
    assert got.startswith(b"HTTP/1.1 408 ") and SHORT - 0.2 <= waited <= SHORT + SLACK, (got[:80], waited)
    answered, got, waited = _stall(tiny_server, first=b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answered.startswith(b"HTTP/1.1 200 ") and got.startswith(b"HTTP/1.1 408 "), (answered[:40], got[:40])
    assert waited <= SHORT + SLACK, waited
    _, got, waited = _stall(tiny_server, then=b"")
    assert got == b"" and waited <= SHORT + SLACK, (got[:80], waited)


def test_the_header_timeout_stops_when_the_header_is_complete(tiny_server):
    """Issue 34 case 13: the timer covers the header only: a request answered after longer than the header
    timeout is answered whole (the header was complete at once)."""
    with socket.create_connection((HOST, tiny_server), timeout=10) as sock:
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got, waited = _until_closed(sock, 10)
    assert got.startswith(b"HTTP/1.1 200 ") and got.endswith(b"ok") and waited >= SHORT + 0.4, (got[:80], waited)


def test_a_stalled_pipelined_request_never_cuts_the_answer_before_it(tiny_server):
    """Issue 34 case 13: a half-sent request pipelined behind one that takes longer than the header timeout: the
    first is answered whole, then the stalled one gets its 408 and the connection is closed."""
    with socket.create_connection((HOST, tiny_server), timeout=10) as sock:
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n" + HALF_HEADER)
        got, waited = _until_closed(sock, 10)
    assert got.startswith(b"HTTP/1.1 200 ") and b"\r\n\r\nokHTTP/1.1 408 " in got, got
    assert waited <= SHORT + 0.5 + SLACK + 1.0, waited


# `finrag serve` with a 1 s header timeout (FINRAG_SERVE_HEADER_TIMEOUT, read when serve() builds its config,
# which carries it into every worker process)
SERVE = """import sys
from finrag.serve_process import serve
sys.exit(serve("127.0.0.1", int(sys.argv[1]), sys.argv[2], workers=int(sys.argv[3])))
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_finrag_serve_times_out_a_half_sent_header(demo_index, tmp_path, workers):
    """Issue 34 case 13: `finrag serve` itself (one process, and workers sharing the socket) closes a
    connection whose request header stalls, and still answers /health."""
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "FINRAG_SERVE_HEADER_TIMEOUT": f"{SHORT:g}"}
    with log.open("w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", SERVE, str(port), str(demo_index), str(workers)],
                                stdout=fh, stderr=subprocess.STDOUT, env=env)
    try:
        wait_http(f"http://{HOST}:{port}/health", timeout=120, proc=proc, log=log)
        _, got, waited = _stall(port)
        assert got.startswith(b"HTTP/1.1 408 ") and waited <= SHORT + SLACK, (got[:80], waited)
        assert httpx.get(f"http://{HOST}:{port}/health", timeout=10).status_code == 200
    finally:
        stop_process(proc)
