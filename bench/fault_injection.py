"""Fault injection: kill -9 `finrag index` and `finrag batch` at random and chosen moments, race readers and
writers, fill the disk, damage the database; after every fault, check that nothing is inconsistent or lost.

    python -m bench.fault_injection --out docs/results/bench_faults.json            # ~24 index kills + the rest
    python -m bench.fault_injection --quick                                  # 3 index kills, 2 batch kills

Everything runs on the generated demo corpus (six filings) in a scratch folder, through the real commands
(`finrag index`, `finrag index --check`, `finrag ask`, `finrag batch`) as subprocesses, so a kill is a real
SIGKILL of a real process. Only processes this script started are signalled.

Scenarios and what each checks
* index kills: `finrag index FILINGS --variant meta --variant llmctx` into a fresh index, killed with
  SIGKILL (a) at a random moment of the run, (b) as soon as the first variant prefixes are committed
  (during variant building), (c) as soon as a vector/FAISS file save creates its temporary file (inotify on
  the index folder; whether the kill landed inside the save is reported: its temporary file was left
  behind). After each kill: the parse workers of the killed process have exited (no stray processes);
  `finrag index --check` finds no problem (a stale derived file is a note, not a problem); `finrag ask`
  answers (for an index without documents yet: says so, or fails with one line); running the same `finrag index`
  again finishes (exit 0); then the check must be clean *and* match a clean run (documents, chunks, FTS
  rows, prefixes of both variants, vector states), and `finrag batch` over the demo questions must give
  the same answers and context pages as on the clean index (else: an inconsistency).
* batch kills: `finrag batch` over the demo questions (20 times over, distinct ids, so a run lasts seconds) killed
  at a random moment, then `--resume` until it finishes: every question answered exactly once, every line a
  parseable answer (else: answers lost).
* a reader loop during writes: a process answering questions over and over while `finrag index` fills the
  same index; any exception in the reader is a failure.
* two writers: two `finrag index` started together on one fresh index: one finishes, the other exits 4
  naming the first one's PID; the index is then clean.
* a full disk: the index on a small tmpfs (`mount -t tmpfs -o size=...`, as root), or, where mounting is not
  allowed, a file-size limit (RLIMIT_FSIZE, reported as such): `finrag index` must stop with exit 5 and one
  line, the index must check clean, and after making room the same command must finish.
* a damaged database: truncated, overwritten with other bytes, a page in the middle zeroed: `finrag ask`
  and `finrag index --check` must name the file (exit 5), never print a traceback.
* a hung LLM (`--only hung_llm` runs just this one, after the clean index): `finrag serve` (FINRAG_SERVE_TIMEOUT=5)
  whose LLM is a loopback server that accepts every request and never answers (tests/support/openai_stub.py,
  "hang"); 8 concurrent `/hdrr/invoke` while `/health` is polled every 100 ms. Each request must get its 504,
  `/health` must answer within 1 s throughout (its max latency is recorded), and the workers must be freed: the
  server's LLM connections close soon after the 504s, and once the LLM answers again, requests answer (200).
* issue 49 (`--only round4`; bench/round4_faults.py): 1,200 questions and turns under 256 open files, each
  company's FY2022 PDF swapped with another's after indexing, the thread store deleted between turns; 0
  wrong-company answers, 0 lost turns, open files flat.
* a live server (`--only live_server`; bench/live_server_faults.py): filings indexed, replaced and removed while
  `finrag serve --workers 2` answers; after every step each company's question must route to the right filing
  (0 stale routes) and every request must be answered (0 answers lost).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import select
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.live_server_faults import live_server
from bench.round4_faults import round4
from tests.support.procs import alive, children

PY = sys.executable

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
for _name in ("OPENAI_API_KEY", "FINRAG_LLM", "FINRAG_HOME"):
    ENV.pop(_name, None)
IN_CREATE, IN_MOVED_TO = 0x100, 0x80


# --------------------------------------------------------------------------- helpers
def finrag(*args: str, timeout: float = 900, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "finrag.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=timeout, **kw)


def start(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([PY, "-m", "finrag.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV, **kw)


def kill9(proc: subprocess.Popen) -> list[int]:
    """SIGKILL `proc`; return its children that are still alive 10 s later (they are then killed too)."""
    kids = children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while any(alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    stray = [k for k in kids if alive(k)]
    for k in stray:
        os.kill(k, signal.SIGKILL)
    return stray


def check(index: Path) -> dict:
    report = index.parent / f"{index.name}.check.json"
    r = finrag("index", "--check", "--index", str(index), "--json-report", str(report))
    data = json.loads(report.read_text()) if report.exists() else {"ok": False, "problems": [r.stderr.strip()]}
    data["exit"] = r.returncode
    data["traceback"] = "Traceback" in r.stderr
    return data


def shape(rep: dict) -> dict:
    """What a finished index must share with a clean one."""
    c = rep.get("counts", {})
    keys = ("documents", "pages", "chunks", "fts_rows", "segments", "prefixes_meta", "prefixes_llmctx")
    return {**{k: c.get(k) for k in keys}, "vectors": rep.get("faiss")}


def answers_of(path: Path) -> dict:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        a = json.loads(line)
        out[a["id"]] = (a["answer"], [(c["doc_id"], c["page_start"], c["page_end"]) for c in a["contexts"]])
    return out


class Inotify:
    """Names created in (or renamed into) one folder, via Linux inotify (ctypes; no extra package)."""

    def __init__(self, folder: Path):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK)
        if self.fd < 0 or self.libc.inotify_add_watch(self.fd, str(folder).encode(), IN_CREATE | IN_MOVED_TO) < 0:
            raise OSError(ctypes.get_errno(), "inotify")

    def wait(self, timeout: float) -> list[str]:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return []
        data, names, off = os.read(self.fd, 1 << 16), [], 0
        while off + 16 <= len(data):
            _wd, _mask, _cookie, n = struct.unpack_from("iIII", data, off)
            names.append(data[off + 16: off + 16 + n].rstrip(b"\0").decode(errors="replace"))
            off += 16 + n
        return names

    def close(self) -> None:
        os.close(self.fd)


def prefixes_committed(index: Path) -> int:
    db = index / "finrag.sqlite"
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("SELECT COUNT(*) FROM chunk_prefix").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


# ------------------------------------------------------------------------- scenarios
class Bench:
    def __init__(self, work: Path, seed: int, log=print):
        self.work, self.rng, self.log = work, random.Random(seed), log
        self.filings = work / "filings"
        self.questions = work / "questions.jsonl"
        self.kill_questions = work / "kill_questions.jsonl"
        self.results: dict = {"index_kills": [], "batch_kills": [], "reader_loop": None, "two_writers": [],
                              "full_disk": None, "damaged_db": [], "hung_llm": None, "live_server": None}

    def index_cmd(self, index: Path) -> list[str]:
        return ["index", str(self.filings), "--index", str(index), "--variant", "meta", "--variant", "llmctx", "-q"]

    def setup(self) -> None:
        from finrag.tools.demo.corpus import demo_questions, generate_demo_corpus

        paths = generate_demo_corpus(self.filings)
        qs = demo_questions(paths)
        with self.questions.open("w") as fh:
            for q in qs:
                fh.write(json.dumps({"id": q["id"], "question": q["question"]}) + "\n")
        # the batch kills' input: the demo questions 20 times over (distinct ids), so that a run lasts long enough
        # (seconds, not the ~0.5 s of 12 offline answers) for a kill at a random moment to land inside it
        with self.kill_questions.open("w") as fh:
            for rep in range(20):
                for q in qs:
                    fh.write(json.dumps({"id": f"{q['id']}-{rep}", "question": q["question"]}) + "\n")
        self.clean = self.work / "clean"
        t0 = time.monotonic()
        r = finrag(*self.index_cmd(self.clean))
        self.full_seconds = time.monotonic() - t0
        assert r.returncode == 0, r.stderr[-2000:]
        self.clean_check = check(self.clean)
        assert self.clean_check["ok"], self.clean_check
        self.clean_answers = self.batch_answers(self.clean, self.work / "clean_answers.jsonl")
        self.log(f"clean run: {self.full_seconds:.1f} s, {self.clean_check['counts']}")

    def batch_answers(self, index: Path, out: Path) -> dict:
        r = finrag("batch", "--index", str(index), "--system", "hdrr", "--in", str(self.questions), "--out", str(out),
                   "-q")
        if r.returncode != 0:
            return {"error": r.stderr.strip()[-300:]}
        return answers_of(out)

    # --------------------------------------------------------------- index kills
    def index_kill(self, n: int, mode: str) -> dict:
        index = self.work / f"kill{n:02d}"
        index.mkdir()
        watch = Inotify(index) if mode == "vector_save" else None
        proc = start(*self.index_cmd(index))
        t0 = time.monotonic()
        delay = self.rng.uniform(0.3, 0.95 * self.full_seconds) if mode == "random" else None
        landed, tmp_seen = "", ""
        try:
            while proc.poll() is None:
                elapsed = time.monotonic() - t0
                if mode == "random" and elapsed >= delay:
                    break
                if mode == "variant_build" and prefixes_committed(index) > 0:
                    break
                if mode == "vector_save":
                    names = [x for x in watch.wait(0.02) if ".tmp-" in x]
                    if names:
                        tmp_seen = names[0]
                        break
                    continue
                time.sleep(0.02)
            if proc.poll() is not None:
                proc.communicate()
                return {"trial": n, "mode": mode, "killed": False, "note": f"finished first (exit {proc.returncode})"}
            stray = kill9(proc)
            killed_at = time.monotonic() - t0
        finally:
            if watch:
                watch.close()
        if tmp_seen:
            left = [p.name for p in index.glob("*.tmp-*")]
            landed = "inside the save (its temporary file was left)" if left else "just after the save started"
        row = {"trial": n, "mode": mode, "killed": True, "killed_at_s": round(killed_at, 2), "stray_workers": stray,
               "landed": landed or None}
        after = check(index)
        row["check_after_kill"] = {"ok": after["ok"], "problems": after.get("problems"), "exit": after["exit"],
                                   "traceback": after["traceback"]}
        docs = after.get("counts", {}).get("documents", 0)
        ask = finrag("ask", "--index", str(index), "--system", "hdrr", "--json",
                     "What was Acme Widgets' total revenue in FY2022?")
        if docs:
            ok_ask = ask.returncode == 0 and bool(json.loads(ask.stdout).get("answer"))
        else:  # no document yet: an answer saying so, or a clear one-line error
            ok_ask = ask.returncode == 0 or len(ask.stderr.strip().splitlines()) == 1
        row["ask_after_kill"] = {"ok": ok_ask, "exit": ask.returncode, "documents": docs,
                                 "traceback": "Traceback" in ask.stderr}
        resume = finrag(*self.index_cmd(index))
        row["resume_exit"] = resume.returncode
        final = check(index)
        row["final_check_ok"] = final["ok"]
        row["final_matches_clean"] = shape(final) == shape(self.clean_check)
        if not row["final_matches_clean"]:
            row["final_shape"], row["clean_shape"] = shape(final), shape(self.clean_check)
        got = self.batch_answers(index, index.parent / f"{index.name}.answers.jsonl")
        row["answers_differ"] = sorted(k for k in self.clean_answers if got.get(k) != self.clean_answers[k])
        row["inconsistent"] = bool(stray or not after["ok"] or after["traceback"] or not ok_ask
                                   or row["ask_after_kill"]["traceback"] or resume.returncode != 0
                                   or not final["ok"] or not row["final_matches_clean"] or row["answers_differ"])
        shutil.rmtree(index, ignore_errors=True)
        return row

    # --------------------------------------------------------------- batch kills
    def batch_kill(self, n: int) -> dict:
        out = self.work / f"batch{n:02d}.jsonl"
        expected = [json.loads(line)["id"] for line in self.kill_questions.read_text().splitlines()]
        proc = start("batch", "--index", str(self.clean), "--system", "hdrr", "--in", str(self.kill_questions),
                     "--out", str(out), "-q")
        # kill while answers are being written: after the first line, before the last
        t0, delay = time.monotonic(), self.rng.uniform(0.0, 4.0)
        while proc.poll() is None and not (out.exists() and out.stat().st_size > 0):
            time.sleep(0.01)
        while proc.poll() is None and time.monotonic() - t0 < delay:
            time.sleep(0.01)
        killed = proc.poll() is None
        if killed:
            kill9(proc)
        else:
            proc.communicate()
        lines_at_kill = len(out.read_text(errors="replace").splitlines()) if out.exists() else 0
        if out.exists() and self.rng.random() < 0.5 and out.stat().st_size > 10:  # and tear the last line
            data = out.read_bytes().rstrip(b"\n")
            out.write_bytes(data[: len(data) - self.rng.randint(1, 200)])
        resumes = 0
        while True:
            resumes += 1
            r = finrag("batch", "--index", str(self.clean), "--system", "hdrr", "--in", str(self.kill_questions),
                       "--out", str(out), "-q", "--resume")
            if r.returncode == 0 or resumes == 3:
                break
        rows, bad = [], 0
        for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rows.append(json.loads(line)["id"])
            except (ValueError, KeyError):
                bad += 1
        lost = [q for q in expected if q not in rows]
        dup = len(rows) - len(set(rows))
        return {"trial": n, "killed": killed, "lines_at_kill": lines_at_kill, "resumes": resumes,
                "answers_lost": len(lost), "duplicates": dup, "corrupt_lines": bad, "resume_exit": r.returncode}

    # ------------------------------------------------------------- reader loop
    def reader_loop(self) -> dict:
        index = self.work / "readers"
        script = (
            "import json, sys, time\n"
            "from finrag import run_query\n"
            "from finrag.tools.indexing import open_index\n"
            "qs = [json.loads(l)['question'] for l in open(sys.argv[2])]\n"
            "ok = err = 0; errors = []\n"
            "deadline = time.monotonic() + float(sys.argv[3])\n"
            "i = 0\n"
            "while time.monotonic() < deadline:\n"
            "    for system in ('hdrr', 'cbr'):\n"
            "        try:\n"
            "            res = run_query(qs[i % len(qs)], system, index_dir=sys.argv[1])\n"
            "            ok += bool(res['answer'])\n"
            "        except Exception as exc:\n"
            "            err += 1; errors.append(f'{type(exc).__name__}: {exc}'[:200])\n"
            "    i += 1\n"
            "    if i % 5 == 0:\n"
            "        open_index.reset()  # also reopen the index now and then, as a new process would\n"
            "print(json.dumps({'answers': ok, 'errors': err, 'samples': errors[:5]}))\n")
        writer = start(*self.index_cmd(index))
        deadline = time.monotonic() + 600
        while not prefixes_or_docs(index) and writer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        readers = [subprocess.Popen([PY, "-c", script, str(index), str(self.questions), str(1.2 * self.full_seconds)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
                   for _ in range(2)]
        w_out, w_err = writer.communicate(timeout=1800)
        outs = [r.communicate(timeout=1800) for r in readers]
        stats = []
        for out, err in outs:
            try:
                stats.append(json.loads(out.strip().splitlines()[-1]))
            except (ValueError, IndexError):
                stats.append({"answers": 0, "errors": 1, "samples": [err.strip()[-300:]]})
        final = check(index)
        row = {"writer_exit": writer.returncode, "readers": stats, "final_check_ok": final["ok"],
               "final_matches_clean": shape(final) == shape(self.clean_check)}
        row["failures"] = sum(s["errors"] for s in stats) + (writer.returncode != 0) + (not final["ok"])
        shutil.rmtree(index, ignore_errors=True)
        return row

    # ------------------------------------------------------------- two writers
    def two_writers(self, n: int) -> dict:
        index = self.work / f"two{n}"
        a, b = start(*self.index_cmd(index)), start(*self.index_cmd(index))
        (_, ae), (_, be) = a.communicate(timeout=1800), b.communicate(timeout=1800)
        codes = sorted([a.returncode, b.returncode])
        loser_err = ae if a.returncode == 4 else be
        winner = b if a.returncode == 4 else a
        final = check(index)
        row = {"exits": codes, "message": loser_err.strip(), "names_winner_pid": f"PID {winner.pid}" in loser_err,
               "final_check_ok": final["ok"], "final_matches_clean": shape(final) == shape(self.clean_check)}
        row["failed"] = not (codes == [0, 4] and row["names_winner_pid"] and len(loser_err.strip().splitlines()) == 1
                             and final["ok"] and row["final_matches_clean"])
        shutil.rmtree(index, ignore_errors=True)
        return row

    # --------------------------------------------------------------- full disk
    def full_disk(self) -> dict:
        clean_bytes = sum(f.stat().st_size for f in self.clean.iterdir() if f.is_file())
        limit = max(256 * 1024, int(clean_bytes * 0.45))
        mount = self.work / "tmpfs"
        mount.mkdir()
        method = "tmpfs"
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={limit}", "tmpfs", str(mount)], capture_output=True,
                           text=True)
        preexec = None
        if m.returncode != 0:
            method = "RLIMIT_FSIZE (mounting a tmpfs was refused: " + m.stderr.strip()[:120] + ")"

            def preexec():  # noqa: F811 - the file-size limit stands in for a full disk
                import resource

                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        index = mount / "idx"
        try:
            r = finrag(*self.index_cmd(index), preexec_fn=preexec)
            lines = r.stderr.strip().splitlines()
            after = check(index)
            if method == "tmpfs":
                subprocess.run(["mount", "-o", "remount,size=256m", str(mount)], check=True)
            resume = finrag(*self.index_cmd(index))
            final = check(index)
            row = {"method": method, "limit_bytes": limit, "clean_index_bytes": clean_bytes, "exit": r.returncode,
                   "message": lines[-1] if lines else "", "one_line": len(lines) == 1,
                   "traceback": "Traceback" in r.stderr, "check_after_ok": after["ok"],
                   "resume_exit": resume.returncode, "final_check_ok": final["ok"],
                   "final_matches_clean": shape(final) == shape(self.clean_check)}
            row["failed"] = not (r.returncode == 5 and row["one_line"] and not row["traceback"] and after["ok"]
                                 and resume.returncode == 0 and final["ok"] and row["final_matches_clean"])
            return row
        finally:
            if method == "tmpfs":
                subprocess.run(["umount", str(mount)], capture_output=True)

    # ------------------------------------------------------------ damaged DB
    def damaged_db(self) -> list[dict]:
        rows = []
        size = (self.clean / "finrag.sqlite").stat().st_size
        cases = {
            "truncated to a third": lambda b: b[: len(b) // 3],
            "overwritten with other bytes": lambda b: b"not a database at all " * (len(b) // 22),
            "a page in the middle zeroed": lambda b: b[: (len(b) // 2) & ~4095] + bytes(4096)
            + b[((len(b) // 2) & ~4095) + 4096:],
        }
        for name, damage in cases.items():
            index = self.work / f"damaged-{len(rows)}"
            shutil.copytree(self.clean, index)
            for extra in index.glob("finrag.sqlite-*"):
                extra.unlink()
            db = index / "finrag.sqlite"
            db.write_bytes(damage(db.read_bytes()))
            ask = finrag("ask", "--index", str(index), "--system", "hdrr", "What was Acme Widgets' total revenue in FY2022?")
            chk = finrag("index", "--check", "--index", str(index))
            row = {"case": name, "db_bytes": size, "ask_exit": ask.returncode,
                   "ask_names_file": str(db) in ask.stderr, "ask_traceback": "Traceback" in ask.stderr,
                   "check_exit": chk.returncode, "check_names_file": str(db) in chk.stdout + chk.stderr,
                   "check_traceback": "Traceback" in chk.stderr}
            ask_ok = (ask.returncode == 0) or (ask.returncode == 5 and row["ask_names_file"])
            row["failed"] = not (ask_ok and not row["ask_traceback"] and chk.returncode == 5
                                 and row["check_names_file"] and not row["check_traceback"])
            rows.append(row)
            shutil.rmtree(index, ignore_errors=True)
        return rows


    # ------------------------------------------------------------------ hung LLM
    def hung_llm(self, n_requests: int = 8, serve_timeout: float = 5.0) -> dict:
        """`finrag serve` with an LLM that accepts connections and never answers (see the module docstring)."""
        from tests.support.openai_stub import OpenAIStub
        from tests.support.servers import HOST, free_port, poll_health_until, stop_process, thread_count, wait_http
        from tests.support.servers import invoke_all as invoke_many

        def invoke_all(url: str, questions: list[str]) -> list[tuple[int, float]]:  # (status, seconds), 120 s each
            return [(status, round(seconds, 2)) for status, seconds in invoke_many(url, questions, timeout=120)]

        questions = [json.loads(line)["question"] for line in self.questions.read_text().splitlines()]
        questions = [questions[i % len(questions)] for i in range(n_requests)]
        stub = OpenAIStub().start()
        url = f"http://{HOST}:{free_port()}"
        log = self.work / "hung_llm.serve.log"
        env = {**ENV, "FINRAG_LLM": "openai/stub-model", "FINRAG_LLM_BASE_URL": stub.base_url,
               "FINRAG_SERVE_TIMEOUT": f"{serve_timeout:g}"}
        for name in ("FINRAG_LLM_TIMEOUT_S", "FINRAG_LLM_MAX_RETRIES", "FINRAG_API_KEY"):
            env.pop(name, None)
        with log.open("w") as fh:
            proc = subprocess.Popen([PY, "-m", "finrag.cli", "serve", "--index", str(self.clean), "--host", HOST, "--port",
                                     url.rsplit(":", 1)[1]], stdout=fh, stderr=subprocess.STDOUT, env=env)
        row: dict = {"requests": n_requests, "serve_timeout_s": serve_timeout}
        try:
            wait_http(f"{url}/health", timeout=300, proc=proc, log=log)
            warm = invoke_all(url, questions)  # a working LLM first: the worker pool is up
            row["warm_statuses"] = dict(Counter(s for s, _ in warm))
            row["threads_baseline"] = thread_count(proc.pid)
            stub.mode = "hang"
            start = time.monotonic()
            peak = {"held": 0, "threads": 0}

            def sample() -> None:  # after each /health poll: how many LLM calls are held, how many threads
                peak["held"] = max(peak["held"], stub.hanging)
                peak["threads"] = max(peak["threads"], thread_count(proc.pid))

            with ThreadPoolExecutor(1) as pool:
                stuck = pool.submit(invoke_all, url, questions)
                health = poll_health_until(stuck, url, timeout=30, failed=30.0, each=sample)
                results = stuck.result()
            held, peak_threads = peak["held"], peak["threads"]
            t = time.monotonic()
            released = stub.wait_hanging(0, timeout=serve_timeout + 15)
            row.update({
                "statuses": dict(Counter(s for s, _ in results)), "seconds_max": max(s for _, s in results),
                "health_polls": len(health), "health_max_ms": round(1000 * max(health), 1),
                "health_median_ms": round(1000 * sorted(health)[len(health) // 2], 1),
                "llm_calls_held_peak": held, "threads_peak": peak_threads,
                "llm_calls_released": released,
                "seconds_from_last_504_to_llm_calls_released": round(time.monotonic() - t, 2) if released else None})
            calls = [r for r in stub.chat_requests() if r["status"] == "hang"]  # (a queued request never calls)
            row["llm_calls"] = [{"sent_s": round(r["at"] - start, 2),
                                 "given_up_s": round(r["released_at"] - start, 2) if "released_at" in r else None}
                                for r in calls]
            deadline = time.monotonic() + 10  # (the /health pool may start its second thread: + 2)
            while thread_count(proc.pid) > row["threads_baseline"] + 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            row["threads_after"] = thread_count(proc.pid)
            stub.mode = "ok"
            after = invoke_all(url, questions)
            row["after_statuses"] = dict(Counter(s for s, _ in after))
            row["after_seconds_max"] = max(s for _, s in after)
        except Exception as exc:  # noqa: BLE001 - recorded as the scenario's failure
            row["error"] = f"{type(exc).__name__}: {exc}"[:500]
        finally:
            stop_process(proc)
            stub.stop()
        row["traceback_in_log"] = "Traceback" in log.read_text(errors="replace")
        row["workers_freed"] = bool(row.get("llm_calls_released") and row.get("after_statuses") == {200: n_requests}
                                    and row.get("threads_after", 1 << 30) <= row.get("threads_baseline", 0) + 2)
        row["failed"] = not (row.get("statuses") == {504: n_requests} and row.get("health_max_ms", 1e9) < 1000
                             and row["workers_freed"] and not row["traceback_in_log"] and "error" not in row)
        return row


def prefixes_or_docs(index: Path) -> bool:
    db = index / "finrag.sqlite"
    if not db.exists():
        return False
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def summarise(res: dict) -> dict:
    kills = [r for r in res["index_kills"] if r.get("killed")]
    faults = (len(kills) + sum(r["killed"] for r in res["batch_kills"]) + (1 if res["reader_loop"] else 0)
              + len(res["two_writers"]) + (1 if res["full_disk"] else 0) + len(res["damaged_db"]))
    inconsistent = (sum(r["inconsistent"] for r in kills)
                    + (res["reader_loop"]["failures"] if res["reader_loop"] else 0)
                    + sum(r["failed"] for r in res["two_writers"])
                    + (res["full_disk"]["failed"] if res["full_disk"] else 0)
                    + sum(r["failed"] for r in res["damaged_db"])
                    + (res["hung_llm"]["failed"] if res.get("hung_llm") else 0)
                    + (res["live_server"]["failed"] if res.get("live_server") else 0)
                    + sum(r["corrupt_lines"] + r["duplicates"] for r in res["batch_kills"]))
    return {
        "index_kill_trials": len(kills),
        "index_kills_by_mode": {m: sum(r["mode"] == m for r in kills) for m in ("random", "variant_build", "vector_save")},
        "kills_inside_a_vector_save": sum(bool(r.get("landed") and "inside" in r["landed"]) for r in kills),
        "batch_kill_trials": sum(r["killed"] for r in res["batch_kills"]),
        "faults_injected": faults,
        "inconsistencies": inconsistent,
        "stray_worker_processes": sum(len(r["stray_workers"]) for r in kills),
        "answers_lost": sum(r["answers_lost"] for r in res["batch_kills"]),
        "answers_differing_from_clean_after_resume": sum(len(r["answers_differ"]) for r in kills),
        "reader_answers_during_writes": sum(s["answers"] for s in res["reader_loop"]["readers"]) if res["reader_loop"] else 0,
        "reader_errors_during_writes": sum(s["errors"] for s in res["reader_loop"]["readers"]) if res["reader_loop"] else 0,
        "full_disk_method": res["full_disk"]["method"] if res["full_disk"] else None,
        "hung_llm_max_health_ms": res["hung_llm"].get("health_max_ms") if res.get("hung_llm") else None,
        "hung_llm_workers_freed": res["hung_llm"]["workers_freed"] if res.get("hung_llm") else None,
        "live_server_requests": res["live_server"]["requests"] if res.get("live_server") else None,
        "live_server_stale_routes": res["live_server"]["stale_routes"] if res.get("live_server") else None,
        "live_server_answers_lost": res["live_server"]["answers_lost"] if res.get("live_server") else None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=24, help="index kills (default 24: half random, a quarter during "
                                                           "variant building, a quarter at vector/FAISS saves)")
    ap.add_argument("--batch-trials", type=int, default=6)
    ap.add_argument("--quick", action="store_true", help="3 index kills, 2 batch kills, one of everything else")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--work", default=None, help="scratch folder (default: a new temporary folder, removed after)")
    ap.add_argument("--out", default=None, help="write the results as JSON here (e.g. docs/results/bench_faults.json)")
    ap.add_argument("--only", default=None, choices=["hung_llm", "live_server", "round4"],
                    help="run only this scenario (after the clean index)")
    args = ap.parse_args(argv)
    if args.quick:
        args.trials, args.batch_trials = 3, 2
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="finrag-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    bench = Bench(work, args.seed, log=lambda m: print(m, flush=True))
    try:
        bench.setup()
        if args.only:
            args.trials = args.batch_trials = 0
        modes = ["random", "variant_build", "random", "vector_save"]
        for n in range(args.trials):
            row = bench.index_kill(n, modes[n % len(modes)])
            bench.results["index_kills"].append(row)
            print(f"index kill {n:2d} {row['mode']:13s} at {row.get('killed_at_s', '-')} s: "
                  f"{'INCONSISTENT ' + json.dumps(row) if row.get('inconsistent') else 'ok'}"
                  f"{' (' + row['landed'] + ')' if row.get('landed') else ''}", flush=True)
        for n in range(args.batch_trials):
            row = bench.batch_kill(n)
            bench.results["batch_kills"].append(row)
            print(f"batch kill {n}: {row}", flush=True)
        if not args.only:
            bench.results["reader_loop"] = bench.reader_loop()
            print(f"reader loop during writes: {bench.results['reader_loop']}", flush=True)
        for n in range(0 if args.only else 1 if args.quick else 3):
            row = bench.two_writers(n)
            bench.results["two_writers"].append(row)
            print(f"two writers {n}: {row}", flush=True)
        if not args.only:
            bench.results["full_disk"] = bench.full_disk()
            print(f"full disk: {bench.results['full_disk']}", flush=True)
            bench.results["damaged_db"] = bench.damaged_db()
            for row in bench.results["damaged_db"]:
                print(f"damaged database: {row}", flush=True)
        if args.only in (None, "round4"):  # issue 49: 256 open files, a swapped filing, a deleted thread store
            bench.results["round4"] = round4(work, bench.filings, bench.clean, ENV, PY)
            print(f"round 4: {bench.results['round4']['summary']}", flush=True)
        if args.only in (None, "hung_llm"):
            bench.results["hung_llm"] = bench.hung_llm()
            print(f"hung LLM: {bench.results['hung_llm']}", flush=True)
        if args.only in (None, "live_server"):  # filings indexed, replaced and removed while `finrag serve --workers 2` answers
            bench.results["live_server"] = live_server(work, sorted(bench.filings.glob("*.pdf")), finrag, ENV, PY)
            print(f"live server: {bench.results['live_server']}", flush=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    summary = summarise(bench.results)
    summary["clean_index_seconds"] = round(bench.full_seconds, 1)
    if bench.results.get("round4"):
        summary["round4"] = bench.results["round4"]["summary"]
    summary["wall_seconds"] = round(time.monotonic() - t0, 1)
    summary["command"] = "python -m bench.fault_injection " + " ".join(argv if argv is not None else sys.argv[1:])
    print(json.dumps(summary, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, **bench.results}, indent=2) + "\n")
    lost = summary["answers_lost"] + (summary["live_server_answers_lost"] or 0)
    r4 = (bench.results.get("round4") or {}).get("summary") or {}
    lost += int(r4.get("lost_turns") or 0) + int(r4.get("wrong_company_answers") or 0) + int(r4.get("errors") or 0)
    return 0 if summary["inconsistencies"] == 0 and lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
