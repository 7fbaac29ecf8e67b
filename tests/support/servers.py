"""Helpers for tests (and bench/fault_injection.py) that run real servers on loopback: a free port, waiting
until ready, stopping, uvicorn in a thread, and the concurrent requests and /health polls of the hung-LLM cases."""
from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import httpx

HOST = "127.0.0.1"


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
