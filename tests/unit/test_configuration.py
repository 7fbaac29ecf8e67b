"""The run configuration: defaults, the environment (applied in one place, with type coercion),
per-run values winning over it, enum-like fields checked in one line, descriptions for Studio, prompt
defaults, chat-model pass-through, the one channel it reaches the nodes by (LangGraph's run context), and
the settings of other times (index, eval, serve, Milvus, process) that are the other readers of the
environment."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from finrag.api import run_configuration, validate_question
from finrag.state import prompts
from finrag.state.configuration import DEFAULT_INDEX_DIR, MAX_QUESTION_CHARS, Configuration, resolve_index_dir
from finrag.state.settings import (
    SETTINGS_CLASSES,
    EvalSettings,
    IndexSettings,
    MilvusSettings,
    ProcessSettings,
    ServeSettings,
)
from finrag.tools.llm.chat import get_chat_model

FIELDS = {name: f for name, f in Configuration.model_fields.items() if name not in Configuration.not_settings}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """No FINRAG_* (or OpenAI) settings from the machine running the tests."""
    for key in list(os.environ):
        if key.startswith("FINRAG_") or key in ("OPENAI_API_KEY",):
            monkeypatch.delenv(key, raising=False)
    return monkeypatch


def _fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(r) for r in replies]))


# ------------------------------------------------------------------ defaults
def test_defaults_are_the_papers():
    cfg = Configuration()
    assert (cfg.fts_k, cfg.vector_k, cfg.rrf_k) == (20, 30, 60)
    assert (cfg.rerank_cumulative, cfg.rerank_cliff, cfg.max_chunks) == (0.55, 0.15, 10)
    assert cfg.vector_max_distance == 1.25 and cfg.default_year == 2023 and cfg.max_retries == 2
    assert cfg.llm == "offline" and cfg.reranker == "offline" and cfg.embedder == "auto"
    assert cfg.fallback_scope == "ask" and cfg.routed_rerank_cliff == 0.25 and cfg.sfr_max_context_tokens == 120_000 and cfg.sfr_pdf_input is False
    assert cfg.max_question_chars == MAX_QUESTION_CHARS == 4000


def test_every_field_default_is_what_an_empty_configuration_holds():
    cfg = Configuration()
    for name, f in FIELDS.items():
        if name == "index_dir":  # resolved when built
            continue
        assert getattr(cfg, name) == f.default, name
    assert cfg.index_reader is None


def test_index_dir_is_given_else_finrag_home_else_dot_finrag(clean_env, tmp_path):
    assert Configuration().index_dir == DEFAULT_INDEX_DIR == ".finrag"
    assert resolve_index_dir() == Path(".finrag")
    clean_env.setenv("FINRAG_HOME", str(tmp_path / "home"))
    assert Configuration().index_dir == str(tmp_path / "home")
    assert resolve_index_dir(None) == tmp_path / "home"
    assert Configuration(index_dir=str(tmp_path / "given")).index_dir == str(tmp_path / "given")
    assert resolve_index_dir(tmp_path / "given") == tmp_path / "given"


# --------------------------------------------------------------- environment
def test_environment_overrides_with_type_coercion(clean_env):
    clean_env.setenv("FINRAG_FTS_K", "33")
    clean_env.setenv("FINRAG_VECTOR_MAX_DISTANCE", "0.9")
    clean_env.setenv("FINRAG_SFR_PDF_INPUT", "true")
    clean_env.setenv("FINRAG_RERANKER", "jina")
    clean_env.setenv("FINRAG_LLM", "openai/gpt-4.1-mini")
    cfg = Configuration()
    assert cfg.fts_k == 33 and type(cfg.fts_k) is int
    assert cfg.vector_max_distance == 0.9 and type(cfg.vector_max_distance) is float
    assert cfg.sfr_pdf_input is True
    assert cfg.reranker == "jina" and cfg.llm == "openai/gpt-4.1-mini"


@pytest.mark.parametrize("raw, expected", [("1", True), ("yes", True), ("On", True), ("TRUE", True),
                                           ("0", False), ("false", False), ("no", False), ("off", False)])
def test_booleans_from_the_environment(clean_env, raw, expected):
    clean_env.setenv("FINRAG_SFR_PDF_INPUT", raw)
    assert Configuration().sfr_pdf_input is expected


@pytest.mark.parametrize("name, raw", [("FINRAG_FTS_K", "many"), ("FINRAG_RERANK_CLIFF", "steep"),
                                       ("FINRAG_SFR_PDF_INPUT", "maybe")])
def test_bad_environment_values_name_the_variable(clean_env, name, raw):
    clean_env.setenv(name, raw)
    with pytest.raises(ValueError, match=name):
        Configuration()


def test_openai_key_makes_gpt_4_1_the_default_model_unless_finrag_llm_says_otherwise(clean_env):
    clean_env.setenv("OPENAI_API_KEY", "sk-test")
    assert Configuration().llm == "openai/gpt-4.1"
    clean_env.setenv("FINRAG_LLM", "offline")
    assert Configuration().llm == "offline"
    assert Configuration(llm="openai/gpt-4.1-mini").llm == "openai/gpt-4.1-mini"


def test_empty_environment_values_count_as_unset(clean_env):
    clean_env.setenv("FINRAG_FTS_K", "")
    assert Configuration().fts_k == 20


# ------------------------------------------------------------ per-run values
def test_per_run_values_win_over_the_environment_even_when_they_equal_the_default(clean_env):
    clean_env.setenv("FINRAG_FTS_K", "33")
    clean_env.setenv("FINRAG_FALLBACK_SCOPE", "top_document")
    clean_env.setenv("FINRAG_SFR_PDF_INPUT", "true")
    cfg = Configuration(fts_k=20, fallback_scope="corpus", sfr_pdf_input=False)
    assert (cfg.fts_k, cfg.fallback_scope, cfg.sfr_pdf_input) == (20, "corpus", False)


def test_per_run_strings_are_coerced_and_none_or_empty_means_not_given(clean_env):
    clean_env.setenv("FINRAG_VECTOR_K", "40")
    cfg = Configuration(fts_k="30", rerank_cliff="0.25", sfr_pdf_input="yes", vector_k=None, llm_base_url="")
    assert (cfg.fts_k, cfg.rerank_cliff, cfg.sfr_pdf_input) == (30, 0.25, True)
    assert cfg.vector_k == 40 and cfg.llm_base_url == ""


def test_unknown_fields_are_an_error_except_through_from_runnable_config():
    with pytest.raises(ValueError, match="unknown configuration field.*fts_kk"):
        Configuration(fts_kk=3)
    cfg = Configuration.from_runnable_config({"configurable": {"fts_k": 5, "thread_id": "t1"}})
    assert cfg.fts_k == 5


def test_run_configuration_builds_once_from_values_or_takes_a_configuration(clean_env, tmp_path):
    clean_env.setenv("FINRAG_RRF_K", "10")
    cfg = run_configuration({"fts_k": 7}, index_dir=str(tmp_path))
    assert (cfg.fts_k, cfg.rrf_k, cfg.index_dir) == (7, 10, str(tmp_path))
    given = Configuration(max_chunks=3)
    assert run_configuration(given) is given
    moved = run_configuration(given, index_dir=str(tmp_path))
    assert moved.index_dir == str(tmp_path) and moved.max_chunks == 3


def test_the_question_limit_has_one_default():
    validate_question("x" * MAX_QUESTION_CHARS)
    with pytest.raises(ValueError, match=f"{MAX_QUESTION_CHARS:,}"):
        validate_question("x" * (MAX_QUESTION_CHARS + 1))


# ------------------------------------------------------- Studio descriptions
def test_every_field_has_a_description():
    for cls in (Configuration, *SETTINGS_CLASSES):
        for name, f in cls.model_fields.items():
            text = f.description or ""
            assert isinstance(text, str) and len(text) > 10, (cls.__name__, name)


def test_the_context_schema_studio_shows_carries_descriptions_and_defaults():
    from finrag.graphs import get_graph

    schema = get_graph("hdrr").get_context_jsonschema()
    props = schema["properties"]
    assert set(props) == set(FIELDS)
    for name, prop in props.items():
        assert prop.get("description") == FIELDS[name].description, name
        assert prop.get("default") == FIELDS[name].default, name


# ------------------------------------------------------------------- prompts
def test_prompt_fields_default_to_the_prompts_module():
    cfg = Configuration()
    assert cfg.router_prompt == prompts.ROUTER_SYSTEM
    assert cfg.rewrite_prompt == prompts.REWRITE_SYSTEM
    assert cfg.verify_prompt == prompts.VERIFY_SYSTEM
    assert cfg.generate_prompt == prompts.GENERATE_SYSTEM
    assert cfg.generate_user_prompt == prompts.GENERATE_USER
    assert IndexSettings().contextualizer_prompt == prompts.CONTEXT_PROMPT


def test_prompts_can_be_set_per_run_and_from_the_environment(clean_env):
    clean_env.setenv("FINRAG_VERIFY_PROMPT", "Check the company.")
    cfg = Configuration(generate_prompt="Answer briefly.")
    assert cfg.generate_prompt == "Answer briefly." and cfg.verify_prompt == "Check the company."


# ------------------------------------------------------------ chat models
def test_chat_model_instances_pass_through():
    fake = _fake("ok")
    cfg = Configuration(router_model=fake, generator_model=fake)
    assert cfg.router_model is fake and cfg.model_for("router") is fake
    assert get_chat_model("generator", cfg) is fake
    assert cfg.model_for("rewriter") == "offline" and get_chat_model("rewriter", cfg) is None


def test_role_models_fall_back_to_llm(clean_env):
    clean_env.setenv("FINRAG_LLM", "openai/gpt-4.1-mini")
    clean_env.setenv("FINRAG_JUDGE_MODEL", "openai/gpt-4.1")
    cfg = Configuration()
    assert cfg.model_for("router") == "openai/gpt-4.1-mini" and cfg.model_for("judge") == "openai/gpt-4.1"


# ------------------------------------------- the channel: LangGraph's context
class _S(TypedDict, total=False):
    seen: dict


def _probe_graph():
    """A one-node graph with finrag's context schema that reports what its node sees."""

    def probe(state: _S, runtime) -> dict:
        cfg = runtime.context
        return {"seen": {"type": type(cfg).__name__, "fts_k": cfg.fts_k, "rrf_k": cfg.rrf_k,
                         "router": cfg.router_model}}

    g = StateGraph(_S, context_schema=Configuration)
    g.add_node("probe", probe)
    g.add_edge(START, "probe")
    g.add_edge("probe", END)
    return g.compile()


