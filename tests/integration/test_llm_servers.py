"""finrag against loopback servers that behave like the real OpenAI-compatible ones (issue 38): a server that
refuses `json_schema` (llama-cpp-python's HTTP 500), one without tool calls, one that generates without end.

Each test names the issue case it covers; all run on the demo index with tests/support/openai_stub.py.
"""
from __future__ import annotations

import pytest

from finrag import run_query
from finrag.graphs import SYSTEMS
from finrag.tools.llm import structured, system_role


@pytest.fixture(autouse=True)
def _fresh(fresh_stub):
    """The stub reset and the open indexes forgotten (`fresh_stub`), and what was learnt of the server's structured
    output and system role too."""
    structured.forget()
    system_role.forget()
    yield
    structured.forget()
    system_role.forget()


def conf(stub, **extra) -> dict:
    return stub.configurable(**{"fast_path": "off", **extra})  # a test may turn the fast path back on


def ask(demo_index, stub, question, system="hdrr", **extra) -> dict:
    return run_query(question, system=system, index_dir=str(demo_index), configurable=conf(stub, **extra))


def _structured_calls(res: dict) -> list[dict]:
    return [c for c in res["cost"]["calls"] if c["role"] != "generator"]


# ------------------------------------------------------------------------------ structured output negotiated
@pytest.mark.parametrize("system", SYSTEMS)
def test_every_system_answers_through_a_server_that_refuses_json_schema(demo_index, demo_qas, stub, system):
    """Issue 38 case 1 (structured output negotiated): llama-cpp-python's server answers `json_schema` with HTTP
    500 "Input should be 'text' or 'json_object'"; every system answers with no LLM error, the method that worked
    recorded in `llm_calls`, and the rejection is not retried (one request, then the next method)."""
    stub.mode = "no_json_schema"
    res = ask(demo_index, stub, demo_qas[0]["question"], system)
    calls = res["cost"]["calls"]
    assert calls and not any("error" in c for c in calls), calls
    assert res["answer"].startswith("Stub answer:"), res["answer"]
    assert "offline_fallback" not in res
    structured_calls = _structured_calls(res)
    assert all(c["structured"] == "tools" for c in structured_calls), structured_calls
    rejected = [r for r in stub.chat_requests() if r["status"] == 500]
    # the first structured call tried json_schema once; the method is remembered for this server and model
    assert len(rejected) == (1 if structured_calls else 0), [r["status"] for r in stub.chat_requests()]


def test_a_server_without_tools_or_json_schema_gets_json_object_with_the_schema(demo_index, demo_qas, stub):
    """Issue 38 case 1 (structured output negotiated): a server refusing json_schema (HTTP 500) and tools (HTTP
    400, as Ollama answers) gets `response_format: json_object` with the schema; each refused method is sent
    once, and the next question goes straight to the method that worked."""
    stub.mode = "no_json_schema,no_tools"
    res = ask(demo_index, stub, demo_qas[0]["question"], "hdrr")
    router = _structured_calls(res)
    assert [c["structured"] for c in router] == ["json_object"] and "error" not in router[0], router
    assert [r["status"] for r in stub.chat_requests()] == [500, 400, 200, 200]
    sent = stub.chat_requests()[2]["body"]["response_format"]
    assert sent["type"] == "json_object" and sent["schema"]["properties"], sent
    assert res["routing"]["routed_docs"] == [demo_qas[0]["doc_id"]]
    stub.requests.clear()
    again = ask(demo_index, stub, demo_qas[1]["question"], "hdrr")
    assert [c.get("structured") for c in again["cost"]["calls"]] == ["json_object", None]
    assert [r["status"] for r in stub.chat_requests()] == [200, 200]


