"""The JSON contract (state/contract.py, docs/contract.md) without an index: the models, the statuses,
`to_contract` on hand-made states, and the examples in docs/contract.md."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from finrag.api import to_contract
from finrag.state.contract import ROUTED_STATUSES, ROUTING_STATUSES, Answer

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "contract.md"
STATUS_LIKE = re.compile(r"(exact_path|filename_fallback|default_year|multi_doc|not_routed|fallback_[a-z_]+)")


def json_examples() -> list[str]:
    return re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def models(model: type[BaseModel], seen: set | None = None) -> list[type[BaseModel]]:
    """The model and every model nested in its fields."""
    seen = set() if seen is None else seen
    if model in seen:
        return []
    seen.add(model)
    out = [model]
    for f in model.model_fields.values():
        for arg in [f.annotation, *getattr(f.annotation, "__args__", ())]:
            for inner in [arg, *getattr(arg, "__args__", ())]:
                if isinstance(inner, type) and issubclass(inner, BaseModel):
                    out += models(inner, seen)
    return out


def test_every_field_is_described():
    found = models(Answer)
    assert {m.__name__ for m in found} >= {"Answer", "Routing", "Context", "Cost", "LLMCall", "Verification"}
    for m in found:
        for name, f in m.model_fields.items():
            assert f.description and f.description.strip(), f"{m.__name__}.{name} has no description"


def test_routing_statuses_cover_the_code():
    from finrag.tools.routing.registry import STATUSES

    assert set(ROUTING_STATUSES) == set(STATUSES) | {"not_routed"}
    assert set(ROUTED_STATUSES) < set(ROUTING_STATUSES)
    assert all(m.strip() and "\n" not in m for m in ROUTING_STATUSES.values())
    # any status-like string the routing code, the nodes or the API can produce is listed
    files = [*(REPO / "tools" / "routing").rglob("*.py"), *(REPO / "nodes").rglob("*.py"),
             *(REPO / "graphs").rglob("*.py"), REPO / "app" / "api.py", REPO / "app" / "server.py"]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and STATUS_LIKE.fullmatch(node.value):
                if node.value == "fallback_scope":
                    continue  # a configuration field, not a status
                assert node.value in ROUTING_STATUSES, f"{path.relative_to(REPO)}: status {node.value!r} is not documented"


STATE = {
    "question": "q",
    "answer": "It was $1 [A_2022_10K, p. 3].",
    "extracted": {"companies": ["A"], "tickers": [], "years": [2022], "periods": ["FY2022"], "forms": [], "dates": []},
    "routed_docs": ["A_2022_10K"],
    "routing_status": "exact_path",
    "routing_reason": "A fiscal 2022: the only filing",
    "contexts": [{"chunk_id": 7, "doc_id": "A_2022_10K", "page_start": 3, "page_end": 4, "score": 0.12345678,
                  "text": "Revenue was $1.", "rerank_score": 0.1},
                 {"chunk_id": None, "doc_id": "A_2022_10K", "page_start": 5, "page_end": 5, "score": 1, "text": "p"}],
    "context_tokens": 42,
    "llm_calls": [{"role": "rewriter", "model": "error", "prompt_tokens": 0, "completion_tokens": 0,
                   "error": "RuntimeError: down"},
                  {"role": "generator", "model": "m", "prompt_tokens": 100, "completion_tokens": 9}],
    "timings_ms": {"generate": 1.23456},
}


def test_to_contract_exact_output():
    out = to_contract(dict(STATE), system="hdrr", qid="q1", question="q", total_ms=10.00049)
    expected = {
        # the answer cites the viewer's page (zero-based page 3 is p. 4); the contexts keep zero-based pages
        "id": "q1", "system": "hdrr", "question": "q", "answer": "It was $1 [A_2022_10K, p. 4].",
        "routing": {"status": "exact_path", "routed_docs": ["A_2022_10K"], "reason": "A fiscal 2022: the only filing",
                    "extracted": STATE["extracted"]},
        "contexts": [{"chunk_id": 7, "doc_id": "A_2022_10K", "page_start": 3, "page_end": 4, "score": 0.123457,
                      "text": "Revenue was $1.", "viewer_page_start": 4, "viewer_page_end": 5,
                      "printed_page_start": None, "printed_page_end": None, "pages": "pp. 4-5"},
                     {"chunk_id": None, "doc_id": "A_2022_10K", "page_start": 5, "page_end": 5, "score": 1.0, "text": "p",
                      "viewer_page_start": 6, "viewer_page_end": 6, "printed_page_start": None,
                      "printed_page_end": None, "pages": "p. 6"}],
        "cost": {"llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 9, "context_tokens": 42,
                 "calls": STATE["llm_calls"], "llm_calls_saved": 0},
        "timings_ms": {"generate": 1.235, "total": 10.0},
        "offline_fallback": ["rewriter"],  # the failed rewriter call: only possible with on_llm_error=offline
    }
    assert json.dumps(out) == json.dumps(expected)  # same keys, same order, same values (1.0 stays a float)
    assert "error" not in out["cost"]["calls"][1] and "verification" not in out and "error" not in out


def test_to_contract_optional_fields_and_defaults():
    state = {**STATE, "verification": {"belongs": True, "reason": "ok", "anchor": "A", "retry": False, "attempt": 2},
             "retries": 1, "error": "boom"}
    out = to_contract(state, system="agentic", qid="q2", question="q", total_ms=1.0)
    assert list(out)[-3:] == ["verification", "error", "offline_fallback"]
    assert out["verification"] == {"belongs": True, "reason": "ok", "anchor": "A", "retry": False, "attempt": 2,
                                   "retries": 1}
    empty = to_contract({}, system="cbr", qid="q3", question="q", total_ms=1.0)
    assert empty["routing"] == {"status": "not_routed", "routed_docs": [], "reason": "", "extracted": {}}
    assert empty["contexts"] == [] and empty["cost"]["calls"] == [] and empty["answer"] == ""
    assert list(empty) == ["id", "system", "question", "answer", "routing", "contexts", "cost", "timings_ms"]


def test_serialisers_agree():
    """FastAPI/LangServe encode the model with jsonable_encoder: the same object as to_contract's dict."""
    from fastapi.encoders import jsonable_encoder

    out = to_contract(dict(STATE), system="hdrr", qid="q1", question="q", total_ms=1.0)
    model = Answer.model_validate(out)
    assert json.dumps(jsonable_encoder(model)) == json.dumps(out)
    assert json.loads(model.model_dump_json()) == out


