"""How fast the answer page answers, and how fast it shows a cited page, on `finrag serve` (127.0.0.1 only).

    python -m bench.web_page                              # the demo index (.finrag-demo/index, else built in a temp dir)
    python -m bench.web_page --index .finrag --rounds 3 --json-out docs/results/bench_web.json

It starts `python -m finrag.cli serve` on a free loopback port and waits for /health, then measures what the
page does (app/web_static/app.js), over HTTP:

* the page itself: `GET /` as a browser asks for it;
* an answer: `POST /{system}/stream_events` with the page's filters, read to the end; `answer_ms` is the
  time until the piece carrying the answer, for HDRR, CBR, and both side by side (two requests at once);
* a cited page, for every citation of the HDRR answers: the page's JSON (passage and marks located) and its
  PNG, the first time the server sees that page (`first_ms`) and again (`cached_ms`).

With Chromium on PATH it also asks in the page itself (tests/support/headless.py): the time from the click
to the rendered answer, and from a citation's click to the page image with its highlight (first and again),
as the page measures them (`data-ms`); and, on the demo index, a conversation (bench/data/web_conversation.jsonl, "Conversation"
ticked: each question a turn of one thread, POST /{system}/stream): each turn's time from the click to its
rendered answer, how many showed their resolved question, and the time a reload takes to read the turns back
(GET /threads/{id}). One JSON object is printed and, with --json-out, written.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx

from bench.load_test import HOST, build_demo_index, free_port, percentile

REPO = Path(__file__).resolve().parents[1]

CONVERSATION_FILE = REPO / "bench" / "data" / "web_conversation.jsonl"
"""The page's conversation on the demo index, one turn a line: a first question, then follow-ups (period, measure,
company, period)."""


def conversation(path: Path = CONVERSATION_FILE) -> list[str]:
    """The conversation's questions in turn order (bench/data/web_conversation.jsonl)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["question"] for r in sorted(rows, key=lambda r: r["turn"])]


CONVERSATION = conversation()
CITE = re.compile(r"\[([A-Za-z0-9_.&-]+), pp?\. (\d+)(?:-\d+)?\]")


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50_ms": round(statistics.median(values), 1), "p95_ms": round(percentile(values, 95), 1),
            "max_ms": round(max(values), 1)} if values else {"n": 0}


def stream_answer(client: httpx.Client, system: str, question: str) -> tuple[float, dict]:
    """(ms until the answer piece, the merged contract) for one question, as the page asks."""
    body = {"input": {"question": question}, "include_names": [f"/{system}"], "include_types": ["chat_model"]}
    t0 = time.perf_counter()
    merged: dict = {}
    answered = None
    with client.stream("POST", f"/{system}/stream_events", json=body, timeout=120) as r:
        r.raise_for_status()
        event = None
        for line in r.iter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
                if event == "error":
                    raise RuntimeError(f"{system}: stream error")
            elif line.startswith("data:") and event == "data":
                ev = json.loads(line[5:])
                if ev.get("event") == "on_chain_stream" and ev.get("name") == f"/{system}":
                    merged.update(ev["data"]["chunk"])
                    if "answer" in ev["data"]["chunk"] and answered is None:
                        answered = (time.perf_counter() - t0) * 1000
    if answered is None:
        raise RuntimeError(f"{system}: no answer in the stream")
    return answered, merged


def cited_pages(contract: dict) -> list[tuple[str, int, int | None]]:
    out = []
    for doc, page in CITE.findall(contract.get("answer", "")):
        page = int(page)
        chunk = next((c["chunk_id"] for c in contract.get("contexts", [])
                      if c["doc_id"] == doc and c["page_start"] <= page <= c["page_end"]), None)
        if (doc, page, chunk) not in out:
            out.append((doc, page, chunk))
    return out


