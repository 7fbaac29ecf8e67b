"""Issue 11, item 2: one writer at a time, readers never race on the FAISS files.

Before the fix every process that found a stale FAISS file rebuilt it through the same `faiss_<variant>.tmp`,
so two at once made one fail with FileNotFoundError (22 of 120 rebuilds in a loop through the Store API),
and two `finrag index` runs wrote the same index at once. Now a save goes through a unique temporary file
under `faiss.lock`, and `finrag index` holds `write.lock`: a second writer gets "index ... is locked by
PID N" and exit code 4 (`tools/indexing/locking.py`, docs/architecture.md "Concurrency").
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from support.servers import CLI_PYTHON

REPO = Path(__file__).resolve().parents[2]

_REBUILDER = r"""
import sys, time
try:
    from finrag.tools.indexing.store import Store
except ImportError:  # the layout before the restructure
    from finrag.tools.store import Store

store = Store(sys.argv[1])
errors = 0
for i in range(int(sys.argv[2])):
    try:
        store.build_faiss("base")
    except Exception as exc:
        errors += 1
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
print(errors)
"""


def _env() -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def _copy_index(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.lock"))
    return dst


def test_concurrent_rebuilds_of_the_derived_vector_files_never_fail(demo_index, tmp_path):
    """Three processes rebuild the derived vector files (FAISS / vector files: whatever the Store keeps next to
    SQLite) 40 times each through the Store API, starting from none at all. Before the fix 10 of 120 failed
    with FileNotFoundError on the shared `faiss_base.tmp`."""
    index = _copy_index(demo_index, tmp_path / "idx")
    derived = [p for p in index.iterdir() if p.name != "finrag.sqlite" and not p.name.startswith("finrag.sqlite-")]
    for p in derived:
        p.unlink()
    procs = [subprocess.Popen([CLI_PYTHON, "-c", _REBUILDER, str(index), "40"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=_env()) for _ in range(3)]
    results = [p.communicate(timeout=900) for p in procs]
    errors = [int(out.strip().splitlines()[-1]) if out.strip() else -1 for out, _ in results]
    assert errors == [0, 0, 0], [err[-1500:] for _, err in results]
    assert not list(index.glob("*.tmp*")), list(index.glob("*.tmp*"))
    check = subprocess.run([CLI_PYTHON, "-m", "finrag.cli", "index", "--check", "--index", str(index)],
                           capture_output=True, text=True, env=_env(), timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    ask = subprocess.run([CLI_PYTHON, "-m", "finrag.cli", "ask", "--index", str(index), "--system", "cbr", "--json",
                          "What was Acme Widgets' total revenue in FY2022?"], capture_output=True, text=True,
                         env=_env(), timeout=300)
    assert ask.returncode == 0 and json.loads(ask.stdout)["contexts"], ask.stderr[-1500:]


def test_a_second_writer_gets_index_is_locked_by_pid(demo_corpus, tmp_path):
    """The first writer embeds with MiniLM (tens of seconds for the six demo filings) so that it still holds the
    lock when the second starts: the default static embedder indexes them in about a second."""
    pytest.importorskip("sentence_transformers", reason="the slow first writer embeds with MiniLM (finrag[minilm])")
    index = tmp_path / "idx"
    first = subprocess.Popen([CLI_PYTHON, "-m", "finrag.cli", "index", str(demo_corpus[0]), "--index", str(index),
                              "-q", "--workers", "1", "--embedder", "minilm"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=_env())
    try:
        deadline = time.monotonic() + 120
        while not (index / "finrag.sqlite").exists():  # the first writer has opened the index
            assert first.poll() is None and time.monotonic() < deadline, first.communicate()
            time.sleep(0.05)
        second = subprocess.run([CLI_PYTHON, "-m", "finrag.cli", "index", str(demo_corpus[0]), "--index",
                                 str(index), "-q"], capture_output=True, text=True, env=_env(), timeout=300)
        still_running = first.poll() is None
    finally:
        out, err = first.communicate(timeout=600)
    assert second.returncode == 4, (second.returncode, second.stdout[-500:], second.stderr[-1500:])
    assert still_running, "the first writer finished before the second one started; the test proves nothing"
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and f"is locked by PID {first.pid}" in lines[0], second.stderr
    assert first.returncode == 0, err[-2000:]
    # the first writer's index is complete and consistent
    check = subprocess.run([CLI_PYTHON, "-m", "finrag.cli", "index", "--check", "--index", str(index)],
                           capture_output=True, text=True, env=_env(), timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.parametrize("command", [["info"], ["ask", "What was Acme Widgets' total revenue in FY2022?"]])
def test_readers_work_while_a_writer_holds_the_lock(demo_index, tmp_path, command):
    from finrag.tools.indexing.locking import writer_lock

    index = _copy_index(demo_index, tmp_path / "idx")
    with writer_lock(index):
        r = subprocess.run([CLI_PYTHON, "-m", "finrag.cli", *command[:1], "--index", str(index), *command[1:]],
                           capture_output=True, text=True, env=_env(), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