def test_doc_examples_parse_as_answers():
    examples = json_examples()
    assert len(examples) >= 2
    systems = set()
    for text in examples:
        data = json.loads(text)
        answer = Answer.model_validate(data)
        assert json.dumps(answer.to_dict()) == json.dumps(data), "the example is not what to_contract would print"
        assert answer.routing.status in ROUTING_STATUSES
        systems.add(answer.system)
    assert {"hdrr", "agentic"} <= systems


def test_doc_names_every_field_and_status():
    doc = DOC.read_text(encoding="utf-8")
    for m in models(Answer):
        for name in m.model_fields:
            assert f"`{name}`" in doc, f"docs/contract.md does not mention {m.__name__}.{name}"
    for status in ROUTING_STATUSES:
        assert f"`{status}`" in doc, f"docs/contract.md does not list the status {status}"


@pytest.mark.parametrize("bad", [
    {"contexts": [{"doc_id": "x"}]},  # a context without its fields
    {"routing": {"status": "exact_path"}},
])
def test_incomplete_answers_are_rejected(bad):
    from pydantic import ValidationError

    good = to_contract(dict(STATE), system="hdrr", qid="q1", question="q", total_ms=1.0)
    with pytest.raises(ValidationError):
        Answer.model_validate({**good, **bad})


def test_routing_statuses_have_one_home():
    from finrag.state.contract import NO_RETRIEVAL_STATUSES
    from finrag.tools.routing import registry

    assert registry.STATUSES == tuple(s for s in ROUTING_STATUSES if s != "not_routed")
    assert registry.NO_RETRIEVAL_STATUSES is NO_RETRIEVAL_STATUSES
    assert set(NO_RETRIEVAL_STATUSES) < set(ROUTING_STATUSES) and not set(NO_RETRIEVAL_STATUSES) & set(ROUTED_STATUSES)
    assert not hasattr(registry, "NO_ROUTE_STATUSES") and not hasattr(registry, "SCOPES")


def test_router_output_and_extracted_metadata_share_the_identity_fields():
    from finrag.state.schema import ROUTER_WORDING, ExtractedMetadata, QuestionIdentity, RouteAndRewrite, RouterOutput

    shared = ["companies", "tickers", "years", "periods", "forms", "dates"]
    assert list(QuestionIdentity.model_fields) == shared
    assert list(ExtractedMetadata.model_fields) == [*shared, "not_indexed", "candidates", "documents", "llm_overridden",
                                               "left_out", "fallback", "same_identity"]
    assert list(RouterOutput.model_fields) == [*shared, "documents", "rejected"]
    assert list(RouteAndRewrite.model_fields) == [*shared, "documents", "rejected", "query", "keywords"]
    for model in (RouterOutput, RouteAndRewrite):  # the LLM reads the router's own wording of the shared fields
        props = model.model_json_schema()["properties"]
        assert {name: props[name]["description"] for name in shared} == ROUTER_WORDING
    assert ExtractedMetadata.model_json_schema()["properties"]["companies"]["description"] == \
        QuestionIdentity.model_fields["companies"].description