def view_page(client: httpx.Client, doc: str, page: int, chunk: int | None) -> float:
    """ms for the page's JSON and its image (what the viewer fetches for one citation)."""
    t0 = time.perf_counter()
    params = {"zoom": 1.5, **({"chunk": chunk} if chunk is not None else {})}
    view = client.get(f"/documents/{doc}/pages/{page}", params=params, timeout=60)
    view.raise_for_status()
    if view.json().get("image"):
        client.get(view.json()["image"], timeout=60).raise_for_status()
    return (time.perf_counter() - t0) * 1000


def in_browser(url: str, questions: list[str]) -> dict:
    from tests.support.headless import Chromium, chromium_binary

    if chromium_binary() is None:
        return {"skipped": "no chromium on PATH"}
    answers, first, again = [], [], []
    with Chromium(window="1280,800") as browser:
        page = browser.open(f"{url}/")
        page.wait_for("!!document.querySelector('#examples button')", 60)
        for q in questions:
            page.eval("document.querySelector('#viewer-close').click(); true")
            page.type_into("#question", q)
            page.eval("document.querySelectorAll('.result').forEach(r => { r.dataset.stale = '1'; }); "
                      "document.querySelector('#ask-button').click(); true")
            page.wait_for("!document.querySelector('.result[data-stale]') && "
                          "['done', 'error'].includes(document.querySelector('.result').dataset.state)", 120)
            answers.append(float(page.eval("Number(document.querySelector('.result').dataset.ms)")))
            if not page.eval("!!document.querySelector('.answer .chip')"):
                continue
            for bucket in (first, again):
                page.eval("document.querySelector('#page-frame').dataset.state = 'old'; "
                          "document.querySelector('.answer .chip').click(); true")
                page.wait_for("document.querySelector('#page-frame').dataset.state === 'ready'", 60)
                bucket.append(float(page.eval("Number(document.querySelector('#page-frame').dataset.ms)")))
        conversation = conversation_in_page(page, url) if "Acme Widgets" in page.text() else {
            "skipped": "not the demo index"}
        errors = list(page.errors)
    return {"answer": summary(answers), "page_first": summary(first), "page_again": summary(again),
            "conversation": conversation, "browser_errors": errors[:5]}


def conversation_in_page(page, url: str) -> dict:
    """`CONVERSATION` asked with "Conversation" ticked: each turn's ms from the click to its rendered answer (the
    page's `data-ms`), the turns that showed an "Answering:" line, and the ms from a reload to the turns read back."""
    turns = "[...document.querySelectorAll('#turns .turn')]"
    page.eval("sessionStorage.removeItem('finrag.thread'); document.querySelector('#conversation-mode').click(); true")
    page.wait_for("!document.querySelector('#ask-button').disabled && !document.querySelector('#conversation-view').hidden", 30)
    turn_ms, resolved, failed = [], 0, 0
    for i, q in enumerate(CONVERSATION):
        page.type_into("#question", q)
        page.eval("document.querySelector('#ask-button').click(); true")
        page.wait_for(f"{turns}.length === {i + 1} && ['done', 'error'].includes({turns}[{i}].querySelector('.result')"
                      ".dataset.state) && !document.querySelector('#ask-button').disabled", 120)
        last = page.eval(f"(() => {{ const t = {turns}[{i}]; return {{state: t.querySelector('.result').dataset.state, "
                         "ms: Number(t.querySelector('.result').dataset.ms || 0), "
                         "resolved: !t.querySelector('.resolved').hidden}; })()")
        if last["state"] != "done":
            failed += 1
            continue
        turn_ms.append((i, float(last["ms"])))
        resolved += bool(last["resolved"])
    t0 = time.perf_counter()
    page.navigate(f"{url}/")
    page.wait_for(f"{turns}.length === {len(CONVERSATION) - failed} && "
                  "document.querySelector('#conversation-view')?.dataset.state === 'ready'", 60)
    restore_ms = (time.perf_counter() - t0) * 1000
    page.eval("document.querySelector('#conversation-mode').click(); true")  # the tab back to single questions
    return {"turns": len(CONVERSATION), "failed": failed,
            "first_turn_ms": next((round(v, 1) for i, v in turn_ms if i == 0), None),
            "follow_up_ms": summary([v for i, v in turn_ms if i > 0]), "resolved_shown": resolved,
            "reload_to_turns_ms": round(restore_ms, 1)}


