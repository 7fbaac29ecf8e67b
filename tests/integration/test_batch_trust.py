"""Issue 11, items 5, 6 and 8 (command side): `finrag batch` loses no line, and the help texts tell the truth.

Before the fixes:
* 5: `--resume` after a torn last line (a crash mid-write) glued the next answer onto it: one answer lost,
  the file corrupt for good, exit 0;
* 6: `--in X --out X` overwrote the questions with answers; two lines with `"id": null` both became id
  "None" (so `--resume` skipped one); a non-UTF-8 file failed with no file or line number;
* 8: `finrag eval -h` said "unrecognized arguments: -h"; `finrag demo --help` described a default index
  path ($FINRAG_HOME, else ./.finrag) that the demo does not use.
Each test runs the real command in a subprocess (FINRAG_TEST_PYTHON picks another checkout's interpreter).
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.servers import CLI_PYTHON


def finrag(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([CLI_PYTHON, "-m", "finrag.cli", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def write_questions(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def answers(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def three(demo_qas) -> list[dict]:
    return [{"id": q["id"], "question": q["question"]} for q in demo_qas[:3]]


# ------------------------------------------------------------------------------------------ item 5
def test_resume_after_a_torn_last_line_loses_nothing(demo_index, three, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", three)
    out = tmp_path / "a.jsonl"
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr[-2000:]
    lines = out.read_bytes().split(b"\n")
    # a crash while the third answer was being written: its line is cut in the middle, no newline
    out.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][: len(lines[2]) // 2])
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q",
               "--resume")
    assert r.returncode == 0, r.stderr[-2000:]
    rows = answers(out)  # every line parses
    assert [a["id"] for a in rows] == [q["id"] for q in three] and all(a["answer"] for a in rows)
    assert "dropped an incomplete last line" in r.stderr and "wrote 1 answer(s)" in r.stdout


def test_resume_keeps_a_complete_last_line_without_its_newline(demo_index, three, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", three)
    out = tmp_path / "a.jsonl"
    finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q")
    whole = out.read_bytes()
    out.write_bytes(whole.rstrip(b"\n"))
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q",
               "--resume")
    assert r.returncode == 0 and "wrote 0 answer(s)" in r.stdout, r.stdout + r.stderr
    assert out.read_bytes() == whole


def test_resume_refuses_a_file_it_did_not_write(demo_index, three, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", three)
    out = tmp_path / "a.jsonl"
    out.write_text('{"id": "x", "answer": "a"}\nnot json at all\n{"id": "y"}\n')
    r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(out), "--resume")
    assert r.returncode == 2 and f"{out}:2:" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


# ------------------------------------------------------------------------------------------ item 6
def test_out_equal_to_in_is_refused_and_the_input_kept(demo_index, three, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", three)
    before = src.read_bytes()
    for out in (src, tmp_path / "." / "q.jsonl"):
        r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(out))
        assert r.returncode == 2 and "is the input file" in r.stderr, r.stderr
        assert src.read_bytes() == before
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(link))
    assert r.returncode == 2 and src.read_bytes() == before


def test_missing_and_null_ids_get_their_line_number(demo_index, three, tmp_path):
    rows = [{"id": None, "question": three[0]["question"]}, {"question": three[1]["question"]},
            {"id": None, "question": three[2]["question"]}]
    src = write_questions(tmp_path / "q.jsonl", rows)
    out = tmp_path / "a.jsonl"
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr[-2000:]
    assert [a["id"] for a in answers(out)] == ["1", "2", "3"]
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q",
               "--resume")
    assert "wrote 0 answer(s)" in r.stdout and len(answers(out)) == 3


def test_duplicate_ids_are_refused_with_both_lines(demo_index, three, tmp_path):
    rows = [{"id": "a", "question": three[0]["question"]}, {"id": "b", "question": three[1]["question"]},
            {"id": "a", "question": three[2]["question"]}]
    src = write_questions(tmp_path / "q.jsonl", rows)
    r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(tmp_path / "a.jsonl"))
    assert r.returncode == 2 and f"{src}:3: duplicate id 'a' (also line 1)" in r.stderr, r.stderr
    assert not (tmp_path / "a.jsonl").exists() or (tmp_path / "a.jsonl").read_text() == ""


def test_non_utf8_input_names_file_line_and_byte(demo_index, three, tmp_path):
    src = tmp_path / "latin1.jsonl"
    src.write_bytes(json.dumps(three[0]).encode() + b"\n" + '{"id": "x", "question": "Caf\u00e9 revenue?"}'
                    .encode("latin-1") + b"\n")
    r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(tmp_path / "a.jsonl"))
    assert r.returncode == 2, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{src}:2:" in lines[0] and "0xe9" in lines[0] and "UTF-8" in lines[0], r.stderr


# ------------------------------------------------------------------------------------------ item 8
def test_eval_help_works_as_finrag_help_says():
    assert "finrag eval -h" in finrag("--help").stdout
    r = finrag("eval", "-h")
    assert r.returncode == 0 and "usage:" in r.stdout and "run" in r.stdout, r.stdout + r.stderr


def test_demo_help_names_the_index_path_the_demo_uses():
    r = finrag("demo", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "FINRAG_HOME" not in text and "DIR/index" in text, text


def test_help_lists_the_exit_codes():
    text = " ".join(finrag("--help").stdout.split())
    for code in ("0 done", "1 done, but some inputs failed", "2 usage or input error", "3 the requested LLM failed",
                 "4 the index is locked", "5 the index is damaged or cannot be written", "130 interrupted"):
        assert code in text, (code, text)