def test_a_server_refusing_every_format_gets_the_schema_in_the_prompt_and_one_repair(demo_index, demo_qas, stub):
    """Issue 38 case 1 (structured output negotiated): with json_schema, tools and json_object all refused, the
    prompt asks for JSON (the schema in the last user message: some chat templates drop system messages); a
    reply that does not validate gets exactly one repair call."""
    stub.mode = "no_json_schema,no_tools,no_json_object"
    res = ask(demo_index, stub, demo_qas[0]["question"], "hdrr")
    assert [c.get("structured") for c in res["cost"]["calls"]] == ["prompt", None], res["cost"]["calls"]
    sent = stub.chat_requests()[3]["body"]
    assert "response_format" not in sent and "tools" not in sent
    assert "JSON schema:" in sent["messages"][-1]["content"] and sent["messages"][-1]["role"] == "user"
    # a fixed method: no negotiation; a reply that is not JSON is repaired once, then the call fails
    stub.reset("bad_json")
    out = ask(demo_index, stub, demo_qas[0]["question"], "hdrr", structured_output="prompt", on_llm_error="offline")
    calls = out["cost"]["calls"]
    assert [(c["role"], c["model"]) for c in calls[:2]] == [("router", "error"), ("rewriter", "error")], calls
    bodies = [r["body"] for r in stub.chat_requests()]  # router: 2 (the repair), rewriter: 2, generator: 1
    assert len(bodies) == 5 and all("response_format" not in b and "tools" not in b for b in bodies)
    assert bodies[1]["messages"][-2]["role"] == "assistant" and "corrected JSON" in bodies[1]["messages"][-1]["content"]


# ------------------------------------------------------------------------------------------ bounded calls
@pytest.mark.parametrize("system", ["hdrr", "agentic"])
def test_a_server_that_generates_without_end_is_bounded_by_each_roles_limit(demo_index, demo_qas, stub, system):
    """Issue 38 case 2 (bounded calls): against a model that never stops by itself, every request carries its
    role's completion limit (router 1024, rewriter 512, verifier 256, generator 1024), a reply cut there is one
    clear line ("stopped at its limit of 1024 tokens (finish_reason=length)"), and with on_llm_error=offline each
    role falls back at once instead of holding the worker."""
    from finrag.tools.llm.calls import LLMError

    stub.mode = "endless"
    with pytest.raises(LLMError) as info:
        ask(demo_index, stub, demo_qas[0]["question"], system)
    assert "the router LLM (stub-model at" in str(info.value)
    assert "stopped at its limit of 1024 tokens (finish_reason=length)" in str(info.value)
    assert [r["max_tokens"] for r in stub.chat_requests()] == [1024]  # a cut reply is not retried
    stub.requests.clear()
    res = ask(demo_index, stub, demo_qas[0]["question"], system, on_llm_error="offline", router_rewrite=False)
    limits = {"router": 1024, "rewriter": 512, "verifier": 256, "generator": 1024}
    calls = res["cost"]["calls"]
    structured_calls = [c for c in calls if c["role"] != "generator"]
    assert structured_calls and all(c["model"] == "error" and "limit of" in c["error"] for c in structured_calls), calls
    # the generator's plain-text reply cut at its limit is the answer, marked as cut (issue 51)
    assert [(c["model"], c["finish_reason"], c["max_tokens"]) for c in calls if c["role"] == "generator"] == [
        ("stub-model", "length", 1024)]
    sent = stub.chat_requests()
    assert len(sent) == len(calls)
    assert [r["max_tokens"] for r in sent] == [limits[c["role"]] for c in calls]
    assert all(r["usage"]["completion_tokens"] == r["max_tokens"] for r in sent)
    assert res["answer"].endswith("(cut at 1,024 tokens)") and res["offline_fallback"] and res["finish_reason"] == "length"


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_plain_text_answer_cut_at_its_limit_is_an_answer_that_says_so(demo_index, demo_qas, stub, system):
    """Issue 51: a base model that never ends its turn (llama-server with Gemma 3 270M): the generator's plain-text
    reply stops at its completion limit. That text is the answer, marked as cut: the contract's `finish_reason:
    "length"`, the call's limit, and "(cut at N tokens)" at the answer's end; the structured calls end as usual."""
    stub.mode = "endless_text"
    res = ask(demo_index, stub, demo_qas[0]["question"], system, llm_max_tokens={"generator": 40})
    gen = [c for c in res["cost"]["calls"] if c["role"] == "generator"]
    assert [(c["finish_reason"], c["max_tokens"], c["completion_tokens"]) for c in gen] == [("length", 40, 40)], gen
    assert res["finish_reason"] == "length" and "offline_fallback" not in res and "error" not in res
    assert res["answer"].endswith(" (cut at 40 tokens)") and "and so on" in res["answer"], res["answer"]
    assert all("error" not in c for c in res["cost"]["calls"])
    stub.reset()  # a reply that ends by itself says so, without the mark
    res = ask(demo_index, stub, demo_qas[0]["question"], system)
    assert res["finish_reason"] == "stop" and "(cut at" not in res["answer"]