def test_a_context_dict_becomes_a_configuration_with_env_and_per_run_values(clean_env):
    clean_env.setenv("FINRAG_FTS_K", "33")
    clean_env.setenv("FINRAG_RRF_K", "5")
    fake = _fake("ok")
    seen = _probe_graph().invoke({}, context={"fts_k": 20, "router_model": fake})["seen"]
    assert seen == {"type": "Configuration", "fts_k": 20, "rrf_k": 5, "router": fake}
    seen = _probe_graph().invoke({}, context={})["seen"]
    assert (seen["fts_k"], seen["rrf_k"]) == (33, 5)


def test_every_field_is_in_the_docs_configuration_table():
    readme = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    table = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    documented = {name for line in rows for name in line.split("|")[1].replace("`", " ").replace(",", " ").split()}
    missing = [name for name in FIELDS if name not in documented]
    assert not missing, f"docs/configuration.md's configuration table lacks {missing}"


def test_every_variable_of_the_other_settings_is_in_the_docs_configuration_section():
    readme = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"[A-Z][A-Z0-9_]*[A-Z0-9]", section))
    missing = [env for cls in SETTINGS_CLASSES for name in cls.model_fields for env in cls.env_names(name)
               if env not in named]
    assert not missing, f"docs/configuration.md's configuration section lacks {missing}"


