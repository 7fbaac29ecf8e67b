"""A bounded load test of `finrag serve`: N requests, C at a time, on 127.0.0.1 only.

    python -m bench.load_test                       # builds the demo index in a temp dir, 200 req, 8 concurrent
    python -m bench.load_test --index .finrag --system all --requests 200 --concurrency 8

It starts `python -m finrag.cli serve` on a free loopback port (against --index, or a freshly built demo
index), waits for /health, sends a few warm-up requests (not counted), then fires the measured requests
at `/{system}/invoke` with questions cycled from the demo question set (or --questions JSONL), and
checks every response: HTTP 200, a non-empty answer, and the contract's fields. It prints one JSON
object (p50/p95/max latency, throughput, errors) and one Markdown table row, and exits 1 if any
request failed. Nothing leaves the machine.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HOST = "127.0.0.1"
SYSTEMS = ("cbr", "sfr", "hdrr", "cbr_meta", "cbr_llm_ctx", "agentic")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def build_demo_index(work: Path) -> tuple[Path, list[dict]]:
    from finrag.tools.demo.corpus import demo_questions, generate_demo_corpus
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import build_variant, index_paths
    from finrag.tools.indexing.store import Store

    paths = generate_demo_corpus(work / "filings")
    index_dir = work / "index"
    store = Store(index_dir, create=True)
    try:
        store.check_embedder(get_embedder())
        report = index_paths([work / "filings"], store, progress=False, workers=1)
        if report.failed:
            raise SystemExit(f"demo indexing failed: {report.failed}")
        for variant in ("meta", "llmctx"):
            build_variant(store, variant, progress=False)
    finally:
        store.close()
    return index_dir, demo_questions(paths)


def load_questions(path: str | None) -> list[str]:
    if path:
        rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [r["question"] for r in rows]
    from finrag.tools.demo.corpus import demo_questions

    return [q["question"] for q in demo_questions()]


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def check(resp: httpx.Response, system: str) -> str | None:
    if resp.status_code != 200:
        return f"HTTP {resp.status_code}: {resp.text[:200]}"
    try:
        out = resp.json()["output"]
    except (ValueError, KeyError):
        return "response is not a LangServe invoke response"
    missing = {"id", "system", "question", "answer", "routing", "contexts", "cost", "timings_ms"} - set(out)
    if missing:
        return f"missing fields {sorted(missing)}"
    if out["system"] != system:
        return f"system {out['system']!r} != {system!r}"
    if not str(out["answer"]).strip():
        return "empty answer"
    return None


async def run_load(url: str, systems: list[str], questions: list[str], n: int, concurrency: int,
                   warmup: int) -> dict:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        for i in range(warmup):  # load models and caches; not measured
            s = systems[i % len(systems)]
            r = await client.post(f"/{s}/invoke", json={"input": {"question": questions[i % len(questions)]}})
            if check(r, s):
                raise SystemExit(f"warm-up request failed: {check(r, s)}")

        sem = asyncio.Semaphore(concurrency)
        latencies: list[float] = []
        per_system: dict[str, list[float]] = {s: [] for s in systems}
        errors: list[str] = []

        async def one(i: int) -> None:
            s = systems[i % len(systems)]
            q = questions[i % len(questions)]
            async with sem:
                t0 = time.perf_counter()
                try:
                    r = await client.post(f"/{s}/invoke", json={"input": {"question": q, "id": f"load-{i}"}})
                    problem = check(r, s)
                except httpx.HTTPError as exc:
                    problem = f"{type(exc).__name__}: {exc}"
                ms = (time.perf_counter() - t0) * 1000.0
            latencies.append(ms)
            per_system[s].append(ms)
            if problem:
                errors.append(f"request {i} ({s}): {problem}")

        t_start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - t_start

    return {
        "requests": n, "concurrency": concurrency, "systems": systems, "errors": len(errors),
        "error_samples": errors[:5],
        "p50_ms": round(percentile(latencies, 50), 1), "p95_ms": round(percentile(latencies, 95), 1),
        "max_ms": round(max(latencies), 1), "mean_ms": round(statistics.fmean(latencies), 1),
        "throughput_rps": round(n / wall, 2), "wall_s": round(wall, 2),
        "per_system_p50_ms": {s: round(percentile(v, 50), 1) for s, v in per_system.items() if v},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--index", default=None, help="index directory (default: build the demo index in a temp dir)")
    p.add_argument("--system", default="hdrr", help="a system name, or 'all' to cycle through the six")
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--warmup", type=int, default=6, help="unmeasured requests before the run")
    p.add_argument("--questions", default=None, help="JSONL of {\"question\": ...} (default: the demo questions)")
    p.add_argument("--json-out", default=None, help="also write the JSON result to this file")
    p.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for `finrag serve` (repeat it: --serve-arg=--workers --serve-arg=2)")
    a = p.parse_args(argv)
    if not 1 <= a.requests <= 10_000 or not 1 <= a.concurrency <= 64:
        p.error("--requests must be 1..10000 and --concurrency 1..64")
    systems = list(SYSTEMS) if a.system == "all" else [a.system]
    if any(s not in SYSTEMS for s in systems):
        p.error(f"unknown system {a.system!r}; choose one of {', '.join(SYSTEMS)} or all")

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with tempfile.TemporaryDirectory(prefix="finrag-load-") as tmp:
        tmp_path = Path(tmp)
        if a.index:
            index_dir, questions = Path(a.index), load_questions(a.questions)
        else:
            t0 = time.perf_counter()
            index_dir, qas = build_demo_index(tmp_path)
            questions = load_questions(a.questions) if a.questions else [q["question"] for q in qas]
            print(f"built the demo index in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

        port = free_port()
        url = f"http://{HOST}:{port}"
        log = tmp_path / "serve.log"
        env = {**os.environ}
        env.pop("FINRAG_API_KEY", None)
        with log.open("w") as fh:
            proc = subprocess.Popen([sys.executable, "-m", "finrag.cli", "serve", "--index", str(index_dir),
                                     "--host", HOST, "--port", str(port), *a.serve_arg], stdout=fh, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 180
            health = None
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    raise SystemExit(f"server exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
                try:
                    r = httpx.get(f"{url}/health", timeout=5)
                    if r.status_code == 200:
                        health = r.json()
                        break
                    if r.status_code == 503:
                        raise SystemExit(f"index not usable: {r.json().get('detail')}")
                except httpx.HTTPError:
                    pass
                time.sleep(0.25)
            if health is None:
                raise SystemExit("server did not become healthy within 180 s")
            print(f"server pid {proc.pid} healthy on {url}", file=sys.stderr, flush=True)
            result = asyncio.run(run_load(url, systems, questions, a.requests, a.concurrency, a.warmup))
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    result.update({"index_documents": health["documents"], "cpus": os.cpu_count(),
                   "python": platform.python_version(), "server": " ".join(["finrag serve", *a.serve_arg])})
    print(json.dumps(result, indent=2))
    label = a.system if a.system != "all" else "all six (cycled)"
    print(f"| {label} | {result['requests']} | {result['concurrency']} | {result['errors']} | "
          f"{result['p50_ms']:.0f} | {result['p95_ms']:.0f} | {result['max_ms']:.0f} | "
          f"{result['throughput_rps']:.1f} |")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(result, indent=2))
    assert result["errors"] == 0, f"{result['errors']} request(s) failed: {result['error_samples']}"
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as exc:
        print(f"load test failed: {exc}", file=sys.stderr)
        sys.exit(1)
