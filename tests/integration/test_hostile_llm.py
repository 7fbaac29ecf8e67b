"""Issue 21 ("Trust, round two"): an LLM endpoint that accepts the connection and never answers.

Before the fix, every chat model was built with a 120 s timeout and 3 retries and no setting changed them:
`finrag ask --llm openai/<model> --llm-base-url <hung server>` held for 485 s and said "failed", not "timed
out"; on `finrag serve`, 8 such requests got their 504 at FINRAG_SERVE_TIMEOUT but kept the worker threads
for minutes, and `/health` (which shared the default thread pool with the graph runs) did not answer. Now:

* `llm_timeout_s` (default 60) and `llm_max_retries` (default 2), FINRAG_LLM_TIMEOUT_S / FINRAG_LLM_MAX_RETRIES,
  reach ChatOpenAI; a call that runs out of time stops the run with one line, "timed out after N s (K
  attempts)", exit 3, after about N x K seconds;
* the server gives its LLM calls a timeout and a retry budget that fit inside its own request timeout, so a
  request that gets its 504 frees its worker thread right after; `/health` runs on its own small thread pool
  and answers within a second while every graph worker is stuck.

The hung server is tests/support/openai_stub.py in its "hang" mode: it reads the request and holds the
connection until the client closes it (`stub.hanging` counts the held ones, so a test sees the client give up).
"""
from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.openai_stub import OpenAIStub
from support.servers import (
    CLI_PYTHON,
    clean_env,
    finrag_serve,
    invoke_all,
    poll_health_until,
    thread_count,
)

from finrag import run_query
from finrag.state.configuration import Configuration
from finrag.tools.llm.calls import LLMError
from finrag.tools.llm.chat import get_chat_model

pytestmark = [pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance"),
              pytest.mark.usefixtures("machine_settings_cleared", "fresh_index")]


@pytest.fixture()
def hung():
    """A loopback OpenAI-compatible server that accepts every chat request and never answers it."""
    with OpenAIStub() as stub:
        stub.mode = "hang"
        yield stub


# ------------------------------------------------------------------------------------ configuration
def test_llm_timeout_and_retries_reach_the_chat_model(monkeypatch):
    base = {"llm": "openai/m", "llm_base_url": "http://127.0.0.1:9/v1"}
    default = get_chat_model("router", Configuration(**base))
    assert (default.request_timeout, default.max_retries) == (60.0, 2)
    given = get_chat_model("router", Configuration(**base, llm_timeout_s=7, llm_max_retries=0))
    assert (given.request_timeout, given.max_retries) == (7.0, 0)
    monkeypatch.setenv("FINRAG_LLM_TIMEOUT_S", "2.5")
    monkeypatch.setenv("FINRAG_LLM_MAX_RETRIES", "1")
    from_env = get_chat_model("router", Configuration(**base))
    assert (from_env.request_timeout, from_env.max_retries) == (2.5, 1)


def test_llm_timeout_reaches_the_openai_embeddings_client(monkeypatch):
    from finrag.tools.indexing.embedders import OpenAIEmbedder

    monkeypatch.setenv("FINRAG_LLM_TIMEOUT_S", "3")
    monkeypatch.setenv("FINRAG_LLM_MAX_RETRIES", "0")
    client = OpenAIEmbedder(base_url="http://127.0.0.1:9/v1").client
    assert (client.request_timeout, client.max_retries) == (3.0, 0)


# ------------------------------------------------------------------------------------------- Python
def test_a_hung_llm_is_a_timeout_error_after_the_retry_budget(demo_index, demo_qas, hung):
    conf = hung.configurable(llm_timeout_s=0.5, llm_max_retries=2)
    t0 = time.monotonic()
    with pytest.raises(LLMError) as info:
        run_query(demo_qas[0]["question"], "hdrr", index_dir=str(demo_index), configurable=conf)
    took = time.monotonic() - t0
    message = str(info.value)
    assert info.value.timed_out and "\n" not in message, message
    assert message.startswith(f"the router LLM (stub-model at {hung.base_url}) timed out after 0.5 s (3 attempts)")
    assert len(hung.chat_requests()) == 3  # one attempt and two retries, then it gives up
    assert took < 0.5 * 3 + 1.5 + 3, took  # three attempts, the client's backoff (<= 0.5 + 1 s), slack
    assert hung.wait_hanging(0, timeout=5), "the client left its connections to the hung server open"


# ---------------------------------------------------------------------------------------------- CLI
def ask(demo_index, url: str, question: str, *flags: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([CLI_PYTHON, "-m", "finrag.cli", "ask", "--index", str(demo_index), "--llm", "openai/stub-model",
                           "--llm-base-url", url, *flags, question], capture_output=True, text=True, timeout=90, env=env)


@pytest.mark.parametrize("how", ["environment", "flag"])
def test_ask_with_a_hung_llm_exits_3_with_one_line_saying_timed_out(demo_index, demo_qas, hung, how):
    if how == "environment":
        env, flags = clean_env(FINRAG_LLM_TIMEOUT_S="1", FINRAG_LLM_MAX_RETRIES="1"), ()
    else:
        env, flags = clean_env(FINRAG_LLM_MAX_RETRIES="1"), ("--llm-timeout", "1")
    t0 = time.monotonic()
    r = ask(demo_index, hung.base_url, demo_qas[0]["question"], *flags, env=env)
    took = time.monotonic() - t0
    assert r.returncode == 3, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"finrag: error: the router LLM (stub-model at {hung.base_url}) timed out after 1 s "
                               "(2 attempts)"), lines[0]
    assert len(hung.chat_requests()) == 2
    assert took < 30, f"finrag ask took {took:.1f} s with a 1 s timeout and 1 retry"  # start-up included


