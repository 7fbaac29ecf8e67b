"""Answer tokens stream, against the loopback OpenAI-compatible stub (tests/support/openai_stub.py): through
`finrag.stream_answer` / `astream_answer` and through the LangServe server's `/stream` (`finrag serve --llm
--llm-base-url`); streamed calls ask for usage (`stream_options.include_usage`), so their token counts are the
provider's, and a count that is finrag's own estimate is marked (`tokens_estimated`). Also `run_query`'s Answer,
`arun_query` and `config=` (callbacks and tags reach the graph's node runs)."""
from __future__ import annotations

import pytest
from support.servers import finrag_serve

import finrag
from finrag.state.contract import Answer

pytestmark = pytest.mark.usefixtures("fresh_stub")


def conf(stub) -> dict:
    # the generator's LLM call is what streams: HDRR's statement-reader fast path (which skips it) is off
    return stub.configurable(fast_path="off")


def _question(demo_qas) -> str:
    return next(q for q in demo_qas if q["question_type"] == "metric_lookup")["question"]


def _check_usage_requested(stub, answer: dict) -> None:
    generator = [r for r in stub.chat_requests() if not (r["body"].get("response_format") or r["body"].get("tools"))]
    assert generator and all(r["body"].get("stream") for r in generator)  # the generator's call streamed
    assert all(r["body"].get("stream_options") == {"include_usage": True} for r in generator)
    calls = answer["cost"]["calls"]
    assert not any("tokens_estimated" in c for c in calls), calls
    sent = stub.chat_requests()
    assert [c["completion_tokens"] for c in calls] == [r["usage"]["completion_tokens"] for r in sent]
    assert [c["prompt_tokens"] for c in calls] == [r["usage"]["prompt_tokens"] for r in sent]


def test_stream_answer_yields_tokens_then_the_answer(demo_index, demo_qas, stub):
    q = _question(demo_qas)
    pieces = list(finrag.stream_answer(q, "hdrr", index=str(demo_index), qid="s1", configurable=conf(stub)))
    *tokens, final = pieces
    assert isinstance(final, Answer) and all(isinstance(t, str) for t in tokens)
    assert len(tokens) > 3, tokens  # the stub sends a chunk per word: the answer arrives in pieces
    assert "".join(tokens) == final.answer and final.answer.startswith("Stub answer:")
    _check_usage_requested(stub, final.model_dump())
    stub.reset()
    invoked = finrag.run_query(q, "hdrr", index=str(demo_index), qid="s1", configurable=conf(stub))
    a, b = final.model_dump(), invoked.model_dump()
    a["timings_ms"], b["timings_ms"] = {}, {}
    assert a == b


async def test_astream_answer_and_arun_query(demo_index, demo_qas, stub):
    q = _question(demo_qas)
    pieces = [p async for p in finrag.astream_answer(q, index=str(demo_index), configurable=conf(stub))]
    *tokens, final = pieces
    assert isinstance(final, Answer) and len(tokens) > 3 and "".join(tokens) == final.answer
    _check_usage_requested(stub, final.model_dump())
    stub.reset()
    res = await finrag.arun_query(q, index=str(demo_index), configurable=conf(stub))
    assert isinstance(res, Answer) and res.answer == final.answer


def test_offline_stream_is_one_piece(demo_index, demo_qas):
    q = _question(demo_qas)
    *tokens, final = list(finrag.stream_answer(q, index=str(demo_index)))
    assert tokens == [final.answer] and final.cost.llm_calls == 0


def test_run_query_returns_the_answer_model(demo_index, demo_qas):
    res = finrag.run_query(_question(demo_qas), index=str(demo_index))
    assert isinstance(res, Answer) and res["answer"] == res.answer and res.get("error") is None
    assert res["cost"]["llm_calls"] == res.cost.llm_calls and "verification" not in res
    assert {**res} == res.model_dump() and list(res.keys())[:4] == ["id", "system", "question", "answer"]
    assert finrag.run_query(_question(demo_qas), index_dir=str(demo_index)).answer == res.answer  # the old name
    with pytest.raises(ValueError, match="give the index once"):
        finrag.run_query("q?", index=str(demo_index), index_dir="elsewhere")


