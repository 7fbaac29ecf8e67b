"""Settings are handed in, not read (issue 32): code under tools/ never constructs a settings class (nor a
`Configuration`) itself, it takes its settings from its caller or the run's configuration (falling back to
`finrag.state.settings.process_settings` / `default_configuration`, which state/ builds); the CLI passes its
choices to the code it runs as arguments, never by writing the environment; and what a caller hands in wins
over the environment."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from finrag.state.settings import ProcessSettings

ROOT = Path(__file__).resolve().parents[2]

# tools/indexing/milvus/ is having its settings handed in by its own change; what is left there may only shrink
NOT_YET_HANDED_IN = {"tools/indexing/milvus/schema.py": 1, "tools/indexing/milvus/lex.py": 1}


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _constructions(path: Path) -> list[str]:
    """Calls of a settings class (`...Settings(...)`) or of `Configuration(...)` in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{node.lineno}: {_name(node.func)}(...)" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and (_name(node.func).endswith("Settings")
                                               or _name(node.func) == "Configuration")]


def test_tools_never_construct_settings():
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tools").rglob("*.py")):
        hits = _constructions(path)
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    over = [hit for rel, hits in found.items() if len(hits) > NOT_YET_HANDED_IN.get(rel, 0) for hit in hits]
    assert not over, "settings constructed under tools/ (take them from the caller):\n" + "\n".join(over)


def test_the_construction_check_is_not_blind():
    """The check above sees a settings class or a `Configuration` called, imported or qualified."""
    text = "from x import ProcessSettings, settings\nenv = ProcessSettings()\ncfg = settings.Configuration(llm='x')\n"
    tree = ast.parse(text)
    hits = [f"{node.lineno}: {_name(node.func)}" for node in ast.walk(tree) if isinstance(node, ast.Call)
            and (_name(node.func).endswith("Settings") or _name(node.func) == "Configuration")]
    assert hits == ["2: ProcessSettings", "3: Configuration"], hits


THIRD_PARTY = {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM"}
"""Process-level variables the CLI may set for third-party libraries (not finrag settings)."""


def _environ_uses(text: str) -> list[str]:
    """Every use of `os.environ` / `os.putenv` / `os.getenv` but `os.environ.setdefault("<THIRD_PARTY>", ...)`."""
    tree = ast.parse(text)
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault"
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "environ"
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in THIRD_PARTY):
            allowed.add(id(node.func.value))
    return [f"{node.lineno}: os.{node.attr}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "putenv", "getenv", "unsetenv")
            and id(node) not in allowed]


def test_the_cli_never_writes_the_environment():
    uses = [f"{path.relative_to(ROOT)}:{use}" for path in sorted((ROOT / "app" / "cli").rglob("*.py"))
            for use in _environ_uses(path.read_text(encoding="utf-8"))]
    assert not uses, "the CLI passes choices as arguments, not through the environment:\n" + "\n".join(uses)


def test_the_environment_check_is_not_blind():
    assert _environ_uses('import os\nos.environ.setdefault("FINRAG_QUERY_ENCODER", "numpy")\n') == ["2: os.environ"]
    assert _environ_uses('import os\nos.environ["FINRAG_LLM"] = "x"\n') == ["2: os.environ"]
    assert _environ_uses('import os\nos.environ.setdefault("HF_HUB_OFFLINE", "1")\n') == []


@pytest.fixture
def clean_env(monkeypatch):
    for key in list(os.environ):
        if key.startswith("FINRAG_") or key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "JINA_API_KEY"):
            monkeypatch.delenv(key, raising=False)
    return monkeypatch


def test_serve_hands_llm_choices_to_the_server_not_the_environment(clean_env):
    from finrag.cli import main

    seen: dict = {}

    def fake_serve(**kwargs):
        seen.update(kwargs)
        return 0

    clean_env.setattr("finrag.serve_process.serve", fake_serve)
    assert main(["serve", "--llm", "openai/stub-model", "--llm-base-url", "http://127.0.0.1:9/v1"]) == 0
    assert seen["configurable"] == {"llm": "openai/stub-model", "llm_base_url": "http://127.0.0.1:9/v1"}
    assert "FINRAG_LLM" not in os.environ and "FINRAG_LLM_BASE_URL" not in os.environ
    assert main(["serve"]) == 0 and seen["configurable"] == {}


