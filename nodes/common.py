"""Helpers the nodes share: the run's configuration, its index reader and registry, timing, and document scope.

Node modules import only this module from `finrag.nodes` (never each other); logic that more than
one node needs lives here or in `finrag.tools`.
"""
from __future__ import annotations

import functools
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, Optional

from langgraph.runtime import Runtime

from finrag.state.configuration import Configuration
from finrag.state.graph_state import FinragState
from finrag.state.index_reader import IndexReader
from finrag.state.question import QuestionFacts, QuestionScope
from finrag.tools.indexing.open_index import open_index, registry_for
from finrag.tools.question import read_question

if TYPE_CHECKING:
    from finrag.tools.routing.registry import Registry

NO_CONTEXT = ("finrag graphs read their configuration from LangGraph's run context, and this run has none: "
              "call graph.invoke({'question': ...}, context={'index_dir': '.finrag'}) (context={} for the "
              "defaults and the FINRAG_* environment); config={'configurable': ...} is not read")


def configuration(runtime: Optional[Runtime[Configuration]]) -> Configuration:
    """The run's Configuration, as the caller built it once for the whole run.

    The graphs declare `context_schema=Configuration`, so LangGraph has already turned a dict given as
    `context=` into a Configuration (which is where the environment was applied); nodes only read it.
    """
    context = getattr(runtime, "context", None)
    if isinstance(context, Configuration):
        return context
    if context is None:
        raise TypeError(NO_CONTEXT)
    raise TypeError(f"the run context must be a finrag Configuration or a dict of its fields, "
                    f"not {type(context).__name__}")


class RunReaders:
    """The index each run's configuration reads: looked up once per `Configuration` (the run's object, built once
    per run), so every node of a request reads the same index even when the process's cache drops it meanwhile
    (`open_index.forget_if_replaced`). Held for as long as the configuration lives (a weak reference to it),
    never written onto the configuration itself."""

    def __init__(self) -> None:
        self._readers: dict[int, tuple[weakref.ref, IndexReader]] = {}
        self._lock = threading.Lock()

    def get(self, cfg: Configuration) -> IndexReader:
        """The reader `cfg`'s run opened (`open_index(cfg)` on its first call)."""
        key = id(cfg)
        with self._lock:
            held = self._readers.get(key)
            if held is not None and held[0]() is cfg:
                return held[1]
        reader = open_index(cfg)
        with self._lock:
            held = self._readers.get(key)
            if held is not None and held[0]() is cfg:  # another node of the run looked it up meanwhile
                return held[1]
            self._readers[key] = (weakref.ref(cfg, functools.partial(self._forget, key)), reader)
        return reader

    def _forget(self, key: int, ref: weakref.ref) -> None:
        """Drop the reader of a configuration that no longer exists (its weak reference's callback)."""
        with self._lock:
            held = self._readers.get(key)
            if held is not None and held[0] is ref:
                del self._readers[key]

    def __len__(self) -> int:
        return len(self._readers)

    def readers(self) -> list[IndexReader]:
        """The readers held now (one per live configuration that looked one up)."""
        with self._lock:
            return [reader for _, reader in self._readers.values()]


RUN_READERS = RunReaders()


def reader_of(cfg: Configuration) -> IndexReader:
    """The run's open index: the reader the caller handed in as `cfg.index_reader`, else the one this process
    opened for `cfg.index_dir` and `cfg.embedder` (opened on first use and shared, `open_index`), looked up once
    per run (`RunReaders`)."""
    if cfg.index_reader is not None:
        return cfg.index_reader
    return RUN_READERS.get(cfg)


def registry_of(cfg: Configuration, reader: Optional[IndexReader] = None) -> Registry:
    """The routing registry of `reader` (else of `reader_of(cfg)`) with `cfg.alias_file`, else the alias file
    the index recorded (built once per index generation and stored next to the index, `registry_for`)."""
    return registry_for(reader if reader is not None else reader_of(cfg), cfg.alias_file)


def timed(name: str) -> Callable:
    """Decorate a node so its update adds the node's wall time to `timings_ms[name]`."""

    def wrap(fn):
        @functools.wraps(fn)
        def node(state: FinragState, runtime: Optional[Runtime[Configuration]] = None, **kwargs: Any) -> dict:
            t0 = time.perf_counter()
            update = dict(fn(state, runtime, **kwargs) or {})
            update["timings_ms"] = {name: (time.perf_counter() - t0) * 1000.0}
            return update

        return node

    return wrap


def scope_of(state: FinragState, scoped: bool) -> list[str] | None:
    """The documents a scoped search may look at, or None for the whole corpus."""
    if not scoped:
        return None
    docs = state.get("routed_docs") or []
    return list(docs) if docs else None


def routed_budget(cfg: Configuration) -> bool:
    """Does `routed_context` ask for the question's budget inside routed filings (the Configuration validates it)?"""
    return cfg.routed_context == "budget"


def question_facts(state: FinragState) -> QuestionFacts:
    """The question's one reading: the state's `question_facts` (which the first node reading the question
    puts there), else `read_question` of the state's question (a graph that starts elsewhere)."""
    known = state.get("question_facts")
    return known if known is not None else read_question(state.get("question", ""))


def scope_of_question(state: FinragState) -> QuestionScope:
    """The question's scope, `line_item` or `open` (`question_facts(state).scope`)."""
    return question_facts(state).scope


def candidates_k(cfg: Configuration, scope: list[str] | None, k: int, state: FinragState) -> int:
    """Candidates per search: `routed_candidates` for an open question (`scope_of_question`) inside routed
    filings under the budget rule (nearly exhaustive: a filing has a few hundred chunks), else `k` (a line-item
    question keeps the paper's candidates and cutoff)."""
    if k <= 0:  # a search turned off (vector_k=0: BM25 only) stays off
        return 0
    if not (scope and routed_budget(cfg)):
        return k
    if scope_of_question(state) == "line_item":
        return k
    return max(k, cfg.routed_candidates)