def test_config_callbacks_and_tags_reach_the_nodes(demo_index, demo_qas):
    from langchain_core.callbacks import BaseCallbackHandler

    class Runs(BaseCallbackHandler):
        def __init__(self):
            self.runs = []

        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, tags=None, **kw):
            self.runs.append((kw.get("name"), tags or []))

    handler = Runs()
    finrag.run_query(_question(demo_qas), index=str(demo_index), config={"callbacks": [handler], "tags": ["mine"]})
    names = [n for n, _ in handler.runs]
    assert names[0] == "hdrr" and {"extract_metadata", "rerank", "generate"} <= set(names)
    assert all("mine" in tags for _, tags in handler.runs)


def test_estimated_token_counts_are_marked():
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.messages import HumanMessage

    from finrag.tools.llm.calls import invoke_tracked

    _reply, record = invoke_tracked("generator", FakeListChatModel(responses=["an answer"]), [HumanMessage("hi")])
    assert record["tokens_estimated"] is True and record["completion_tokens"] > 0


@pytest.fixture(scope="module")
def llm_server(demo_index, stub, tmp_path_factory):
    """`finrag serve --llm openai/stub-model --llm-base-url <stub>` on a free loopback port."""
    with finrag_serve(demo_index, tmp_path_factory.mktemp("stream-server"), "--llm", "openai/stub-model",
                      "--llm-base-url", stub.base_url, env={"FINRAG_FAST_PATH": "off"}, ready_timeout=120) as served:
        yield served.url


def test_server_stream_sends_tokens_then_the_contract(llm_server, demo_qas, stub):
    from langserve import RemoteRunnable

    q = _question(demo_qas)
    hdrr = RemoteRunnable(f"{llm_server}/hdrr/", timeout=60)
    chunks = list(hdrr.stream({"question": q, "id": "t1"}))
    assert set(chunks[0]) == {"id", "system", "question"} and set(chunks[1]) == {"routing"}
    tokens = [c["answer"] for c in chunks[2:-1]]
    assert len(tokens) > 3 and all(set(c) == {"answer"} for c in chunks[2:-1]), chunks
    assert "contexts" in chunks[-1] and "cost" in chunks[-1]
    merged = chunks[0]
    for c in chunks[1:]:
        merged = merged + c  # the pieces add up (AddableDict: the answer's pieces concatenate)
    _check_usage_requested(stub, merged)
    stub.reset()
    invoked = hdrr.invoke({"question": q, "id": "t1"})
    assert invoked["cost"]["calls"][-1]["model"] == "stub-model"  # the server's --llm answered
    merged["timings_ms"], invoked["timings_ms"] = {}, {}
    assert dict(merged) == invoked and "".join(tokens) == invoked["answer"]


CALLS = {"hdrr": ["router", "generator"], "sfr": ["router", "generator"], "cbr": ["rewriter", "generator"],
         "cbr_meta": ["rewriter", "generator"], "cbr_llm_ctx": ["rewriter", "generator"],
         # the stub's "belongs" for another company's chunks is overridden by the registry (issue 38): 2 retries
         "agentic": ["router", "verifier"] + ["rewriter", "verifier"] * 2 + ["generator"]}
"""LLM calls per system on a routed question with one model for every role (the table in docs/benchmarks.md)."""


def test_llm_calls_per_system(demo_index, demo_qas, stub):
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    q = _question(demo_qas)
    for system, roles in CALLS.items():
        stub.reset()
        res = finrag.run_query(q, system, index=str(demo_index), configurable=conf(stub))
        assert [c["role"] for c in res.cost.model_dump()["calls"]] == roles, system
        assert res.cost.llm_calls == len(stub.chat_requests()) == len(roles)
    # Agentic when verification keeps failing: each retry (max_retries 2) rewrites the anchored query with the
    # rewriter and verifies again (the first attempt's query came from the router's call)
    no = GenericFakeChatModel(messages=iter([AIMessage('{"belongs": false, "reason": "wrong company"}')] * 3))
    res = finrag.run_query(q, "agentic", index=str(demo_index), configurable={**conf(stub), "verifier_model": no})
    assert [c.role for c in res.cost.calls] == ["router", "verifier"] + ["rewriter", "verifier"] * 2 + ["generator"]
    assert res.verification.retries == 2
