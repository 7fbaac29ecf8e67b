"""Issue 49 case 1: open files and memory stay flat over thousands of questions, under a low open-file limit.

`Store._reader()` kept one SQLite connection per thread it ever served, and LangGraph runs each synchronous
`invoke` on threads of its own: every question left a connection (a file handle and ~400 KB) behind, until
SQLite could not open the database any more. Each check runs in a subprocess with RLIMIT_NOFILE 256 and counts
/proc/self/fd and VmRSS after a warm-up and at the end.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROBE = textwrap.dedent("""
    import json, os, resource, sys
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    from finrag import run_query

    def fds():
        return len(os.listdir("/proc/self/fd"))

    def rss_kb():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1])

    index, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    questions = ["What was Acme Widgets' total revenue in FY2022?", "And in FY2023?"]
    seen, answered = [], 0
    for i in range(n):
        if mode == "threads":
            a = run_query(questions[i % 2], "hdrr", index=index, thread_id=f"t{i % 5}")
        else:
            a = run_query(questions[0], "hdrr", index=index)
        answered += bool(a.answer)
        if i + 1 in (n // 10, n):
            seen.append((fds(), rss_kb()))
    print(json.dumps({"answered": answered, "seen": seen}))
""")


def _run(index: Path, n: int, mode: str) -> dict:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    out = subprocess.run([sys.executable, "-c", PROBE, str(index), str(n), mode], capture_output=True, text=True,
                         timeout=900, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _flat(index: Path, n: int, mode: str) -> None:
    got = _run(index, n, mode)
    assert got["answered"] == n
    (fd_early, rss_early), (fd_end, rss_end) = got["seen"]
    assert fd_end <= fd_early + 2, got  # one connection per question would pass 256 long before the end
    assert rss_end - rss_early < 40_000, got  # kB: ~400 KB per leaked connection would be ~700 MB at 2,000


@pytest.mark.parametrize("mode", ["plain", "threads"])
def test_questions_past_the_open_file_limit_keep_open_files_flat(demo_index, tmp_path, mode):
    """300 questions (plain, and turns of conversations) under a limit of 256 open files: one leaked handle per
    question ran out of them after ~230."""
    index = tmp_path / "index"
    shutil.copytree(demo_index, index)  # the thread store is written beside the index
    _flat(index, 300, mode)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["plain", "threads"])
def test_two_thousand_questions_keep_open_files_and_memory_flat(demo_index, tmp_path, mode):
    """The issue's measure: 2,000 synchronous questions, and 2,000 conversation turns (~4 minutes each here)."""
    index = tmp_path / "index"
    shutil.copytree(demo_index, index)
    _flat(index, 2000, mode)


def test_a_store_closes_the_connection_of_a_thread_that_ended(demo_index):
    import threading

    from finrag.tools.indexing.store import Store

    store = Store(demo_index)
    try:
        def read():
            store.count_documents()

        for _ in range(50):
            t = threading.Thread(target=read)
            t.start()
            t.join()
        assert len(store._readers) <= 1, len(store._readers)  # none of the 50 ended threads holds one
        store.count_documents()
        assert len(store._readers) == 1
    finally:
        store.close()
    assert not store._readers


HEALTH = textwrap.dedent("""
    import json, os, resource, sys
    from fastapi.testclient import TestClient
    from finrag.server import create_app

    with TestClient(create_app(sys.argv[1], warm_up=False)) as client:
        before = client.get("/health")
        assert client.post("/sfr/invoke", json={"input": {"question": "What was Acme Widgets' revenue in FY2022?"}}
                           ).status_code == 200
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 16, hard))
        held = []
        try:
            while True:  # every file handle the process may still open
                held.append(open(os.devnull))
        except OSError:
            pass
        full = client.get("/health")
        for f in held:
            f.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        after = client.get("/health")
    print(json.dumps([[r.status_code, r.json()] for r in (before, full, after)]))
""")


def test_health_fails_when_the_server_cannot_open_its_index(demo_index):
    """Issue 49 case 1: with the process out of file handles every question fails, and /health must say so (it
    answered 'ok' from the one connection its own thread already had)."""
    out = subprocess.run([sys.executable, "-c", HEALTH, str(demo_index)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    (s0, b0), (s1, b1), (s2, b2) = json.loads(out.stdout.strip().splitlines()[-1])
    assert s0 == 200 and b0["status"] == "ok"
    assert s1 == 503 and b1["status"] == "unavailable", (s1, b1)
    assert "open files" in b1["detail"] and "\n" not in b1["detail"], b1
    assert str(demo_index) not in b1["detail"]  # /health names the index, never its path
    assert s2 == 200 and b2["documents"] == b0["documents"]