# ------------------------------------------------------- enum-like fields
@pytest.mark.parametrize("field, bad, allowed", [
    ("fallback_scope", "top-document", "'ask', 'corpus' or 'top_document'"),
    ("routing_scope", "widest", "'confidence' or 'filing'"),
    ("routed_context", "all", "'budget' or 'paper'"),
    ("section_rule", "maybe", "'prefer', 'require' or 'off'"),
    ("on_llm_error", "retry", "'fail' or 'offline'"),
    ("fast_path", "sometimes", "'auto', 'on' or 'off'"),
    ("embed_device", "tpu", "'auto', 'cpu', 'cuda' or 'cuda:N'"),
])
def test_an_enum_like_field_refuses_other_values_in_one_line(clean_env, field, bad, allowed):
    with pytest.raises(ValueError) as given:
        Configuration(**{field: bad})
    assert str(given.value) == f"{field} must be {allowed}, not {bad!r}"
    clean_env.setenv(f"FINRAG_{field.upper()}", bad)
    with pytest.raises(ValueError) as env:
        Configuration()
    assert str(env.value) == f"FINRAG_{field.upper()} must be {allowed}, not {bad!r}"


def test_enum_like_fields_take_any_case_and_their_other_spellings(clean_env):
    cfg = Configuration(fallback_scope=" Top_Document ", on_llm_error="OFFLINE", embed_device="cuda:1")
    assert (cfg.fallback_scope, cfg.on_llm_error, cfg.embed_device) == ("top_document", "offline", "cuda:1")
    assert [Configuration(fast_path=v).fast_path for v in ("true", "1", True, "no", False, "Auto")] == \
        ["on", "on", "on", "off", "off", "auto"]
    clean_env.setenv("FINRAG_DEVICE", "cpu")  # the older name of FINRAG_EMBED_DEVICE
    assert Configuration().embed_device == "cpu" and ProcessSettings().embed_device == "cpu"
    clean_env.setenv("FINRAG_EMBED_DEVICE", "auto")
    assert Configuration().embed_device == "auto"