def test_a_cut_answer_in_the_cli_and_chat(demo_index, demo_qas, stub, tmp_path, monkeypatch, capsys):
    """Issue 51: `finrag ask` (text and --json) and `finrag chat` show the cut answer with exit 0."""
    import io
    import json

    from finrag.cli import main

    stub.mode = "endless_text"
    monkeypatch.setenv("FINRAG_LLM_MAX_TOKENS", "generator=32")
    monkeypatch.setenv("FINRAG_FAST_PATH", "off")
    llm = ["--llm", "openai/stub-model", "--llm-base-url", stub.base_url]
    q = demo_qas[0]["question"]
    assert main(["ask", "--index", str(demo_index), *llm, q]) == 0
    out = capsys.readouterr()
    assert "(cut at 32 tokens)" in out.out, out
    assert main(["ask", "--index", str(demo_index), *llm, "--json", q]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["finish_reason"] == "length" and res["answer"].endswith("(cut at 32 tokens)")
    monkeypatch.setattr("sys.stdin", io.StringIO(q + "\n"))
    assert main(["chat", "--index", str(demo_index), "--threads-dir", str(tmp_path), *llm]) == 0
    assert "(cut at 32 tokens)" in capsys.readouterr().out


def test_completion_limits_are_settings_per_role(demo_index, demo_qas, stub, monkeypatch):
    """Issue 38 case 2 (bounded calls): FINRAG_LLM_MAX_TOKENS sets a role's limit ('generator=64'), the others keep
    their defaults; a bad value is one line naming the variable."""
    from finrag.state.configuration import Configuration

    monkeypatch.setenv("FINRAG_LLM_MAX_TOKENS", "generator=64")
    res = ask(demo_index, stub, demo_qas[0]["question"], "hdrr")
    assert "error" not in str(res["cost"]["calls"])
    assert [r["max_tokens"] for r in stub.chat_requests()] == [1024, 64]
    monkeypatch.setenv("FINRAG_LLM_MAX_TOKENS", "routr=5")
    with pytest.raises(ValueError, match="^FINRAG_LLM_MAX_TOKENS: unknown role 'routr'"):
        Configuration()
    monkeypatch.setenv("FINRAG_LLM_MAX_TOKENS", "router=0")
    with pytest.raises(ValueError, match="router's limit must be a whole number"):
        Configuration()


# ---------------------------------------------------------------------------------- one endpoint
def test_eval_judges_go_to_the_systems_server_unless_told_otherwise(stub, capsys, monkeypatch):
    """Issue 38 case 5 (one endpoint): `finrag eval run --configurable llm_base_url=URL --judge openai/M` sends the
    judge to URL too (it went to OpenAI); a judge told to go elsewhere (--judge-base-url) is named on stderr, once,
    with every role's endpoint."""
    from finrag.cli.eval import with_endpoints
    from finrag.eval.judges import make_judge

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    base = ["run", "--dataset", "d.jsonl", "--index", "i", "--out", "o", "--judge", "openai/stub-model",
            "--configurable", "llm=openai/stub-model", "--configurable", f"llm_base_url={stub.base_url}"]
    argv = with_endpoints(base)
    assert argv[-2:] == ["--judge-base-url", stub.base_url] and capsys.readouterr().err == ""
    judge = make_judge("judge", spec="openai/stub-model", base_url=argv[-1])
    judge.score("What was revenue?", "$1.0 million", "$1.0 million")
    assert [r["max_tokens"] for r in stub.chat_requests()] == [512]  # the judge's limit, on the local server
    elsewhere = with_endpoints(base + ["--judge-base-url", "https://api.openai.com/v1"])
    assert elsewhere == base + ["--judge-base-url", "https://api.openai.com/v1"]
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"finrag: LLM endpoints: router, rewriter, verifier, generator -> {stub.base_url} (stub-model); "
                   "judge -> https://api.openai.com/v1 (stub-model)"], err


