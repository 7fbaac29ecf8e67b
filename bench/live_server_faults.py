"""The fault-injection bench's live-server scenario (issue 34 case 1): filings indexed, replaced and removed
while `finrag serve --workers 2` answers, every answer checked for routing to the right filing at every step.

The index starts with one demo company's filings; then, while the server runs, a second and a third company
are indexed, the first company's FY2023 file is replaced (new bytes, same filing: re-indexed in place), the
second company is removed, then the third company's FY2023 filing. After each step every company's FY2023
revenue question is asked `asks` times (spread over both workers) and checked:

* a company whose FY2023 filing is indexed must be routed to exactly that filing (else a stale route);
* a company with no filing must get `company_not_indexed`; a removed filing must never be routed to (else a
  stale route);
* every request must be answered 200 (else an answer lost).

    python -m bench.fault_injection --only live_server        # just this scenario (after the clean index)
"""
from __future__ import annotations

import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Callable

import httpx

from tests.support.servers import HOST, free_port, stop_process, wait_http


def _ask(url: str, question: str) -> tuple[int, str, list[str]]:
    try:
        r = httpx.post(f"{url}/hdrr/invoke", json={"input": {"question": question}}, timeout=120)
    except httpx.HTTPError as exc:
        return 599, type(exc).__name__, []
    if r.status_code != 200:
        return r.status_code, "", []
    routing = r.json()["output"]["routing"]
    return 200, routing["status"], list(routing["routed_docs"])


def live_server(work: Path, filings: list[Path], finrag: Callable[..., subprocess.CompletedProcess], env: dict,
                python: str, asks: int = 4) -> dict:
    """Run the scenario (see the module docstring) in `work`, with the demo `filings`; its result row."""
    by_company: dict[str, list[Path]] = {}
    for f in sorted(filings):
        by_company.setdefault(f.name.split("_")[0], []).append(f)
    keys = sorted(by_company)[:3]
    names = {k: k for k in keys}
    from finrag.tools.demo.companies import demo_doc_id, load_companies

    for c in load_companies():
        key = demo_doc_id(c, 2023).split("_")[0]
        if key in names:
            names[key] = c.name
    folders = {k: work / f"live_{k}" for k in keys}
    for k, folder in folders.items():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for f in by_company[k]:
            shutil.copy(f, folder / f.name)
    index = work / "live_index"
    shutil.rmtree(index, ignore_errors=True)
    row: dict = {"workers": 2, "asks_per_company_per_step": asks, "steps": []}
    r = finrag("index", str(folders[keys[0]]), "--index", str(index), "-q")
    if r.returncode != 0:
        return {**row, "error": r.stderr[-500:], "failed": True}
    url = f"http://{HOST}:{free_port()}"
    log = work / "live_server.serve.log"
    with log.open("w") as fh:
        proc = subprocess.Popen([python, "-m", "finrag.cli", "serve", "--index", str(index), "--host", HOST,
                                 "--port", url.rsplit(":", 1)[1], "--workers", "2"],
                                stdout=fh, stderr=subprocess.STDOUT, env=env)
    indexed: set[str] = {f.stem for f in by_company[keys[0]]}
    removed: set[str] = set()
    stale, lost, requests = 0, 0, 0

    def check_step(step: str, seconds: float) -> None:
        nonlocal stale, lost, requests
        outcome: Counter = Counter()
        bad: list[dict] = []
        for k in keys:
            want = f"{k}_2023_10K"
            question = f"What was {names[k]}'s total revenue in FY2023?"
            for _ in range(asks):
                status, route, docs = _ask(url, question)
                requests += 1
                if status != 200:
                    lost += 1
                    bad.append({"company": k, "http": status})
                    continue
                has_company = any(d.startswith(k + "_") for d in indexed)
                ok = docs == [want] if want in indexed else (
                    not set(docs) & removed and (has_company or route == "company_not_indexed"))
                outcome[f"{k}:{route}"] += 1
                if not ok:
                    stale += 1
                    bad.append({"company": k, "status": route, "routed": docs})
        row["steps"].append({"step": step, "write_seconds": round(seconds, 2), "outcomes": dict(outcome),
                             "wrong": bad[:6]})

    def write(*args: str) -> float:
        t0 = time.monotonic()
        res = finrag(*args, "--index", str(index), "-q")
        if res.returncode != 0:
            raise RuntimeError(f"finrag {' '.join(args)}: exit {res.returncode}: {res.stderr.strip()[-300:]}")
        return time.monotonic() - t0

    try:
        wait_http(f"{url}/health", timeout=300, proc=proc, log=log)
        check_step(f"start: {keys[0]} indexed", 0.0)
        for k in keys[1:]:
            seconds = write("index", str(folders[k]))
            indexed |= {f.stem for f in by_company[k]}
            check_step(f"{k} indexed while serving", seconds)
        target = folders[keys[0]] / f"{keys[0]}_2023_10K.pdf"
        if target.exists():
            with target.open("ab") as fh:  # new bytes after %%EOF: the same filing, a new content hash
                fh.write(b"\n% replaced while serving\n")
            check_step(f"{keys[0]}_2023_10K replaced while serving", write("index", str(folders[keys[0]])))
        gone = sorted(f.stem for f in by_company[keys[1]])
        seconds = write("index", "--remove", *gone)
        indexed -= set(gone)
        removed |= set(gone)
        check_step(f"{keys[1]} removed while serving", seconds)
        last = f"{keys[2]}_2023_10K"
        seconds = write("index", "--remove", last)
        indexed.discard(last)
        removed.add(last)
        check_step(f"{last} removed while serving", seconds)
    except Exception as exc:  # noqa: BLE001 - recorded as the scenario's failure
        row["error"] = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        stop_process(proc)
    row.update({"requests": requests, "stale_routes": stale, "answers_lost": lost,
                "traceback_in_log": "Traceback" in log.read_text(errors="replace")})
    row["failed"] = bool(stale or lost or row["traceback_in_log"] or "error" in row)
    return row
