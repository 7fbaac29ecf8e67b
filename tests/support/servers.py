"""Helpers for tests (and bench/fault_injection.py) that run real servers on loopback: a free port, waiting
until ready, stopping, `finrag serve` as a user starts it, uvicorn in a thread, and the concurrent requests and
/health polls of the hung-LLM cases."""
from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import httpx

HOST = "127.0.0.1"
# FINRAG_TEST_PYTHON=/path/to/another/venv/bin/python runs the commands of another checkout (e.g. the code before a fix)
CLI_PYTHON = os.environ.get("FINRAG_TEST_PYTHON") or sys.executable
# the machine's LLM, key and server settings: a command a test starts reads none of them unless the test passes it
MACHINE_SETTINGS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "FINRAG_LLM", "FINRAG_LLM_BASE_URL", "FINRAG_LLM_TIMEOUT_S",
                    "FINRAG_LLM_MAX_RETRIES", "FINRAG_API_KEY", "FINRAG_API_KEYS", "FINRAG_SERVE_TIMEOUT",
                    "FINRAG_SERVE_MAX_BATCH", "FINRAG_SERVE_MAX_BODY", "FINRAG_ON_LLM_ERROR", "FINRAG_FAST_PATH",
                    "FINRAG_THREADS_DIR")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_http(url: str, *, timeout: float, ok=(200,), proc: subprocess.Popen | None = None, log: Path | None = None):
    """Poll `url` until it answers with a status in `ok`; fail early if `proc` exits (with its log's tail)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise RuntimeError(f"server exited with {proc.returncode} before it was ready:\n{tail}")
        try:
            r = httpx.get(url, timeout=5)
            if r.status_code in ok:
                return r
            last = f"{r.status_code} {r.text[:200]}"
        except httpx.HTTPError as exc:
            last = repr(exc)
        time.sleep(0.25)
    raise RuntimeError(f"{url} not ready after {timeout:.0f} s (last: {last})")


def stop_process(proc: subprocess.Popen) -> None:
    """Terminate, then kill if it does not exit within 15 s."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def clean_env(**extra: str) -> dict[str, str]:
    """The test process's environment without the machine's settings (`MACHINE_SETTINGS`), offline, plus `extra`."""
    base = {k: v for k, v in os.environ.items() if k not in MACHINE_SETTINGS}
    return {**base, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", **extra}


@dataclass
class Served:
    """A running `finrag serve` process: its base URL, port, process and log file."""

    url: str
    port: int
    proc: subprocess.Popen
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def finrag_serve(index: Path | str, folder: Path, *args: str, env: dict[str, str] | None = None,
                 ready_timeout: float = 180, no_traceback: bool = True) -> Iterator[Served]:
    """`finrag serve --index <index>` on a free loopback port, as a user starts it (`clean_env()` plus `env`; `args`
    are further command-line options), its output in `folder`/serve.log. Yields once /health answers; stops the
    process on exit, then (with `no_traceback`) asserts its log holds no traceback."""
    port = free_port()
    log = folder / "serve.log"
    with log.open("w") as fh:
        proc = subprocess.Popen([CLI_PYTHON, "-m", "finrag.cli", "serve", "--index", str(index), "--host", HOST,
                                 "--port", str(port), *args], stdout=fh, stderr=subprocess.STDOUT,
                                env=clean_env(**(env or {})))
    served = Served(f"http://{HOST}:{port}", port, proc, log)
    try:
        wait_http(f"{served.url}/health", timeout=ready_timeout, proc=proc, log=log)
        yield served
    finally:
        stop_process(proc)
        if no_traceback:
            text = served.log_text()
            assert "Traceback" not in text, text[-3000:]


class ThreadServer:
    """uvicorn serving an app in a thread of the test process (so a test can patch it, set the LLM's environment
    and read its log)."""

    def __init__(self, app):
        import uvicorn

        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host=HOST, port=self.port, log_level="warning",
                                                    timeout_graceful_shutdown=2))
        self.thread = threading.Thread(target=self.server.run, name=f"uvicorn-{self.port}", daemon=True)

    def __enter__(self) -> "ThreadServer":
        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("in-thread server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(20)


class SlowGraph:
    """Stands in for a compiled graph that hangs (so a route's timeout shows in under a second, deterministically)."""

    async def astream(self, *args, **kwargs):
        await asyncio.sleep(30)
        yield "values", {}

    def stream(self, *args, **kwargs):  # pragma: no cover - the server uses astream
        time.sleep(30)
        yield "values", {}


def thread_count(pid: int) -> int:
    """How many threads process `pid` has now (Linux /proc)."""
    return len(os.listdir(f"/proc/{pid}/task"))


def invoke_all(url: str, questions: list[str], timeout: float = 60) -> list[tuple[int, float]]:
    """POST every question to `url`/hdrr/invoke at once; (status, seconds) each (599: no answer within `timeout`)."""
    def one(q: str) -> tuple[int, float]:
        t0 = time.monotonic()
        try:
            status = httpx.post(f"{url}/hdrr/invoke", json={"input": {"question": q}}, timeout=timeout).status_code
        except httpx.HTTPError:
            status = 599
        return status, time.monotonic() - t0

    with ThreadPoolExecutor(len(questions)) as pool:
        return list(pool.map(one, questions))


def poll_health_until(done: Future, url: str, *, timeout: float, failed: float,
                      each: Callable[[], None] | None = None) -> list[float]:
    """GET `url`/health every 100 ms until `done` is done; the seconds each poll took (`failed` for a poll that got
    no 200 within `timeout`). `each` runs after every poll (to sample the server's state)."""
    health: list[float] = []
    while not done.done():
        t0 = time.monotonic()
        try:
            ok = httpx.get(f"{url}/health", timeout=timeout).status_code == 200
        except httpx.HTTPError:
            ok = False
        health.append(time.monotonic() - t0 if ok else failed)
        if each is not None:
            each()
        time.sleep(0.1)
    return health
