"""The request deadline (tools/llm/deadline.py): inside `finrag serve` a run's LLM calls fit in the time its
request has left, and none starts once it has run out, so the worker thread behind a 504 is freed at once."""
from __future__ import annotations

import time

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage

from finrag.state.configuration import Configuration
from finrag.tools.llm import deadline
from finrag.tools.llm.calls import LLMError, try_text
from finrag.tools.llm.chat import get_chat_model


class Counting(GenericFakeChatModel):
    calls: int = 0

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.calls += 1
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def test_no_deadline_changes_nothing():
    assert deadline.remaining() is None
    assert deadline.fit_limits(60.0, 2) == (60.0, 2)
    deadline.check("router")  # no exception


def test_limits_fit_in_the_time_left():
    with deadline.request_deadline(5):
        assert deadline.fit_limits(60.0, 2) == (5.0, 0)
        assert deadline.fit_limits(2.0, 2) == (2.0, 1)
        assert deadline.fit_limits(1.0, 9) == (1.0, 4)
    with deadline.request_deadline(0.2):
        assert deadline.fit_limits(60.0, 2) == (1.0, 0)  # whole seconds, at least one
    assert deadline.remaining() is None  # reset on leaving


def test_a_call_is_not_started_after_the_deadline_and_says_why(monkeypatch):
    model = Counting(messages=iter([AIMessage("fine")]))
    with deadline.request_deadline(0.05):
        time.sleep(0.1)
        t0 = time.monotonic()
        with pytest.raises(LLMError) as err:
            try_text("generator", model, [HumanMessage("q")])
        assert time.monotonic() - t0 < 0.5
    assert model.calls == 0
    assert "was not called: the request ran out of time" in str(err.value) and "\n" not in str(err.value)
    assert err.value.timed_out


def test_a_call_before_the_deadline_runs():
    model = Counting(messages=iter([AIMessage("fine")]))
    with deadline.request_deadline(30):
        text, record = try_text("generator", model, [HumanMessage("q")])
    assert text == "fine" and model.calls == 1 and record["role"] == "generator"


def test_the_servers_chat_models_wait_at_most_the_time_left(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    cfg = Configuration(llm="openai/stub-model", llm_base_url="http://127.0.0.1:9/v1", llm_timeout_s=60,
                        llm_max_retries=2)
    assert (get_chat_model("router", cfg).request_timeout, get_chat_model("router", cfg).max_retries) == (60.0, 2)
    with deadline.request_deadline(3):
        model = get_chat_model("router", cfg)
    assert (model.request_timeout, model.max_retries) == (3.0, 0)
