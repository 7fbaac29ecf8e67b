"""Issue 36, the server: conversations on LangGraph threads over real servers on loopback (uvicorn in a thread of
this process with two API keys, and `finrag serve --workers 2` as a subprocess), called with LangServe's
RemoteRunnable (`config={"configurable": {"thread_id": ...}}`) and plain httpx. Thread stores are real SQLite files
in tmp folders (FINRAG_THREADS_DIR), never beside the session's demo index."""
from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from support.servers import ThreadServer, finrag_serve

from finrag.state.configuration import Configuration
from finrag.threads import ThreadStore, owner_of, store_path

pytestmark = pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance")

KEY_A, KEY_B = "alice-key-7f3e9c", "bob-key-51d0aa"
FIRST = "What was Acme Widgets' total revenue in FY2022?"
FOLLOW = "And in FY2023?"
RESOLVED = "What was Acme Widgets' total revenue in FY2023?"

_CLIENTS: list = []  # RemoteRunnable clients kept alive (see test_server.py: their finalizer can deadlock)


def _remote(url: str, key: str | None = KEY_A, system: str = "hdrr"):
    from langserve import RemoteRunnable

    client = RemoteRunnable(f"{url}/{system}/", timeout=60, headers={"X-API-Key": key} if key else None)
    _CLIENTS.append(client)
    return client


def _on(tid: str) -> dict:
    return {"configurable": {"thread_id": tid}}


@pytest.fixture(scope="module")
def threads_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("threads")


@pytest.fixture(scope="module")
def server(demo_index, threads_dir):
    """`create_app` with two API keys under uvicorn on loopback; the thread stores in `threads_dir`."""
    from finrag.server import create_app

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FINRAG_THREADS_DIR", str(threads_dir))
        for name in ("FINRAG_THREADS_MAX_TURNS", "FINRAG_THREADS_MAX_THREADS", "FINRAG_THREADS_MAX_AGE_DAYS"):
            mp.delenv(name, raising=False)
        with ThreadServer(create_app(demo_index, api_key=[KEY_A, KEY_B], timeout_s=60)) as srv:
            yield srv.url


@pytest.fixture()
def alice(server):
    with httpx.Client(base_url=server, timeout=60, headers={"X-API-Key": KEY_A}) as c:
        yield c


@pytest.fixture()
def bob(server):
    with httpx.Client(base_url=server, timeout=60, headers={"X-API-Key": KEY_B}) as c:
        yield c


def _one_line_error(r: httpx.Response, status: int, *parts: str) -> str:
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in r.text, r.text
    for part in parts:
        assert part in detail, detail
    return detail


def _invoke(client: httpx.Client, question: str, tid: str | None, system: str = "hdrr", **kw) -> httpx.Response:
    body: dict = {"input": {"question": question}}
    if tid is not None:
        body["config"] = _on(tid)
    return client.post(f"/{system}/invoke", json=body, **kw)


# ------------------------------------------------------------------------------- turns over LangServe
def test_two_turns_over_remote_runnable(server, alice):
    """Turn 2 "And in FY2023?" sent by RemoteRunnable with config thread_id is answered as Acme's FY2023 revenue
    (resolved from turn 1), with resolved_question and conversation as the Python API gives them; the thread's turns
    read back; the same follow-up without a thread routes nowhere."""
    r = alice.post("/threads")
    assert r.status_code == 201, r.text
    tid = r.json()["thread_id"]
    assert re.fullmatch(r"[0-9a-f]{32}", tid)
    hdrr = _remote(server)
    first = hdrr.invoke({"question": FIRST}, config=_on(tid))
    assert first["routing"]["routed_docs"] == ["ACMEWIDGETS_2022_10K"]
    assert first["resolved_question"] == FIRST and first["conversation"]["turn"] == 1
    assert first["conversation"]["thread_id"] == tid
    second = hdrr.invoke({"question": FOLLOW}, config=_on(tid))
    assert second["question"] == FOLLOW and second["resolved_question"] == RESOLVED
    assert second["routing"]["routed_docs"] == ["ACMEWIDGETS_2023_10K"]
    assert second["conversation"]["turn"] == 2 and second["conversation"]["inherited"] == {"company": 1, "measure": 1}
    assert second["answer"].startswith(f"Answering: {RESOLVED}\n\n") and "1,534.9" in second["answer"]
    turns = alice.get(f"/threads/{tid}").json()
    assert turns["thread_id"] == tid
    assert [(t["turn"], t["question"], t["resolved_question"]) for t in turns["turns"]] == \
        [(1, FIRST, FIRST), (2, FOLLOW, RESOLVED)]
    assert turns["turns"][1]["routing"]["routed_docs"] == ["ACMEWIDGETS_2023_10K"] and turns["turns"][1]["citations"]
    listed = {t["thread_id"]: t for t in alice.get("/threads").json()["threads"]}
    assert listed[tid]["turns"] == 2 and listed[tid]["last_question"] == FOLLOW
    plain = hdrr.invoke({"question": FOLLOW})
    assert plain["routing"]["routed_docs"] == [] and "resolved_question" not in plain