def test_the_servers_configurable_is_every_requests_default(clean_env, tmp_path):
    from fastapi.testclient import TestClient

    from finrag.server import create_app

    clean_env.setenv("FINRAG_LLM", "offline")
    app = create_app(tmp_path / "none", warm_up=False, configurable={"llm": "openai/stub-model"})
    with TestClient(app):
        assert app.state.run_conf["llm"] == "openai/stub-model"  # above FINRAG_LLM, as --llm always was
        assert app.state.run_conf["index_dir"] == str((tmp_path / "none").resolve())


def test_handed_in_settings_win_over_the_environment(clean_env):
    from finrag.state.configuration import Configuration
    from finrag.tools.edgar.client import WWW_URL, EdgarClient
    from finrag.tools.indexing.embedders import embed_threads, resolve_spec
    from finrag.tools.llm.chat import endpoint_of, get_chat_model
    from finrag.tools.retrieval.rerankers.jina import JinaReranker

    clean_env.setenv("FINRAG_EMBED_THREADS", "3")
    assert embed_threads() == 3 and embed_threads("2") == 2
    clean_env.setenv("FINRAG_EMBEDDER", "static")
    assert resolve_spec(None) == "static"
    assert resolve_spec(None, settings=ProcessSettings(embedder="minilm")) == "minilm"
    with pytest.raises(ValueError, match="JINA_API_KEY"):
        JinaReranker()
    handed = JinaReranker(settings=ProcessSettings(jina_api_key="k", jina_url="http://127.0.0.1:9/rerank"))
    assert (handed.api_key, handed.url) == ("k", "http://127.0.0.1:9/rerank")
    cfg = Configuration(llm="openai/stub-model")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        get_chat_model("router", cfg)
    model = get_chat_model("router", cfg, ProcessSettings(openai_api_key="sk-test"))
    assert model is not None and getattr(model, "model_name", "") == "stub-model"
    assert endpoint_of("router", cfg, ProcessSettings(openai_base_url="http://127.0.0.1:9/v1")) == \
        ("http://127.0.0.1:9/v1", "stub-model")
    clean_env.setenv("FINRAG_SEC_BASE_URL", "http://127.0.0.1:9")  # read by `finrag fetch`, not by the client
    with EdgarClient("Jane Doe jane@example.com") as client:
        assert client.www == WWW_URL
    with EdgarClient("Jane Doe jane@example.com", "http://127.0.0.1:9/") as client:
        assert client.www == "http://127.0.0.1:9"


def test_ask_prefers_the_numpy_query_encoder_without_writing_the_environment(clean_env):
    from finrag.tools.indexing import embedders

    clean_env.setitem(embedders._PREFERRED_QUERY_ENCODER, "kind", "auto")
    embedders.prefer_query_encoder("numpy")
    assert "FINRAG_QUERY_ENCODER" not in os.environ
    with pytest.raises(ValueError, match="unknown query encoder 'tensorrt'"):
        embedders.prefer_query_encoder("tensorrt")
    from finrag.tools.indexing.minilm_numpy import NumpyMiniLM

    assert type(embedders.MiniLMEmbedder(device="cpu")._query_encoder()) is NumpyMiniLM
    clean_env.setenv("FINRAG_QUERY_ENCODER", "tensorrt")  # the environment is above the process's preference
    with pytest.raises(ValueError, match="FINRAG_QUERY_ENCODER"):
        embedders.MiniLMEmbedder(device="cpu")._query_encoder()
    # and what the caller hands in is above both
    assert type(embedders.MiniLMEmbedder(device="cpu", query_encoder="numpy")._query_encoder()) is NumpyMiniLM
