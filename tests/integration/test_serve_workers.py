"""`finrag serve --workers 2`: two processes answer on one port, one request per connection (so a request
goes to a worker free to accept it), and they stop when their supervisor is killed (SIGKILL gives it no chance
to stop them: each worker watches for it), so no server is left on the port."""
from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import time

import httpx
from support.servers import HOST, finrag_serve


def _refused(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        return s.connect_ex((HOST, port)) != 0


async def _ask(url: str, questions: list[str]) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        return await asyncio.gather(*(client.post("/hdrr/invoke", json={"input": {"question": q}})
                                      for q in questions))


def test_two_workers_answer_and_stop_with_their_supervisor(demo_index, demo_qas, tmp_path):
    # the log is checked below, while the server runs and after its supervisor is killed
    with finrag_serve(demo_index, tmp_path, "--workers", "2", no_traceback=False) as served:
        url, port, proc, log = served.url, served.port, served.proc, served.log
        deadline = time.monotonic() + 120
        while log.read_text(errors="replace").count("Application startup complete") < 2:
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text(errors="replace")[-3000:]
            time.sleep(0.5)
        questions = [q["question"] for q in demo_qas[:4]] * 2
        responses = asyncio.run(_ask(url, questions))
        for r in responses:
            assert r.status_code == 200, r.text[:500]
            assert r.json()["output"]["answer"].strip()
            assert r.headers.get("connection") == "close"  # the next request goes to a worker free to accept it
        text = log.read_text(errors="replace")
        assert "2 worker processes" in text
        workers = set(re.findall(r"Started server process \[(\d+)\]", text))
        assert len(workers) == 2, text[-3000:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 30
        while not _refused(port):
            assert time.monotonic() < deadline, "the workers kept serving after their supervisor was killed"
            time.sleep(0.5)
        assert "supervising process" in log.read_text(errors="replace")
        assert "Traceback" not in log.read_text(errors="replace"), log.read_text(errors="replace")[-3000:]