def test_stream_on_a_thread(server, alice):
    """/stream on a thread (RemoteRunnable.stream): pieces that add up to the turn's contract, routing as its own
    piece, the follow-up resolved; a named thread (POST /threads {"thread_id": ...}); other systems too."""
    assert alice.post("/threads", json={"thread_id": "streamed"}).json() == {"thread_id": "streamed"}
    assert _invoke(alice, FIRST, "streamed").status_code == 200
    pieces = list(_remote(server).stream({"question": FOLLOW}, config=_on("streamed")))
    assert pieces[0] == {"id": pieces[0]["id"], "system": "hdrr", "question": FOLLOW}
    assert any(set(p) == {"routing"} for p in pieces)
    merged: dict = {}
    for p in pieces:  # offline the answer comes in one piece: no two pieces share a key
        assert not set(p) & set(merged), "stream pieces overlap"
        merged.update(p)
    assert merged["resolved_question"] == RESOLVED and merged["conversation"]["turn"] == 2
    assert merged["routing"]["routed_docs"] == ["ACMEWIDGETS_2023_10K"] and merged["answer"].startswith("Answering: ")
    cbr = _remote(server, system="cbr").invoke({"question": "What about Cobalt?"}, config=_on("streamed"))
    assert cbr["resolved_question"] == "What was Cobalt Software's total revenue in FY2023?"
    assert [t["turn"] for t in alice.get("/threads/streamed").json()["turns"]] == [1, 2, 3]


def test_unknown_and_malformed_threads(server, alice):
    """An unknown thread is a 404 with one line on every route (and raises in RemoteRunnable), before a stream
    starts; a malformed id, a thread id on /batch, /stream_log or /stream_events, or a bad body is a 422; a name
    taken is a 409."""
    from langserve import RemoteRunnable  # noqa: F401 - the client under test

    for r in (_invoke(alice, FIRST, "nope"), alice.post("/hdrr/stream", json={"input": {"question": FIRST},
                                                                             "config": _on("nope")}),
              alice.get("/threads/nope"), alice.delete("/threads/nope")):
        _one_line_error(r, 404, "unknown thread 'nope'")
    with pytest.raises(httpx.HTTPStatusError) as err:
        _remote(server).invoke({"question": FIRST}, config=_on("nope"))
    assert err.value.response.status_code == 404
    for bad in ("x" * 201, "a\nb", 42, ["t"]):
        _one_line_error(_invoke(alice, FIRST, bad), 422, "thread")  # type: ignore[arg-type]
    assert alice.post("/threads", json={"thread_id": "taken"}).status_code == 201
    _one_line_error(alice.post("/threads", json={"thread_id": "taken"}), 409, "exists")
    for body in ({"thread_id": ""}, {"thread_id": 5}, {"bogus": 1}):
        _one_line_error(alice.post("/threads", json=body), 422)
    for endpoint, body in (("batch", {"inputs": [{"question": FIRST}], "config": _on("taken")}),
                           ("stream_log", {"input": {"question": FIRST}, "config": _on("taken")}),
                           ("stream_events", {"input": {"question": FIRST}, "config": _on("taken")})):
        _one_line_error(alice.post(f"/hdrr/{endpoint}", json=body), 422, f"/hdrr/{endpoint} takes no thread_id")
    assert alice.get("/threads/taken").json()["turns"] == []  # nothing ran on it
    # other configurable keys are still dropped, with or without a thread
    r = alice.post("/hdrr/invoke", json={"input": {"question": FIRST},
                                         "config": {"configurable": {"thread_id": "taken", "index_dir": "/etc"}}})
    assert r.status_code == 200 and r.json()["output"]["routing"]["routed_docs"] == ["ACMEWIDGETS_2022_10K"]


