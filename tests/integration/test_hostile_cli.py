"""Issue 21 ("Trust, round two"), the command line and indexing: hostile inputs and environments.

Before the fixes:
* data loss: `finrag batch --out answers.jsonl` emptied an existing file before anything was checked: a
  mistyped `--index` (exit 2, "nothing was done"), an LLM failure on the first line (exit 3) or a crash left
  0 bytes. Now the first answer goes to a temporary file next to `--out`, renamed over it at once, and the
  others follow it (so a run stopped later leaves its answers for `--resume`);
* tracebacks: a question argument that is not UTF-8 (`finrag ask $'\\xff'`), a lone surrogate (`\\ud800`) in
  a batch question, `--out /proc/version` or `--out` on a read-only file system, `finrag index` on a
  read-only file system (`write.lock` cannot be created);
* wrong or silent messages: a 0-byte `finrag.sqlite` was an empty index (and `info` made it one); a dot-file
  (`..X.pdf`) was skipped without a line; rejected batch questions were not reported on stderr; a full disk
  while writing `--out` talked about the index; a read-only index said "unable to open database file";
  a newline or an ANSI escape in a file name went into document ids and printed lines (forging a `failed`
  line); `finrag serve --port 99999` was accepted.
Each test runs the real command in a subprocess (FINRAG_TEST_PYTHON picks another checkout's interpreter).
A read-only file system is a read-only bind mount in a private mount namespace (`unshare -rm`); the tests
that need one are skipped where `unshare` cannot make one.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from support.openai_stub import OpenAIStub
from support.servers import CLI_PYTHON, HOST, free_port

CLI = [CLI_PYTHON, "-m", "finrag.cli"]
OLD_ANSWERS = b"".join(json.dumps({"id": f"old{i}", "answer": "x" * 500}).encode() + b"\n" for i in range(100))


def _env(**extra: str) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "FINRAG_LLM", "OPENAI_BASE_URL")}
    return {**base, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", **extra}


def finrag(*args, prefix: list[str] | None = None, timeout: int = 300, env: dict | None = None
           ) -> subprocess.CompletedProcess:
    return subprocess.run([*(prefix or []), *CLI, *args], capture_output=True, text=True, timeout=timeout,
                          env=env or _env(), errors="backslashreplace")


def one_error_line(r: subprocess.CompletedProcess) -> str:
    """The single line a failed command printed on stderr (asserts there is exactly one, and no traceback)."""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-3000:]
    assert lines[0].startswith("finrag: error: "), lines
    return lines[0]


def write_questions(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def many(demo_qas, tmp_path) -> Path:
    """A batch input long enough to be interrupted in the middle (the demo questions, many times)."""
    rows = [{"id": f"q{i}", "question": demo_qas[i % len(demo_qas)]["question"]} for i in range(150)]
    return write_questions(tmp_path / "q.jsonl", rows)


def _old_answers(path: Path) -> Path:
    path.write_bytes(OLD_ANSWERS)
    return path


def _left_over(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


_RO_SCRIPT = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"'


def read_only_view(src: Path, mnt: Path) -> list[str]:
    """A command prefix that runs the command with `mnt` a read-only view of `src` (EROFS for every write)."""
    mnt.mkdir(parents=True, exist_ok=True)
    if not shutil.which("unshare"):
        pytest.skip("no `unshare` to make a read-only file system")
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", _RO_SCRIPT, "sh", str(src), str(mnt), "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"`unshare -rm` cannot make a read-only bind mount here: {probe.stderr.strip()}")
    return ["unshare", "-rm", "sh", "-c", _RO_SCRIPT, "sh", str(src), str(mnt)]


# ---------------------------------------------------------------------------------------- data loss
def test_mistyped_index_leaves_the_old_answers_file_intact(demo_qas, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", [{"id": "a", "question": demo_qas[0]["question"]}])
    out = _old_answers(tmp_path / "answers.jsonl")
    r = finrag("batch", "--index", str(tmp_path / "no-such-index"), "--in", str(src), "--out", str(out))
    assert r.returncode == 2 and "no finrag index" in one_error_line(r)
    assert out.read_bytes() == OLD_ANSWERS
    assert _left_over(tmp_path, {"q.jsonl", "answers.jsonl"}) == []  # no temporary file either


def test_a_rejected_question_before_a_failure_does_not_replace_the_old_answers(demo_qas, tmp_path):
    """A rejected question is no answer: it is held until the first real one, so an empty first line followed
    by a mistyped --index still leaves the old file as it was."""
    src = write_questions(tmp_path / "q.jsonl", [{"id": "empty", "question": "   "},
                                                  {"id": "a", "question": demo_qas[0]["question"]}])
    out = _old_answers(tmp_path / "answers.jsonl")
    r = finrag("batch", "--index", str(tmp_path / "no-such-index"), "--in", str(src), "--out", str(out))
    assert r.returncode == 2 and "no finrag index" in r.stderr
    assert f"{src}:1: question is empty" in r.stderr  # still reported
    assert out.read_bytes() == OLD_ANSWERS
    assert _left_over(tmp_path, {"q.jsonl", "answers.jsonl"}) == []


def test_rejected_questions_are_written_in_order_with_the_answers(demo_index, demo_qas, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", [{"id": "empty", "question": "   "},
                                                  {"id": "a", "question": demo_qas[0]["question"]},
                                                  {"id": "empty2", "question": ""}])
    out = tmp_path / "answers.jsonl"
    r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(out), "-q")
    assert r.returncode == 1, r.stderr[-2000:]
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in rows] == ["empty", "a", "empty2"]
    assert rows[0]["error"] == "question is empty" and rows[1]["answer"]


def test_llm_failure_on_the_first_line_leaves_the_old_answers_intact(demo_index, demo_qas, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", [{"id": q["id"], "question": q["question"]} for q in demo_qas[:3]])
    out = _old_answers(tmp_path / "answers.jsonl")
    r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(out), "-q", "--llm", "openai/x",
               "--llm-base-url", f"http://{HOST}:{free_port()}/v1", env=_env(OPENAI_API_KEY="x"))
    assert r.returncode == 3, r.stderr[-2000:]
    line = one_error_line(r)
    assert f"{src}:1:" in line and "no answer written" in line and "unchanged" in line, line
    assert out.read_bytes() == OLD_ANSWERS
    assert _left_over(tmp_path, {"q.jsonl", "answers.jsonl"}) == []


def _wait_for_an_answer(proc: subprocess.Popen, out: Path, timeout: float = 180) -> None:
    """Until the running batch has written at least one whole new answer to `out`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the batch ended (exit {proc.returncode}) before it could be stopped"
        try:
            data = out.read_bytes()
        except OSError:
            data = b""
        if data != OLD_ANSWERS and b'"answer"' in data and data.endswith(b"\n"):
            return
        time.sleep(0.02)
    raise AssertionError("no answer written in time")