def test_the_contextualizer_uses_the_base_url_and_its_limit(stub):
    """Issue 38 cases 2 and 5: the V-B contextualizer (`finrag index --variant llmctx --llm-base-url URL`) is built
    for URL with its own completion limit (200)."""
    from langchain_core.messages import HumanMessage

    from finrag.state.configuration import Configuration
    from finrag.tools.llm.calls import invoke_tracked
    from finrag.tools.llm.chat import get_chat_model

    model = get_chat_model("contextualizer", Configuration(llm="openai/stub-model", llm_base_url=stub.base_url))
    _reply, rec = invoke_tracked("contextualizer", model, [HumanMessage("<chunk>Revenue rose.</chunk>")])
    assert rec["model"] == "stub-model" and [r["max_tokens"] for r in stub.chat_requests()] == [200]


# ------------------------------------------------------------------------------ replies that end by construction
def test_every_structured_reply_is_bounded_by_its_schema():
    """Issue 38 (bounded calls, found against llama-server with Gemma 3 270M): a small model under a JSON-schema
    grammar repeats list items and strings until its token limit, so every call failed at the limit. Every list and
    string of the router's, rewriter's, verifier's and judge's schemas now has maxItems / maxLength (llama.cpp turns
    them into the grammar), small enough for the reply to end inside the role's default limit, and a longer reply
    from a server that ignores them is cut when read instead of failing."""
    from finrag.eval.judges.base import JudgeResult
    from finrag.nodes.verify import Verdict
    from finrag.state.configuration import LLM_MAX_TOKENS
    from finrag.state.schema import RouteAndRewrite, RouterOutput
    from finrag.tools.retrieval.query_rewrite import Rewrite

    def worst_chars(schema: dict) -> int:  # the most characters a reply valid for the schema can hold
        def size(node: dict) -> int:
            node = schema.get("$defs", {}).get(node["$ref"].split("/")[-1], node) if "$ref" in node else node
            kind = node.get("type")
            if kind == "array":
                assert "maxItems" in node, node
                return int(node["maxItems"]) * (size(node["items"]) + 4)
            if kind == "string":
                assert "maxLength" in node, node
                return int(node["maxLength"]) + 2
            return 8  # a number or a boolean
        return sum(len(name) + 4 + size(prop) for name, prop in schema["properties"].items())

    for model, role in ((RouterOutput, "router"), (RouteAndRewrite, "router"), (Rewrite, "rewriter"),
                        (Verdict, "verifier"), (JudgeResult, "judge")):
        chars = worst_chars(model.model_json_schema())
        assert chars / 3 < LLM_MAX_TOKENS[role], (model.__name__, chars)  # even at 3 characters a token
    runaway = RouteAndRewrite.model_validate({"companies": ["Acme Widgets " * 20] * 50, "query": "revenue " * 500,
                                              "keywords": ["revenue"] * 100, "years": [2023] * 30})
    assert (len(runaway.companies), len(runaway.companies[0]), len(runaway.query), len(runaway.keywords),
            len(runaway.years)) == (4, 60, 240, 10, 4)