def test_another_keys_threads_are_not_readable(server, alice, bob, threads_dir):
    """Each API key has its own store: Bob cannot read, run on, list or delete Alice's thread (404, as for an id
    no one has), may use the same name for his own, and no request without a key gets anywhere (401)."""
    assert alice.post("/threads", json={"thread_id": "q3-review"}).status_code == 201
    assert _invoke(alice, FIRST, "q3-review").status_code == 200
    unknown = _one_line_error(bob.get("/threads/never-made"), 404)
    assert _one_line_error(bob.get("/threads/q3-review"), 404) == unknown.replace("never-made", "q3-review")
    _one_line_error(_invoke(bob, FOLLOW, "q3-review"), 404, "unknown thread")
    _one_line_error(bob.delete("/threads/q3-review"), 404, "unknown thread")
    assert "q3-review" not in {t["thread_id"] for t in bob.get("/threads").json()["threads"]}
    with pytest.raises(httpx.HTTPStatusError):
        _remote(server, key=KEY_B).invoke({"question": FOLLOW}, config=_on("q3-review"))
    assert bob.post("/threads", json={"thread_id": "q3-review"}).status_code == 201
    bobs = _invoke(bob, FOLLOW, "q3-review").json()["output"]
    assert bobs["conversation"]["turn"] == 1 and bobs["routing"]["routed_docs"] == []  # nothing of Alice's turn
    assert [t["question"] for t in alice.get("/threads/q3-review").json()["turns"]] == [FIRST]
    assert [t["question"] for t in bob.get("/threads/q3-review").json()["turns"]] == [FOLLOW]
    assert httpx.get(f"{server}/threads", timeout=10).status_code == 401
    files = sorted(p.name for p in threads_dir.glob("*.sqlite"))
    assert len(files) == 2 and all(owner_of(k) in " ".join(files) for k in (KEY_A, KEY_B)), files
    assert not any(k in " ".join(files) for k in (KEY_A, KEY_B))  # the keys are written nowhere


def test_bounds_drop_the_oldest(server, alice, demo_index, tmp_path, monkeypatch):
    """FINRAG_THREADS_MAX_TURNS=3, _MAX_THREADS=2 and the default 30 days: a thread keeps its last 3 turns, a third
    thread drops the oldest thread never asked (not the conversation), and a thread unused for 31 days is dropped."""
    monkeypatch.setenv("FINRAG_THREADS_DIR", str(tmp_path))  # a store of its own, opened with these bounds
    monkeypatch.setenv("FINRAG_THREADS_MAX_TURNS", "3")
    monkeypatch.setenv("FINRAG_THREADS_MAX_THREADS", "2")
    asked = [FIRST, FOLLOW, "What about Cobalt?", "How about 2022?", "What was its net income?"]
    alice.post("/threads", json={"thread_id": "long"})
    for q in asked:
        assert _invoke(alice, q, "long").status_code == 200
    kept = alice.get("/threads/long").json()["turns"]
    assert [t["question"] for t in kept] == asked[-3:]
    assert kept[-1]["routing"]["routed_docs"] == ["COBALTSOFTWARE_2022_10K"]  # the thread goes on past the bound
    alice.post("/threads", json={"thread_id": "second"})
    alice.post("/threads", json={"thread_id": "third"})
    # a new thread makes room from threads never asked ("second"), never from a conversation (issue 49)
    assert [t["thread_id"] for t in alice.get("/threads").json()["threads"]] == ["third", "long"]
    _one_line_error(alice.get("/threads/second"), 404, "unknown thread 'second'")
    path = store_path(Configuration(index_dir=str(demo_index), threads_dir=str(tmp_path)), owner_of(KEY_A))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE finrag_threads SET updated = updated - 31 * 86400 WHERE thread_id = 'long'")
    assert [t["thread_id"] for t in alice.get("/threads").json()["threads"]] == ["third"]
    _one_line_error(alice.get("/threads/long"), 404)