def _wait_until(cond, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert proc.poll() is None, f"the batch ended (exit {proc.returncode}) before it could be stopped"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_killed_batch_leaves_the_old_answers_or_the_new_ones_for_resume(demo_index, demo_qas, many, tmp_path):
    """kill -9 while the first question waits for its LLM (a server that never answers): the old file is
    intact. kill -9 after answers were written: they are in --out, and `--resume` finishes the run."""
    src = write_questions(tmp_path / "three.jsonl", [{"id": q["id"], "question": q["question"]} for q in demo_qas[:3]])
    out = _old_answers(tmp_path / "answers.jsonl")
    with socket.socket() as server:
        server.bind((HOST, 0))
        server.listen()
        server.settimeout(180)
        proc = subprocess.Popen([*CLI, "batch", "--index", str(demo_index), "--in", str(src), "--out", str(out), "-q",
                                 "--llm", "openai/x", "--llm-base-url", f"http://{HOST}:{server.getsockname()[1]}/v1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(OPENAI_API_KEY="x"))
        try:
            conn, _ = server.accept()  # the first question's first LLM call, which gets no reply
            proc.send_signal(signal.SIGKILL)  # a crash: no handler runs
            proc.wait(30)
            conn.close()
        finally:
            if proc.poll() is None:
                proc.kill()
    assert out.read_bytes() == OLD_ANSWERS

    proc = subprocess.Popen([*CLI, "batch", "--index", str(demo_index), "--system", "cbr", "--in", str(many),
                             "--out", str(out), "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    try:
        _wait_for_an_answer(proc, out)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(many), "--out", str(out), "-q",
               "--resume")
    assert r.returncode == 0, r.stderr[-2000:]
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == [f"q{i}" for i in range(150)]
    assert _left_over(tmp_path, {"q.jsonl", "three.jsonl", "answers.jsonl"}) == []  # temporary files cleared


def test_ctrl_c_keeps_the_answers_so_far_for_resume(demo_index, many, tmp_path):
    """Ctrl-C while the batch waits on its LLM server (the usual reason to press it): the answers so far stay for
    `--resume`. The server hangs from the second question on, so the signal always finds the batch running
    (an offline batch of the demo questions answers 150 of them in ~2.5 s: a busy machine could let it end
    before the signal came, and the signal then only met the interpreter's shutdown)."""
    out = _old_answers(tmp_path / "answers.jsonl")
    with OpenAIStub() as stub:
        # SIGINT as a terminal's Ctrl-C delivers it: a job started in the background (nohup, `&`, some CI runners)
        # inherits SIGINT ignored, and Python then never raises KeyboardInterrupt, so the child restores the default
        proc = subprocess.Popen([*CLI, "batch", "--index", str(demo_index), "--system", "cbr", "--in", str(many),
                                 "--out", str(out), "-q", "--llm", "openai/stub-model", "--llm-base-url",
                                 stub.base_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=_env(OPENAI_API_KEY="x"),
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            _wait_for_an_answer(proc, out)
            stub.mode = "hang"
            _wait_until(lambda: stub.hanging > 0, proc)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, (proc.returncode, stderr[-2000:])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["id"].startswith("q") for r in rows)  # the new answers, none of the old file
    assert len(rows) < 150
    line = one_error_line(subprocess.CompletedProcess([], 130, stdout, stderr))
    assert f"{len(rows)} answer(s) written to {out}" in line and "--resume" in line, line
    assert _left_over(tmp_path, {"q.jsonl", "answers.jsonl"}) == []
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(many), "--out", str(out), "-q",
               "--resume")  # offline: the rest answered without the server
    assert r.returncode == 0, r.stderr[-2000:]
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == [f"q{i}" for i in range(150)]


# ---------------------------------------------------------------------------------------- tracebacks
def test_a_question_argument_that_is_not_utf8_is_one_line(demo_index):
    r = subprocess.run([*CLI, "ask", "--index", str(demo_index), b"What was Acme Widgets' revenue in FY2022?\xff"],
                       capture_output=True, text=True, env=_env(), timeout=300)
    assert r.returncode == 2, r.stderr[-3000:]
    line = one_error_line(r)
    assert "not UTF-8" in line and "0xff" in line, line
    for blank in ("", "   ", "\t\n"):  # still usage errors
        r = finrag("ask", "--index", str(demo_index), blank)
        assert r.returncode == 2 and "question is empty" in one_error_line(r)


def test_a_lone_surrogate_in_a_batch_question_is_one_line(demo_index, tmp_path):
    src = tmp_path / "q.jsonl"
    src.write_text('{"id": "ok", "question": "What was Acme Widgets\' revenue in FY2022?"}\n'
                   '{"id": "s", "question": "What was Acme Widgets\' revenue \\ud800 in FY2022?"}\n')
    out = _old_answers(tmp_path / "answers.jsonl")
    r = finrag("batch", "--index", str(demo_index), "--in", str(src), "--out", str(out))
    assert r.returncode == 2
    line = one_error_line(r)
    assert f"{src}:2:" in line and "surrogate" in line, line
    assert out.read_bytes() == OLD_ANSWERS


def test_out_that_cannot_be_written_is_one_line(demo_index, demo_qas, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", [{"id": "a", "question": demo_qas[0]["question"]}])
    before = Path("/proc/version").read_bytes()
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", "/proc/version")
    assert r.returncode == 2, r.stderr[-3000:]
    assert "cannot write --out /proc/version" in one_error_line(r)
    assert Path("/proc/version").read_bytes() == before

    folder = tmp_path / "ro-src"
    folder.mkdir()
    _old_answers(folder / "answers.jsonl")
    mnt = tmp_path / "ro"
    prefix = read_only_view(folder, mnt)
    for out in (mnt / "answers.jsonl", mnt / "new" / "answers.jsonl"):
        r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out),
                   prefix=prefix)
        assert r.returncode == 2, r.stderr[-3000:]
        line = one_error_line(r)
        assert f"cannot write --out {out}" in line and "read-only file system" in line, line
    assert (folder / "answers.jsonl").read_bytes() == OLD_ANSWERS


def test_index_on_a_read_only_file_system_is_one_line(demo_corpus, demo_index, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(demo_index, src / "idx")
    mnt = tmp_path / "ro"
    prefix = read_only_view(src, mnt)
    for index in (mnt / "idx", mnt / "new"):
        r = finrag("index", str(demo_corpus[1][0]), "--index", str(index), "-q", "--no-embed", prefix=prefix)
        assert r.returncode == 5, (index, r.returncode, r.stderr[-3000:])
        line = one_error_line(r)
        assert str(index) in line and "read-only file system" in line, line


# ------------------------------------------------------------------------------ wrong or silent messages
def test_an_empty_database_file_is_damaged_not_an_empty_index(demo_corpus, tmp_path):
    idx = tmp_path / "idx"
    idx.mkdir()
    db = idx / "finrag.sqlite"
    db.write_bytes(b"")
    for args in (["info", "--index", str(idx)], ["ask", "--index", str(idx), "What was Acme Widgets' revenue?"],
                 ["index", str(demo_corpus[1][0]), "--index", str(idx), "-q", "--no-embed"]):
        r = finrag(*args)
        assert r.returncode == 5, (args, r.returncode, r.stdout[-500:], r.stderr[-2000:])
        line = one_error_line(r)
        assert str(db) in line and "0 bytes" in line, line
        assert db.stat().st_size == 0  # not turned into an empty index
    r = finrag("index", "--check", "--index", str(idx))
    assert r.returncode == 5 and "check      OK" not in r.stdout
    assert any(str(db) in ln and "0 bytes" in ln for ln in r.stdout.splitlines() if ln.startswith("PROBLEM")), r.stdout


def test_hidden_files_are_reported_as_skipped(demo_corpus, tmp_path):
    folder = tmp_path / "filings"
    folder.mkdir()
    shutil.copy(demo_corpus[1][0], folder / demo_corpus[1][0].name)
    shutil.copy(demo_corpus[1][1], folder / "..X.pdf")
    r = finrag("index", str(folder), "--index", str(tmp_path / "idx"), "-q", "--no-embed", "--workers", "1")
    assert r.returncode == 0, r.stderr[-2000:]
    skipped = [ln for ln in r.stderr.splitlines() if ln.startswith("skipped")]
    assert skipped == [f"skipped {folder / '..X.pdf'}: hidden file (the name starts with a dot)"], r.stderr
    assert "indexed 1 file(s)" in r.stdout and "skipped 1" in r.stdout, r.stdout


def test_rejected_batch_questions_are_reported_with_file_and_line(demo_index, demo_qas, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", [{"id": "good", "question": demo_qas[0]["question"]},
                                                 {"id": "empty", "question": "  "},
                                                 {"id": "long", "question": "revenue " * 20_000}])
    out = tmp_path / "answers.jsonl"
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", str(out), "-q")
    assert r.returncode == 1, r.stderr[-2000:]
    failed = [ln for ln in r.stderr.splitlines() if ln.startswith("failed")]
    assert len(failed) == 2, r.stderr
    assert failed[0].startswith(f"failed  {src}:2: ") and "question is empty" in failed[0] and "empty" in failed[0]
    assert failed[1].startswith(f"failed  {src}:3: ") and "too long" in failed[1], failed
    assert "wrote 3 answer(s)" in r.stdout and "(2 rejected)" in r.stdout


def test_a_full_disk_while_writing_out_names_the_out_file(demo_index, demo_qas, tmp_path):
    src = write_questions(tmp_path / "q.jsonl", [{"id": "a", "question": demo_qas[0]["question"]}])
    r = finrag("batch", "--index", str(demo_index), "--system", "cbr", "--in", str(src), "--out", "/dev/full")
    assert r.returncode == 5, r.stderr[-2000:]
    line = one_error_line(r)
    assert "--out /dev/full" in line and "disk full" in line and "index" not in line, line


def test_a_read_only_index_names_the_file_and_why(demo_index, demo_qas, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(demo_index, src / "idx")
    mnt = tmp_path / "ro"
    prefix = read_only_view(src, mnt)
    for args in (["info", "--index", str(mnt / "idx")], ["ask", "--index", str(mnt / "idx"), demo_qas[0]["question"]]):
        r = finrag(*args, prefix=prefix)
        assert r.returncode == 5, (args, r.returncode, r.stderr[-2000:])
        line = one_error_line(r)
        assert str(mnt / "idx" / "finrag.sqlite") in line and "read-only" in line, line
        assert "unable to open database file" not in line.split("(")[0], line


def test_control_characters_in_file_names_stay_out_of_ids_and_lines(tmp_path):
    folder = tmp_path / "filings"
    folder.mkdir()
    body = "Acme Widgets Inc. annual report.\nTotal revenue was $1,234 million in fiscal 2022.\n"
    (folder / "acme\x1b[31m_red.txt").write_text(body)
    (folder / "acme_[31m_red.txt").write_text(body + "Another copy, with other text.\n")  # the same id once cleaned
    (folder / "bad\nfailed  forged.txt").write_bytes(b"")  # fails (empty file): its name is one line
    idx = tmp_path / "idx"
    r = finrag("index", str(folder), "--index", str(idx), "-q", "--no-embed", "--workers", "1")
    assert r.returncode == 1, r.stderr[-2000:]
    assert "\x1b" not in r.stdout + r.stderr
    failed = [ln for ln in r.stderr.splitlines() if ln.startswith("failed")]
    assert len(failed) == 1 and "forged" in failed[0] and "empty file" in failed[0], r.stderr
    info = finrag("info", "--index", str(idx), "--documents", "--json")
    ids = [d["doc_id"] for d in json.loads(info.stdout)["documents_list"]]
    assert len(ids) == 2 and len(set(ids)) == 2, ids
    assert all(c.isprintable() for i in ids for c in i), ids
    listing = finrag("info", "--index", str(idx), "--documents")
    assert listing.returncode == 0 and "\x1b" not in listing.stdout, listing.stdout
    ask = finrag("ask", "--index", str(idx), "--system", "cbr", "--json", "What was Acme Widgets' total revenue?")
    assert ask.returncode == 0, ask.stderr[-2000:]
    cited = {c["doc_id"] for c in json.loads(ask.stdout)["contexts"]}
    assert cited and cited <= set(ids), (cited, ids)


def test_serve_rejects_a_port_out_of_range():
    for port in ("99999", "0", "-1"):
        try:
            r = finrag("serve", "--port", port, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`finrag serve --port {port}` started a server")
        assert r.returncode == 2 and "--port must be 1-65535" in r.stderr, (port, r.stderr[-2000:])


def test_serve_rejects_a_worker_count_out_of_range(demo_index):
    for workers in ("0", "65", "-2"):
        try:
            r = finrag("serve", "--index", str(demo_index), "--port", str(free_port()), "--workers", workers,
                       timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`finrag serve --workers {workers}` started a server")
        assert r.returncode == 2 and "--workers must be 1-64" in r.stderr, (workers, r.stderr[-2000:])
    try:
        r = finrag("serve", "--index", str(demo_index), "--port", str(free_port()),
                   env=_env(FINRAG_SERVE_WORKERS="0"), timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("`finrag serve` started a server with FINRAG_SERVE_WORKERS=0")
    assert r.returncode == 2 and one_error_line(r).startswith("finrag: error: FINRAG_SERVE_WORKERS"), r.stderr[-2000:]


def test_a_malformed_serve_variable_fails_serve_in_one_line_and_no_other_command(demo_index):
    env = _env(FINRAG_SERVE_TIMEOUT="abc")
    r = finrag("info", "--index", str(demo_index), env=env, timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    try:
        r = finrag("serve", "--index", str(demo_index), "--port", str(free_port()), env=env, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("`finrag serve` started a server with FINRAG_SERVE_TIMEOUT=abc")
    assert r.returncode == 2, r.stderr[-2000:]
    assert one_error_line(r) == "finrag: error: FINRAG_SERVE_TIMEOUT: expected a number, got 'abc'"