def test_plain_text_replies_carry_stop_sequences(demo_index, demo_qas, stub):
    """Issue 38 (bounded calls): a small base model echoes its prompt ("... Question: ... Context: ...") until its
    limit, or continues it with context label after context label; the generator's requests carry the prompt's
    own section markers, a new label line and the chat-turn marker as stop sequences, so such a reply ends at the
    next one."""
    ask(demo_index, stub, demo_qas[0]["question"], "cbr")
    generator = [r["body"] for r in stub.chat_requests() if not r["body"].get("response_format")
                 and not r["body"].get("tools")]
    assert generator and all({"\nQuestion:", "\nContext:", "\n[", "<end_of_turn>"} <= set(b.get("stop") or [])
                             for b in generator), [b.get("stop") for b in generator]


# ------------------------------------------------------------------------------ system messages a server drops
def _first_user_text(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def test_server_that_drops_system_messages_gets_them_folded(demo_index, demo_qas, stub):
    """Issue 38 (llama-cpp-python's `--chat_format gemma` drops system messages, so the router never saw its
    candidates): the router's reply reports far fewer prompt tokens than were sent; finrag sends that call again
    with the instructions folded into the user turn (`system_folded` in its record), and every later call to
    that server, of any role and question, folds from the start."""
    stub.mode = "drops_system"
    res = ask(demo_index, stub, demo_qas[0]["question"], "hdrr")
    reqs = stub.chat_requests()
    assert reqs[0]["saw_system"] and not any(r["saw_system"] for r in reqs[1:]), [r["saw_system"] for r in reqs]
    router_system = next(m["content"] for m in reqs[0]["body"]["messages"] if m["role"] == "system")
    assert _first_user_text(reqs[1]["body"]).startswith(router_system)  # the same call, instructions folded
    router = next(c for c in res["cost"]["calls"] if c["role"] == "router")
    assert router.get("system_folded") is True and "error" not in router, router
    assert router["prompt_tokens"] == reqs[0]["usage"]["prompt_tokens"] + reqs[1]["usage"]["prompt_tokens"]
    generator = next(c for c in res["cost"]["calls"] if c["role"] == "generator")
    assert generator.get("system_folded") is True
    assert res["routing"]["routed_docs"] == [demo_qas[0]["doc_id"]]
    stub.requests.clear()
    ask(demo_index, stub, demo_qas[1]["question"], "agentic")  # remembered: no call goes out unfolded
    assert stub.chat_requests() and not any(r["saw_system"] for r in stub.chat_requests())


def test_system_messages_kept_where_the_server_reads_them(demo_index, demo_qas, stub):
    """Issue 38 (no false alarm): a server that reads system messages counts them in its prompt tokens, so nothing
    is folded; `llm_system_role=system` never folds, even for a server that drops them; `user` folds at once."""
    res = ask(demo_index, stub, demo_qas[0]["question"], "hdrr")
    assert all(r["saw_system"] for r in stub.chat_requests())
    assert not any(c.get("system_folded") for c in res["cost"]["calls"])
    stub.reset("drops_system")
    stub.requests.clear()
    kept = ask(demo_index, stub, demo_qas[0]["question"], "hdrr", llm_system_role="system")
    assert all(r["saw_system"] for r in stub.chat_requests()) and len(stub.chat_requests()) == len(kept["cost"]["calls"])
    stub.requests.clear()
    folded = ask(demo_index, stub, demo_qas[0]["question"], "hdrr", llm_system_role="user")
    assert not any(r["saw_system"] for r in stub.chat_requests())
    assert len(stub.chat_requests()) == len(folded["cost"]["calls"])  # folded from the first call: none resent
    assert all(c.get("system_folded") for c in folded["cost"]["calls"])
