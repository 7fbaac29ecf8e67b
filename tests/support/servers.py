"""Helpers for tests that run real servers on loopback: a free port, waiting until ready, stopping."""
from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

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