def test_damaged_store_is_a_503_and_kept(server, alice, tmp_path, monkeypatch, demo_index):
    """A thread store SQLite cannot read: every thread route and a turn on a thread answer 503 with one line naming
    it (no folder of the server), and the file is left as it was; runs without a thread still answer."""
    monkeypatch.setenv("FINRAG_THREADS_DIR", str(tmp_path))
    path = store_path(Configuration(index_dir=str(demo_index), threads_dir=str(tmp_path)), owner_of(KEY_A))
    path.write_bytes(b"not a database" * 100)
    for r in (alice.post("/threads"), alice.get("/threads"), alice.get("/threads/x"),
              _invoke(alice, FIRST, "x")):
        detail = _one_line_error(r, 503, "damaged", path.name, "not reset")
        assert str(tmp_path) not in detail
    assert path.read_bytes() == b"not a database" * 100
    assert _invoke(alice, FIRST, None).status_code == 200


def _turns_in_order(answers: list[httpx.Response], turns: list[dict]) -> None:
    """Concurrent turns on one thread: each answered one has its own turn number, and the thread holds exactly
    those turns, numbered 1..n (interleaved turns would share a number, and one would be lost)."""
    ok = [r.json()["output"] for r in answers if r.status_code == 200]
    assert all(r.status_code in (200, 409) for r in answers), [r.text[:200] for r in answers]
    assert ok, [r.text[:200] for r in answers]
    assert sorted(o["conversation"]["turn"] for o in ok) == list(range(1, len(ok) + 1))
    assert [t["turn"] for t in turns] == list(range(1, len(ok) + 1))


def test_concurrent_turns_on_one_thread_are_serialised(server, alice):
    """Six turns sent at once on one thread run one after another: turns 1..6, each with its own number."""
    alice.post("/threads", json={"thread_id": "busy"})
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: _invoke(alice, FIRST, "busy"), range(6)))
    assert [r.status_code for r in answers] == [200] * 6, [r.text[:200] for r in answers]
    _turns_in_order(answers, alice.get("/threads/busy").json()["turns"])


def test_a_thread_held_elsewhere_is_a_409(demo_index, tmp_path, monkeypatch):
    """A turn waits for the thread while the request has time (here 3 s): held all that time by another process,
    the turn and a deletion are refused with 409 and one line, and nothing is added to the thread."""
    from finrag.server import create_app

    monkeypatch.setenv("FINRAG_THREADS_DIR", str(tmp_path))
    path = store_path(Configuration(index_dir=str(demo_index), threads_dir=str(tmp_path)), owner_of(KEY_A))
    hold = ("import fcntl, sys, time\nfh = open(sys.argv[1], 'a+b')\n"
            "fcntl.lockf(fh, fcntl.LOCK_EX, 1, int(sys.argv[2]))\nprint('held', flush=True)\ntime.sleep(60)\n")
    with ThreadServer(create_app(demo_index, api_key=KEY_A, timeout_s=3, warm_up=False)) as srv, \
            httpx.Client(base_url=srv.url, timeout=30, headers={"X-API-Key": KEY_A}) as http:
        assert http.post("/threads", json={"thread_id": "held"}).status_code == 201
        offset = ThreadStore._offset("held")  # the byte of the thread's lock
        holder = subprocess.Popen([sys.executable, "-c", hold, str(path) + ".lock", str(offset)],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            t0 = time.monotonic()
            _one_line_error(_invoke(http, FIRST, "held"), 409, "thread 'held' is answering another turn")
            assert 2.0 < time.monotonic() - t0 < 3.5  # it waited for the thread as long as the request could
            _one_line_error(http.delete("/threads/held"), 409, "answering another turn")
        finally:
            holder.kill()
            holder.wait(10)
        assert http.get("/threads/held").json()["turns"] == []
        assert _invoke(http, FIRST, "held").json()["output"]["conversation"]["turn"] == 1  # free again


def test_turn_lock_survives_another_thread_closing(tmp_path):
    """The cross-process lock of a turn holds while turns of other threads come and go in the same process (POSIX
    drops every lock of a process on a file when any of its handles of it is closed): another process cannot take
    it."""
    store = ThreadStore.sqlite(tmp_path / "threads.sqlite")
    probe = ("import fcntl, sys\nfh = open(sys.argv[1], 'a+b')\n"
             "try:\n    fcntl.lockf(fh, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, int(sys.argv[2]))\n    print('taken')\n"
             "except OSError:\n    print('held')\n")
    try:
        with store.turn("a"):
            for other in ("b", "c", "d"):
                with store.turn(other):
                    pass
            out = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "threads.sqlite.lock"),
                                  str(ThreadStore._offset("a"))], capture_output=True, text=True, timeout=30).stdout
            assert out.strip() == "held"
        with store.turn("a", wait=0.0):  # released at the end
            pass
    finally:
        store.close()