def test_type_errors_pydantic_finds_are_one_line_value_errors():
    with pytest.raises(ValueError) as exc:
        Configuration(fts_k=[1, 2])
    assert "\n" not in str(exc.value) and str(exc.value).startswith("fts_k: ")


def test_the_context_schema_lists_the_enum_values():
    props = Configuration.model_json_schema()["properties"]
    assert props["fallback_scope"]["enum"] == ["ask", "corpus", "top_document"]
    assert props["on_llm_error"]["enum"] == ["fail", "offline"]


# ----------------------------------------------------------- not a setting
def test_index_reader_is_handed_in_never_read_from_the_environment(clean_env):
    clean_env.setenv("FINRAG_INDEX_READER", "somewhere")
    assert Configuration().index_reader is None
    reader = object()
    cfg = Configuration(index_reader=reader)
    assert cfg.index_reader is reader
    assert "index_reader" not in Configuration.model_json_schema()["properties"]
    assert "index_reader" not in cfg.model_dump()


# ------------------------------------------------ settings grouped by time
def test_a_query_configuration_has_no_index_or_eval_fields():
    for name in ("contextualizer_model", "contextualizer_prompt", "judge_model", "judge2_model"):
        assert name not in Configuration.model_fields, name
    with pytest.raises(ValueError, match="unknown configuration field.*judge_model"):
        Configuration(judge_model="openai/gpt-4.1")
    assert set(IndexSettings.model_fields) == {"contextualizer_model", "contextualizer_prompt", "max_file_chars",
                                               "max_parse_seconds"}
    assert set(EvalSettings.model_fields) == {"judge_model", "judge2_model"}


def test_index_and_eval_roles_take_their_model_from_their_settings(clean_env):
    clean_env.setenv("FINRAG_LLM", "openai/gpt-4.1-mini")
    clean_env.setenv("FINRAG_CONTEXTUALIZER_MODEL", "openai/ctx")
    clean_env.setenv("FINRAG_CONTEXTUALIZER_PROMPT", "Situate {chunk} in {document}.")
    clean_env.setenv("FINRAG_JUDGE2_MODEL", "openai/j2")
    cfg = Configuration()
    assert IndexSettings().contextualizer_model == "openai/ctx"
    assert cfg.model_for("contextualizer") == "openai/ctx"
    assert IndexSettings().contextualizer_prompt == "Situate {chunk} in {document}."
    assert not hasattr(cfg, "contextualizer_prompt")  # an index-time setting: not in a query's context
    assert cfg.model_for("judge") == "openai/gpt-4.1-mini" and cfg.model_for("judge2") == "openai/j2"
    assert EvalSettings(judge2_model="openai/given").model_for("judge2", cfg.llm) == "openai/given"