@contextmanager
def serve(index: str, log: Path):
    """`finrag serve` on a free loopback port, ready (its /health answers); yields its URL."""
    from tests.support.servers import stop_process, wait_http

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    for name in ("FINRAG_API_KEY", "FINRAG_LLM", "OPENAI_API_KEY"):
        env.pop(name, None)
    port = free_port()
    with log.open("w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "finrag.cli", "serve", "--index", index, "--host", HOST,
                                 "--port", str(port)], stdout=fh, stderr=subprocess.STDOUT, env=env)
    try:
        wait_http(f"http://{HOST}:{port}/health", timeout=180, proc=proc, log=log)
        yield f"http://{HOST}:{port}"
    finally:
        stop_process(proc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", default=None, help="index directory (default .finrag-demo/index, else a fresh demo)")
    ap.add_argument("--rounds", type=int, default=3, help="times each demo question is asked per system")
    ap.add_argument("--json-out", default=None)
    ap.add_argument("--no-browser", action="store_true")
    a = ap.parse_args(argv)

    from finrag.tools.demo.corpus import demo_questions

    questions = [q["question"] for q in demo_questions()]
    work = tempfile.TemporaryDirectory(prefix="finrag-bench-web-")
    index = a.index or (str(REPO / ".finrag-demo" / "index") if (REPO / ".finrag-demo" / "index").is_dir() else None)
    if index is None:
        index = str(build_demo_index(Path(work.name))[0])
    with serve(index, Path(work.name) / "serve.log") as url, httpx.Client(base_url=url) as client:
        page_ms = []
        for _ in range(5):
            t0 = time.perf_counter()
            client.get("/", headers={"accept": "text/html"}).raise_for_status()
            page_ms.append((time.perf_counter() - t0) * 1000)
        for q in questions[:3]:  # warm-up, not counted
            stream_answer(client, "hdrr", q)
        answers: dict[str, list[float]] = {"hdrr": [], "cbr": [], "hdrr+cbr side by side": []}
        cited: list[tuple[str, int, int | None]] = []
        for _ in range(max(1, a.rounds)):
            for q in questions:
                ms, contract = stream_answer(client, "hdrr", q)
                answers["hdrr"].append(ms)
                cited += [c for c in cited_pages(contract) if c not in cited]
                answers["cbr"].append(stream_answer(client, "cbr", q)[0])
                t0 = time.perf_counter()
                with ThreadPoolExecutor(2) as pool:
                    list(pool.map(stream_answer, [client, client], ["hdrr", "cbr"], [q, q]))
                answers["hdrr+cbr side by side"].append((time.perf_counter() - t0) * 1000)
        first = [view_page(client, *c) for c in cited]
        cached = [view_page(client, *c) for c in cited for _ in range(3)]
    if a.no_browser:
        browser = {"skipped": "--no-browser"}
    else:  # a fresh server: the browser's first view of a page is the server's first render of it too
        with serve(index, Path(work.name) / "serve-browser.log") as url:
            browser = in_browser(url, questions)
    out = {
        "index": Path(index).name, "questions": len(questions), "rounds": a.rounds,
        "page_html": summary(page_ms),
        "answer_ms": {k: summary(v) for k, v in answers.items()},
        "cited_pages": len(cited), "page_view_first": summary(first), "page_view_cached": summary(cached),
        "in_browser": browser,
        "cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(), "server": "finrag serve (uvicorn, 1 process), offline models",
    }
    print(json.dumps(out, indent=2))
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    work.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