# ------------------------------------------------------------------------------- two worker processes
def _open_by(pid: int, path: Path) -> bool:
    """Whether process `pid` has `path` open."""
    try:
        return any(os.path.realpath(f"/proc/{pid}/fd/{fd}") == str(path.resolve()) for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False


CYCLE = [("What about Cobalt?", "What was Cobalt Software's total revenue in FY2022?", "COBALTSOFTWARE_2022_10K"),
         ("How about 2023?", "What was Cobalt Software's total revenue in FY2023?", "COBALTSOFTWARE_2023_10K"),
         ("What about Acme Widgets?", RESOLVED, "ACMEWIDGETS_2023_10K"),
         ("And in FY2022?", FIRST, "ACMEWIDGETS_2022_10K")]
"""Follow-ups after turn 1 (Acme, FY2022), in a cycle: each is resolved from the turn before it."""


def test_two_workers_share_one_thread_store(demo_index, tmp_path):
    """`finrag serve --workers 2`: turns of one thread sent one after another land on both workers, and each is
    resolved from the turn before it, whichever worker answered that one; turns sent at once are serialised across
    the workers (the store's file lock): each its own number, none lost."""
    path = store_path(Configuration(index_dir=str(demo_index), threads_dir=str(tmp_path / "threads")))
    made = ThreadStore.sqlite(path)  # made here: only turns reach the workers before the check below
    made.create("shared")
    made.close()
    # the log is checked below, once every turn is in
    with finrag_serve(demo_index, tmp_path, "--workers", "2", env={"FINRAG_THREADS_DIR": str(tmp_path / "threads")},
                      no_traceback=False) as served:
        url, proc, log = served.url, served.proc, served.log
        deadline = time.monotonic() + 120
        while log.read_text(errors="replace").count("Application startup complete") < 2:
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text(errors="replace")[-3000:]
            time.sleep(0.5)
        workers = [int(p) for p in dict.fromkeys(re.findall(r"Started server process \[(\d+)\]", log.read_text()))]
        assert len(workers) == 2
        with httpx.Client(base_url=url, timeout=60) as http:
            out = _invoke(http, FIRST, "shared").json()["output"]
            assert out["routing"]["routed_docs"] == ["ACMEWIDGETS_2022_10K"]
            sent = 1
            while sent < 8 or not all(_open_by(w, path) for w in workers):
                assert sent < 40, f"40 turns and not both workers answered one: {[_open_by(w, path) for w in workers]}"
                question, resolved, doc = CYCLE[(sent - 1) % len(CYCLE)]
                out = _invoke(http, question, "shared").json()["output"]
                sent += 1
                assert (out["conversation"]["turn"], out["resolved_question"], out["routing"]["routed_docs"]) == \
                    (sent, resolved, [doc]), json.dumps(out)[:500]
            turns = http.get("/threads/shared").json()["turns"]
            assert [t["turn"] for t in turns] == list(range(1, sent + 1))
            assert http.post("/threads", json={"thread_id": "burst"}).status_code == 201
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(lambda _: _invoke(http, FIRST, "burst"), range(8)))
            _turns_in_order(answers, http.get("/threads/burst").json()["turns"])
        text = log.read_text(errors="replace")
        assert "Traceback" not in text, text[-3000:]