def test_ask_refuses_a_timeout_that_is_not_positive_in_one_line(demo_index, demo_qas, hung):
    r = ask(demo_index, hung.base_url, demo_qas[0]["question"], "--llm-timeout", "0", env=clean_env())
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stderr[-2000:])
    assert r.stderr.strip() == "finrag: error: llm_timeout_s must be a positive number of seconds, not 0.0", r.stderr
    assert hung.chat_requests() == []


# ------------------------------------------------------------------------------------------- server
SERVE_TIMEOUT = 5
N_STUCK = 8


def test_server_health_answers_and_workers_are_freed_while_the_llm_hangs(demo_index, demo_qas, tmp_path):
    def llm(stub: OpenAIStub) -> dict[str, str]:  # llm_timeout_s stays 60: the server must lower it
        return {"FINRAG_LLM": "openai/stub-model", "FINRAG_LLM_BASE_URL": stub.base_url,
                "FINRAG_SERVE_TIMEOUT": str(SERVE_TIMEOUT)}

    questions = [q["question"] for q in demo_qas][:4]
    # one process: the test counts the threads of the process that answers (with workers, proc is their supervisor)
    with OpenAIStub() as stub, finrag_serve(demo_index, tmp_path, "--workers", "1", env=llm(stub)) as served:
        url, proc = served.url, served.proc
        invoke_all(url, questions[:1])  # first request of the process: the reader's caches filled, untimed
        warm = invoke_all(url, questions)  # a working LLM: every request answers (and the worker pool is up)
        assert [s for s, _ in warm] == [200] * len(questions), warm
        baseline = thread_count(proc.pid)

        stub.mode = "hang"
        sent = time.monotonic()
        with ThreadPoolExecutor(1) as pool:
            stuck = pool.submit(invoke_all, url, [questions[i % len(questions)] for i in range(N_STUCK)])
            health = poll_health_until(stuck, url, timeout=3, failed=99.0)
            results = stuck.result()
        assert [s for s, _ in results] == [504] * N_STUCK, results
        assert max(s for _, s in results) < SERVE_TIMEOUT + 5, results
        assert len(health) >= 10 and max(health) < 1.0, f"/health took up to {max(health):.2f} s: {health}"

        # the LLM calls behind the 504s end by themselves, shortly after: their connections close, threads are free
        assert stub.wait_hanging(0, timeout=SERVE_TIMEOUT + 5), f"{stub.hanging} LLM call(s) still held"
        # ... by their request's deadline (tools/llm/deadline.py): a call waits at most the time its request has
        # left, and a node that reaches its call after the 504 does not start it
        held = [r for r in stub.requests if r.get("released_at") and r.get("at", 0) >= sent]
        assert held, "no LLM call reached the hung stub"
        assert max(r["released_at"] for r in held) - sent < SERVE_TIMEOUT + 2.0, \
            [(round(r["at"] - sent, 2), round(r["released_at"] - sent, 2)) for r in held]
        # each stuck call held a thread of its own besides its worker (LangChain runs the structured call in a
        # short-lived pool): those end with the calls; the /health pool may have started its second thread
        deadline = time.monotonic() + 10
        while thread_count(proc.pid) > baseline + 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert thread_count(proc.pid) <= baseline + 2, (thread_count(proc.pid), baseline)

        stub.mode = "ok"  # the next requests do not queue behind dead ones
        after = invoke_all(url, questions)
        assert [s for s, _ in after] == [200] * len(questions), after
        assert max(s for _, s in after) < SERVE_TIMEOUT, after


def test_server_gives_its_llm_calls_a_budget_inside_its_request_timeout(demo_index, monkeypatch):
    from finrag.server import create_app

    monkeypatch.setenv("FINRAG_LLM_TIMEOUT_S", "60")
    monkeypatch.setenv("FINRAG_LLM_MAX_RETRIES", "2")
    for timeout_s, expected in ((5, (5.0, 0)), (120, (60.0, 1)), (400, (60.0, 2))):
        app = create_app(Path(demo_index), warm_up=False, timeout_s=timeout_s)
        conf = app.state.run_conf
        assert (conf["llm_timeout_s"], conf["llm_max_retries"]) == expected, (timeout_s, conf)


def test_server_answers_504_naming_the_llm_when_its_call_times_out_first(demo_index, demo_qas, hung, monkeypatch):
    from starlette.testclient import TestClient

    from finrag.server import create_app

    monkeypatch.setenv("FINRAG_LLM", "openai/stub-model")
    monkeypatch.setenv("FINRAG_LLM_BASE_URL", hung.base_url)
    monkeypatch.setenv("FINRAG_LLM_TIMEOUT_S", "0.5")
    monkeypatch.setenv("FINRAG_LLM_MAX_RETRIES", "0")
    with TestClient(create_app(Path(demo_index), warm_up=False, timeout_s=30)) as client:
        t0 = time.monotonic()
        r = client.post("/hdrr/invoke", json={"input": {"question": demo_qas[0]["question"]}})
        took = time.monotonic() - t0
    assert r.status_code == 504, r.text  # a gateway timeout: the LLM behind the server did not answer in time
    assert r.json()["detail"].startswith(f"the router LLM (stub-model at {hung.base_url}) timed out after 0.5 s "
                                         "(1 attempt)"), r.text
    assert took < 10, took
