"""Issue 11, item 1: a user who asked for an LLM gets the LLM or a clear error, never a silent offline answer.

Before the fix, `finrag ask --llm openai/gpt-4.1 --llm-base-url <closed port>` printed the offline answer and
exited 0 (the failures only showed in `--json`'s `cost.calls`), and `--llm openai/...` without OPENAI_API_KEY
printed a 52-line traceback. Now:

* an LLM call that fails stops the run: one line on stderr naming the role, the model, the server and the
  cause, exit code 3 (`EXIT_LLM`); nothing on stdout;
* a model that cannot be built (no API key, unknown provider) is a configuration error: one line, exit 2;
* the offline fallback happens only when asked for (`--on-llm-error offline`, `on_llm_error="offline"`,
  `FINRAG_ON_LLM_ERROR=offline`), and then the answer carries `offline_fallback` (the roles that fell back)
  and stderr says so.

The servers are real loopback ones: a closed port, and tests/support/openai_stub.py for HTTP 500s.
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from support.openai_stub import OpenAIStub
from support.servers import CLI_PYTHON, HOST, free_port

from finrag import run_query


def run_cli(*args: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "FINRAG_LLM", "OPENAI_BASE_URL")}
    return subprocess.run([CLI_PYTHON, "-m", "finrag.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**base, "HF_HUB_OFFLINE": "1", **(env or {})})


pytestmark = pytest.mark.usefixtures("fresh_index")


@pytest.fixture(scope="module")
def closed_url() -> str:
    return f"http://{HOST}:{free_port()}/v1"  # nothing listens there


def test_unreachable_llm_is_an_error_not_an_offline_answer(demo_index, demo_qas, closed_url):
    r = run_cli("ask", "--index", str(demo_index), "--llm", "openai/gpt-4.1", "--llm-base-url", closed_url,
                demo_qas[0]["question"])
    assert r.returncode == 3, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert r.stdout == ""  # no answer at all, rather than an offline one passed off as the LLM's
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("finrag: error: the router LLM (gpt-4.1 at " + closed_url)
    assert "on-llm-error offline" in lines[0]


@pytest.mark.parametrize("spec", ["openai/gpt-4.1", "bogus"])
def test_missing_api_key_is_one_line_exit_2(demo_index, demo_qas, spec):
    r = run_cli("ask", "--index", str(demo_index), "--llm", spec, demo_qas[0]["question"])
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "OPENAI_API_KEY" in lines[0] and "--llm-base-url" in lines[0]


def test_unknown_provider_is_one_line_exit_2(demo_index, demo_qas):
    r = run_cli("ask", "--index", str(demo_index), "--llm", "anthropic/claude", demo_qas[0]["question"])
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "unknown model provider 'anthropic'" in r.stderr


def test_unknown_on_llm_error_value_is_rejected(demo_index, demo_qas):
    r = run_cli("ask", "--index", str(demo_index), "--on-llm-error", "ignore", demo_qas[0]["question"])
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_offline_fallback_only_when_asked_and_then_marked(demo_index, demo_qas, closed_url):
    q = demo_qas[0]["question"]
    r = run_cli("ask", "--index", str(demo_index), "--llm", "openai/gpt-4.1", "--llm-base-url", closed_url,
                "--on-llm-error", "offline", "--json", q, env={"FINRAG_FAST_PATH": "off"})  # the generator is asked too
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(r.stdout)
    failed_roles = list(dict.fromkeys(c["role"] for c in res["cost"]["calls"] if c["model"] == "error"))
    assert res["offline_fallback"] == failed_roles and failed_roles[:2] == ["router", "rewriter"], res["cost"]
    assert res["cost"]["llm_calls"] == 0 and res["answer"]
    warn = [ln for ln in r.stderr.splitlines() if ln.startswith("finrag: warning:")]
    assert len(warn) == 1 and ", ".join(failed_roles) in warn[0] and "offline" in warn[0], r.stderr
    # an offline run has no such field: the marker means "an LLM was asked for and failed"
    plain = run_cli("ask", "--index", str(demo_index), "--json", q)
    assert plain.returncode == 0 and "offline_fallback" not in json.loads(plain.stdout)
    assert "warning" not in plain.stderr


def test_python_api_raises_llm_error_and_falls_back_when_configured(demo_index, demo_qas):
    with OpenAIStub() as stub:
        stub.mode = "http500"
        conf = stub.configurable(fast_path="off")
        from finrag.tools.llm.calls import LLMError

        with pytest.raises(LLMError) as info:
            run_query(demo_qas[0]["question"], "hdrr", index_dir=str(demo_index), configurable=conf)
        assert info.value.role == "router" and "500" in str(info.value)
        res = run_query(demo_qas[0]["question"], "hdrr", index_dir=str(demo_index),
                        configurable={**conf, "on_llm_error": "offline"})
        calls = res["cost"]["calls"]
        assert calls and all(c["model"] == "error" for c in calls)
        assert res["offline_fallback"] == list(dict.fromkeys(c["role"] for c in calls))
        assert res["offline_fallback"][:2] == ["router", "rewriter"]


def test_batch_stops_at_the_first_llm_error(demo_index, demo_qas, closed_url, tmp_path):
    src = tmp_path / "q.jsonl"
    src.write_text("".join(json.dumps({"id": q["id"], "question": q["question"]}) + "\n" for q in demo_qas[:3]))
    out = tmp_path / "a.jsonl"
    r = run_cli("batch", "--index", str(demo_index), "--in", str(src), "--out", str(out), "-q",
                "--llm", "openai/m", "--llm-base-url", closed_url)
    assert r.returncode == 3, r.stderr[-2000:]
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and f"{src}:1" in err[0] and "no answer written" in err[0], r.stderr
    assert not out.exists()  # nothing was passed off as an LLM answer (and no empty --out was made: issue 21)


class _ThreadServer:
    """uvicorn serving an app in a thread of the test process (the environment is the test's)."""

    def __init__(self, app):
        import threading

        import uvicorn

        self.url = f"http://{HOST}:{free_port()}"
        port = int(self.url.rsplit(":", 1)[1])
        self.server = uvicorn.Server(uvicorn.Config(app, host=HOST, port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        import time

        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)


def test_server_answers_502_on_llm_error(demo_index, demo_qas, closed_url, monkeypatch):
    import httpx

    from finrag.server import create_app

    monkeypatch.setenv("FINRAG_LLM", "openai/gpt-4.1")
    monkeypatch.setenv("FINRAG_LLM_BASE_URL", closed_url)
    with _ThreadServer(create_app(demo_index, warm_up=False)) as server:
        r = httpx.post(f"{server.url}/hdrr/invoke", json={"input": {"question": demo_qas[0]["question"]}},
                       timeout=120)
    assert r.status_code == 502, r.text
    assert r.json()["detail"].startswith("the router LLM (gpt-4.1 at ")
