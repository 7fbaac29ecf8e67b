"""Shared fixtures: a generated demo corpus indexed once per session and `finrag serve` on it (`demo_server`), the
shared data folder, the loopback OpenAI-format stub (`stub`, one per module), a thread store in tmp_path
(`thread_store`), an index of Boeing's real 10-K (`boeing_index`), the process's caches reset after a test (`fresh_index`, `fresh_stub`, `fresh_threads`), the
machine's settings cleared (`machine_settings_cleared`) and headless Chromium (`browser`). Plain helpers (starting
servers, the stub, the browser's tabs, the layout, Widgetco's facts) are in tests/support/."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.pop("OPENAI_API_KEY", None)  # tests are offline unless they inject fake models
os.environ.pop("FINRAG_LLM", None)

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # test helpers: `from support.servers import ...`
SHARED = REPO.parent / "shared" / "data" / "financebench"
BOEING_10K = REPO.parent / "shared" / "data" / "edgar" / "ba-10-k-2025-02-03.html"


@pytest.fixture()
def machine_settings_cleared(monkeypatch) -> None:
    """The machine's LLM, key and server settings (`support.servers.MACHINE_SETTINGS`) out of this test's
    environment, so the in-process code it runs reads none of them."""
    from support.servers import MACHINE_SETTINGS

    for name in MACHINE_SETTINGS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED / "pdfs").is_dir():
        pytest.skip(f"shared FinanceBench data not found at {SHARED}")
    return SHARED


@pytest.fixture(scope="module")
def boeing_index(tmp_path_factory) -> Path:
    """An index of Boeing's real FY2024 10-K alone (../shared/data/edgar; skipped without it), static embedder, built
    through `finrag index`; the process's open index is reset after the module."""
    import shutil

    from finrag.cli import main as cli
    from finrag.tools.indexing import open_index

    if not BOEING_10K.is_file():
        pytest.skip(f"shared EDGAR filing not found at {BOEING_10K}")
    folder = tmp_path_factory.mktemp("boeing")
    shutil.copy(BOEING_10K, folder / BOEING_10K.name)
    index = folder / "idx"
    assert cli(["index", str(folder), "--index", str(index), "--embedder", "static", "--quiet"]) == 0
    yield index
    open_index.reset()


@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory) -> tuple[Path, list[Path]]:
    from finrag.tools.demo.corpus import generate_demo_corpus

    folder = tmp_path_factory.mktemp("demo") / "filings"
    return folder, generate_demo_corpus(folder)


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory, demo_corpus) -> Path:
    """An index of the demo corpus with both variants (built once per test session)."""
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import build_variant, index_paths
    from finrag.tools.indexing.store import Store

    index_dir = tmp_path_factory.mktemp("demo_index")
    store = Store(index_dir, create=True)
    store.check_embedder(get_embedder())
    report = index_paths([demo_corpus[0]], store, progress=False, workers=1)
    assert not report.failed, report.failed
    build_variant(store, "meta", progress=False)
    build_variant(store, "llmctx", progress=False)
    store.close()
    return index_dir


@pytest.fixture(scope="session")
def demo_qas(demo_corpus) -> list[dict]:
    from finrag.tools.demo.corpus import demo_questions

    return demo_questions(demo_corpus[1])


@pytest.fixture(scope="session")
def demo_server(demo_index, tmp_path_factory) -> str:
    """The base URL of `finrag serve` on the demo index as a user starts it (no API key, no LLM, none of the
    machine's settings), one for the session; its thread stores in a folder of its own (FINRAG_THREADS_DIR), so the
    demo index stays clean. Its log must hold no traceback when it stops."""
    from support.servers import finrag_serve

    folder = tmp_path_factory.mktemp("demo-server")
    with finrag_serve(demo_index, folder, env={"FINRAG_THREADS_DIR": str(folder / "threads")}) as served:
        yield served.url


# ------------------------------------------------------------------------------- the process's caches
@pytest.fixture()
def fresh_index():
    """After the test, the process's cached open indexes are forgotten (run_query's runs read them)."""
    yield
    from finrag.tools.indexing import open_index

    open_index.reset()


@pytest.fixture()
def fresh_threads(fresh_index):
    """After the test, the thread stores close (they reopen on next use, as after a restart), then `fresh_index`."""
    yield
    from finrag import threads

    threads.close_stores()


@pytest.fixture()
def thread_store(tmp_path):
    """A real SQLite thread store in tmp_path (not the index's own: the session index stays clean)."""
    from finrag.threads import ThreadStore

    store = ThreadStore.sqlite(tmp_path / "threads.sqlite")
    yield store
    store.close()


# ------------------------------------------------------------------------------ the OpenAI-format stub
@pytest.fixture(scope="module")
def stub_class():
    """The stub class the module's `stub` runs; a module overrides this fixture to serve a subclass of its own."""
    from support.openai_stub import OpenAIStub

    return OpenAIStub


@pytest.fixture(scope="module")
def stub(stub_class):
    """A loopback OpenAI-compatible server (tests/support/openai_stub.py), one for the test module."""
    with stub_class() as server:
        yield server


@pytest.fixture()
def fresh_stub(stub, fresh_index):
    """The module's stub with no requests recorded and mode "ok", before and after the test; then `fresh_index`."""
    stub.reset()
    yield stub
    stub.reset()


# ----------------------------------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def browser_window() -> str:
    """The window size of the module's `browser`; a module overrides this fixture for another."""
    return "1280,800"


@pytest.fixture(scope="module")
def browser(browser_window):
    """Headless Chromium over the DevTools protocol (tests/support/headless.py), one for the test module; the test is
    skipped with the reason where no chromium binary is installed."""
    from support.browser import NO_CHROMIUM
    from support.headless import Chromium, chromium_binary

    if chromium_binary() is None:
        pytest.skip(NO_CHROMIUM)
    with Chromium(window=browser_window) as b:
        yield b
