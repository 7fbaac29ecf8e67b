"""The `finrag` command line: demo, ask, batch, info, index errors; exit codes and messages, never tracebacks."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from support.bad_files import make_bad_files

from finrag.cli import main

pytestmark = pytest.mark.usefixtures("fresh_index")


def run_cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "finrag.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"})


def test_ask_json_prints_the_contract(demo_index, demo_qas, capsys):
    q = demo_qas[0]
    assert main(["ask", "--index", str(demo_index), "--system", "hdrr", "--json", q["question"]]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["routing"]["routed_docs"] == [q["doc_id"]] and out["answer"]


def test_ask_human_output_names_routing_and_sources(demo_index, demo_qas, capsys):
    assert main(["ask", "--index", str(demo_index), demo_qas[1]["question"]]) == 0
    out = capsys.readouterr().out
    assert "routing" in out and demo_qas[1]["doc_id"] in out


def test_ask_text_lists_every_context_of_the_json_by_score_with_viewer_pages(demo_index, demo_qas, capsys,
                                                                             monkeypatch):
    """Issue 51: the text output lists as many contexts as the JSON (more than ten here: CBR with up to 20
    chunks), highest score first, each with its pages as a PDF viewer counts them."""
    monkeypatch.setenv("FINRAG_MAX_CHUNKS", "20")
    for qa in demo_qas:  # a question with more than ten contexts
        q = qa["question"]
        assert main(["ask", "--index", str(demo_index), "--system", "cbr", "--json", q]) == 0
        contexts = json.loads(capsys.readouterr().out)["contexts"]
        if len(contexts) > 10:
            break
    assert len(contexts) > 10
    assert main(["ask", "--index", str(demo_index), "--system", "cbr", q]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if re.match(r"^  \[.+\] score ", ln)]
    assert len(lines) == len(contexts), lines
    scores = [float(ln.rsplit("score ", 1)[1]) for ln in lines]
    assert scores == sorted(scores, reverse=True)
    shown = {re.match(r"^  \[(.+)\] score", ln).group(1) for ln in lines}
    assert shown == {f"{c['doc_id']}, {c['pages']}" for c in contexts}
    assert all(c["pages"].startswith(f"p. {c['page_start'] + 1}") for c in contexts if c["page_start"] == c["page_end"])


def test_missing_index_and_empty_question_are_one_line_errors(tmp_path, demo_index):
    r = run_cli("ask", "--index", str(tmp_path / "none"), "What was revenue?")
    assert r.returncode == 2 and "no finrag index" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("ask", "--index", str(demo_index), "   ")
    assert r.returncode == 2 and "question is empty" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("ask", "--system", "nope", "q")
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_batch_writes_one_contract_per_line_and_resumes(demo_index, demo_qas, tmp_path, capsys):
    src = tmp_path / "q.jsonl"
    src.write_text("\n".join(json.dumps({"id": q["id"], "question": q["question"]}) for q in demo_qas[:3])
                   + "\n" + json.dumps({"id": "empty", "question": " "}) + "\n")
    out = tmp_path / "a.jsonl"
    code = main(["batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q"])
    assert code == 1  # one question was rejected, the rest answered
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [q["id"] for q in demo_qas[:3]] + ["empty"]
    assert all(r["answer"] for r in rows[:3]) and rows[3]["error"] == "question is empty"
    capsys.readouterr()
    main(["batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q",
          "--resume"])
    assert "wrote 0 answer(s)" in capsys.readouterr().out
    assert len(out.read_text().splitlines()) == 4


def test_batch_rejects_malformed_input(demo_index, tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": 1}\n')
    assert main(["batch", "--index", str(demo_index), "--in", str(src), "--out", str(tmp_path / "o.jsonl")]) == 2


def test_index_reports_each_bad_file_and_exits_1(tmp_path):
    folder = tmp_path / "in"
    make_bad_files(folder)
    (folder / "good.htm").unlink()
    r = run_cli("index", str(folder), "--index", str(tmp_path / "idx"), "-q", "--workers", "1")
    assert r.returncode == 1, r.stderr
    failed = [ln for ln in r.stderr.splitlines() if ln.startswith("failed")]
    assert len(failed) == 7 and all(":" in ln for ln in failed) and "Traceback" not in r.stderr
    assert "indexed 1 file(s)" in r.stdout
    info = run_cli("info", "--index", str(tmp_path / "idx"), "--documents")
    assert info.returncode == 0 and "documents  1" in info.stdout
    again = run_cli("index", str(folder / "good.txt"), "--index", str(tmp_path / "idx"), "-q")
    assert again.returncode == 0 and "unchanged 1" in again.stdout
    gone = run_cli("index", "--remove", "good", "nosuchdoc", "--index", str(tmp_path / "idx"))
    assert gone.returncode == 1 and "removed good" in gone.stdout and "no such document" in gone.stderr


def test_demo_command_runs_end_to_end(tmp_path, demo_index, capsys):
    index_copy = tmp_path / "index"
    shutil.copytree(demo_index, index_copy)
    assert main(["demo", "--dir", str(tmp_path / "demo"), "--index", str(index_copy), "--questions", "3", "-q"]) == 0
    out = capsys.readouterr().out
    assert "3/3 answering 3 questions" in out and "expected answer in the answer" in out
    assert "hdrr" in out and "chunks from the asked filing" in out and "why routing wins" in out
    # issue 51: the closing "Try:" command works as printed, from where the demo ran (no `finrag` on the PATH)
    try_line = next(ln for ln in out.splitlines() if ln.startswith("Try: "))
    cmd = shlex.split(try_line[len("Try: "):])
    assert cmd[0] != "finrag" or shutil.which("finrag"), try_line
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0 and "routing exact_path" in r.stdout, (try_line, r.stderr[-500:])
    # the expected answer's page as a PDF viewer counts it: the demo's pages print their viewer number
    assert re.search(r"expected: .+ \(stated in [A-Z0-9_]+, p\. \d", out), out[:2000]


def test_demo_names_the_command_that_runs_finrag_from_here(tmp_path, monkeypatch):
    """Issue 51: after the quick start (`bash .ci/install && .venv/bin/finrag demo`) `finrag` is not on the PATH:
    the demo's "Try:" line names `.venv/bin/finrag`; `finrag` only when that name on the PATH is this program."""
    from finrag.demo import finrag_command

    prog = tmp_path / ".venv" / "bin" / "finrag"
    prog.parent.mkdir(parents=True)
    prog.write_text("#!/bin/sh\n")
    prog.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert finrag_command(".venv/bin/finrag", cwd=tmp_path) == ".venv/bin/finrag"
    assert finrag_command(str(prog), cwd=tmp_path) == ".venv/bin/finrag"
    assert finrag_command(str(prog), cwd=tmp_path / ".venv") == "bin/finrag"
    monkeypatch.setenv("PATH", f"{prog.parent}:/usr/bin:/bin")
    assert finrag_command(".venv/bin/finrag", cwd=tmp_path) == "finrag"
    assert finrag_command("/nowhere/pytest", cwd=tmp_path).endswith(" -m finrag.cli")


def test_demo_says_agentic_dropped_the_chunks_its_verification_named():
    """Issue 51: Agentic's line named chunks of other filings ("verification failed (chunks from other filings:
    COBALT...)") that the contexts no longer held; it says they were dropped."""
    from finrag.demo import _why

    res = {"routing": {"status": "not_routed", "routed_docs": [], "reason": ""},
           "verification": {"belongs": False, "reason": "chunks from other filings: COBALTSOFTWARE_2023_10K",
                            "retries": 2, "unverified_dropped": 3}}
    line = _why(res)
    assert "verification failed (chunks from other filings: COBALTSOFTWARE_2023_10K, 2 retries" in line
    assert "those 3 chunks of other companies were dropped, not used" in line
    res["verification"] = {"belongs": True, "reason": "all top chunks from the target company", "retries": 0}
    assert "dropped" not in _why(res)