def test_the_other_settings_read_the_environment(clean_env):
    for key in ("XDG_CACHE_HOME", "JINA_API_KEY", "OPENAI_BASE_URL"):
        clean_env.delenv(key, raising=False)
    assert ServeSettings().model_dump() == {"max_body": None, "timeout": None, "max_batch": None,
                                            "header_timeout": None, "workers": None, "api_key": ""}
    clean_env.setenv("FINRAG_SERVE_TIMEOUT", "5")
    clean_env.setenv("FINRAG_SERVE_MAX_BATCH", "0")
    clean_env.setenv("FINRAG_API_KEY", "secret")
    clean_env.setenv("FINRAG_SERVE_WORKERS", "3")
    serve = ServeSettings()
    assert (serve.timeout, serve.max_batch, serve.api_key, serve.workers) == (5.0, 0, "secret", 3)
    clean_env.setenv("FINRAG_SERVE_MAX_BODY", "big")
    with pytest.raises(ValueError, match="^FINRAG_SERVE_MAX_BODY: expected an integer, got 'big'$"):
        ServeSettings()
    assert (MilvusSettings().prefix, MilvusSettings().timeout, MilvusSettings().partitions) == ("finrag", 10.0, 64)
    clean_env.setenv("FINRAG_MILVUS_NLIST", "256")
    clean_env.setenv("FINRAG_MILVUS_TIMEOUT", "")  # empty: unset
    assert (MilvusSettings().nlist, MilvusSettings().timeout) == (256, 10.0)
    clean_env.setenv("OPENAI_API_KEY", "sk-test")
    clean_env.setenv("FINRAG_HOME", "/data/index")
    clean_env.setenv("FINRAG_QUERY_ENCODER", "numpy")
    env = ProcessSettings()
    assert (env.openai_api_key, env.home, env.query_encoder, env.jina_api_key) == ("sk-test", "/data/index", "numpy", "")
    with pytest.raises(ValueError, match="unknown serve setting field"):
        ServeSettings(port=1)


def test_nothing_outside_the_settings_classes_reads_the_environment():
    """os.environ / getenv appear only in state/ (the settings) and in documented process-level writes for
    third-party libraries (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE, TOKENIZERS_PARALLELISM); the CLI writes no
    finrag setting (tests/unit/test_environment.py: choices go as arguments, and tools/ constructs no settings)."""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(["grep", "-rn", "--include=*.py", r"os\.environ\|getenv", "graphs", "nodes", "tools", "eval",
                          "app"], cwd=root, capture_output=True, text=True).stdout
    reads = [line for line in out.splitlines() if ".setdefault(" not in line
             and not re.search(r"os\.environ\[[^]]+\] = ", line)]  # writes, not reads
    assert not reads, "\n".join(reads)


def test_serve_worker_count_comes_from_the_argument_then_the_environment(clean_env):
    from finrag.serve_process import _worker_count, default_workers

    assert _worker_count(None, ServeSettings()) == default_workers() >= 1
    clean_env.setenv("FINRAG_SERVE_WORKERS", "3")
    assert _worker_count(None, ServeSettings()) == 3
    assert _worker_count(2, ServeSettings()) == 2
    with pytest.raises(ValueError, match="^workers must be 1-64, not 0$"):  # 0 is not "none given"
        _worker_count(0, ServeSettings())
    clean_env.setenv("FINRAG_SERVE_WORKERS", "65")
    with pytest.raises(ValueError, match="^FINRAG_SERVE_WORKERS must be 1-64, not 65$"):
        _worker_count(None, ServeSettings())
