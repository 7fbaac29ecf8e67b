"""finrag.threads: conversations kept on LangGraph threads, per index.

    import finrag
    finrag.run_query("What was Acme Widgets' revenue in FY2022?", index="idx", thread_id="t1")
    finrag.run_query("And in FY2023?", index="idx", thread_id="t1")      # resolved from turn 1
    from finrag import threads
    threads.list_threads(index="idx")        # [ThreadInfo(thread_id='t1', turns=2, ...)]
    threads.read("t1", index="idx")          # the turns: question, resolved question, routing, answer, citations
    threads.delete("t1", index="idx")

The store is LangGraph's SQLite checkpointer (`langgraph-checkpoint-sqlite`) in `<index>/threads.sqlite`, or in
the folder the `threads_dir` setting (FINRAG_THREADS_DIR) names (`<threads_dir>/<index name>.threads.sqlite`);
`ThreadStore.in_memory()` holds threads in memory (tests). A graph runs on a thread with its checkpointed variant,
compiled once per system and store (`ThreadStore.graph`); runs without a thread use the plain graphs, unchanged.
An unknown thread is `ThreadNotFound`, a store SQLite cannot read is `ThreadStoreDamaged` (never reset); turns of
one thread are serialised: a lock per thread in the process and a byte-range file lock across processes.
"""
from __future__ import annotations

import builtins
import contextlib
import fcntl
import hashlib
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from finrag.graphs import SYSTEMS, build_graph
from finrag.state.configuration import Configuration
from finrag.tools.conversation.turns import turn_record

STORE_NAME = "threads.sqlite"
"""The thread store's file name beside an index."""

MAX_THREAD_ID = 200
"""The longest thread id accepted (characters)."""

RETRIEVAL_KEYS = ("fts_results", "vector_results", "fused", "reranked")
"""State keys of a finished turn not kept in the store (hundreds of kB of chunk text; the contract's `contexts`
are kept)."""


class ThreadError(ValueError):
    """A thread cannot be used as asked (one line)."""


class ThreadNotFound(ThreadError, KeyError):
    """No thread of that id in the store."""

    def __str__(self) -> str:
        """The one-line message (KeyError would quote it)."""
        return str(self.args[0]) if self.args else "thread not found"


class ThreadStoreDamaged(ThreadError):
    """The thread store exists but SQLite cannot read it (reported, never reset)."""


@dataclass(frozen=True)
class ThreadInfo:
    """One thread of a store."""

    thread_id: str
    turns: int
    """Finished turns (the last one included)."""
    last_question: str
    """The last question as typed."""


def check_thread_id(thread_id: Any) -> str:
    """The thread id, or ThreadError when it is not a non-empty one-line string of at most 200 characters."""
    if not isinstance(thread_id, str) or not thread_id.strip():
        raise ThreadError("thread id must be a non-empty string")
    if len(thread_id) > MAX_THREAD_ID or any(ord(c) < 32 for c in thread_id):
        raise ThreadError(f"thread id must be one line of at most {MAX_THREAD_ID} characters")
    return thread_id.strip()


def store_path(cfg: Configuration) -> Path:
    """Where the thread store of the run's index lies: `threads_dir` when set, else beside the index."""
    index = str(cfg.index_dir)
    folder = str(getattr(cfg, "threads_dir", "") or "")
    if index.startswith("milvus:"):
        db = Path(index[len("milvus:"):]).expanduser()
        return (Path(folder).expanduser() if folder else db.parent) / f"{db.stem}.{STORE_NAME}"
    if folder:
        base = Path(index).expanduser().resolve()
        return Path(folder).expanduser() / f"{base.name or 'index'}-{hashlib.sha1(str(base).encode()).hexdigest()[:8]}" \
            f".{STORE_NAME}"
    return Path(index).expanduser() / STORE_NAME


def damaged(path: Path | None, exc: BaseException) -> ThreadStoreDamaged:
    """The one-line error of a store SQLite cannot read."""
    where = str(path) if path else "the in-memory thread store"
    cause = " ".join(str(exc).split())[:200]  # SQLite's integrity report can run to many lines
    return ThreadStoreDamaged(f"thread store {where} is damaged ({cause}); move it away to start a new one "
                              "(it is not reset)")


class ThreadStore:
    """The threads of one index: a LangGraph checkpointer and the graphs compiled with it."""

    def __init__(self, saver: Any, path: Path | None = None, conn: sqlite3.Connection | None = None) -> None:
        """A store over `saver` (the SQLite one at `path`, or an in-memory one)."""
        self.saver, self.path, self._conn = saver, path, conn
        self._graphs: dict[str, Any] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @classmethod
    def in_memory(cls) -> "ThreadStore":
        """A store that lives as long as the object (LangGraph's `InMemorySaver`)."""
        from langgraph.checkpoint.memory import InMemorySaver

        return cls(InMemorySaver())

    @classmethod
    def sqlite(cls, path: Path) -> "ThreadStore":
        """The SQLite store at `path` (created when absent; ThreadStoreDamaged when SQLite cannot read it)."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30.0)
            row = conn.execute("PRAGMA quick_check").fetchone()
            if not row or row[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check: {row[0] if row else 'no answer'}")
            saver = SqliteSaver(conn)
            saver.setup()
        except sqlite3.DatabaseError as exc:
            raise damaged(path, exc) from None
        return cls(saver, path, conn)

    def graph(self, system: str) -> Any:
        """The system's graph compiled with this store's checkpointer (compiled once)."""
        if system not in SYSTEMS:
            raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
        with self._guard:
            if system not in self._graphs:
                self._graphs[system] = build_graph(system, self.saver)
            return self._graphs[system]

    @contextlib.contextmanager
    def turn(self, thread_id: str) -> Iterator[None]:
        """Hold the thread for one turn: other turns of it wait (this process: a lock; others: a file lock)."""
        with self._guard:
            lock = self._locks.setdefault(thread_id, threading.Lock())
        with lock:
            if self.path is None:
                yield
                return
            with open(str(self.path) + ".lock", "a+b") as fh:
                offset = int(hashlib.sha1(thread_id.encode()).hexdigest()[:8], 16) % (1 << 30)
                fcntl.lockf(fh, fcntl.LOCK_EX, 1, offset)
                try:
                    yield
                finally:
                    fcntl.lockf(fh, fcntl.LOCK_UN, 1, offset)

    durability = "exit"
    """LangGraph's durability for turns run through finrag: the state is written once, when the turn ends (not
    after every step); a turn that fails leaves the thread as it was."""

    def _drop_retrieval(self, thread_id: str) -> None:
        """The thread's latest checkpoint rewritten in place without `RETRIEVAL_KEYS` (one read and one write of
        the checkpoint, no graph step: the thread stays finished)."""
        tup = self.saver.get_tuple({"configurable": {"thread_id": thread_id}})
        if tup is None:
            return
        values = dict((tup.checkpoint or {}).get("channel_values") or {})
        if not any(k in values for k in RETRIEVAL_KEYS):
            return
        checkpoint = {**tup.checkpoint, "channel_values": {k: v for k, v in values.items() if k not in RETRIEVAL_KEYS}}
        where = dict(tup.config["configurable"])
        parent = ((tup.parent_config or {}).get("configurable") or {}).get("checkpoint_id")
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": where.get("checkpoint_ns", "")}}
        if parent:
            config["configurable"]["checkpoint_id"] = parent
        self.saver.put(config, checkpoint, tup.metadata, {})  # the same checkpoint id: replaced

    def after_turn(self, thread_id: str, graph: Any = None) -> None:
        """After a turn: the retrieval internals of its state cleared (`RETRIEVAL_KEYS`: the next turn resets
        them anyway; the answer, routing and contexts stay) and only the thread's latest checkpoint kept (its
        state holds every turn, `turns`; older checkpoints add only size)."""
        try:
            self._drop_retrieval(thread_id)
            if self._conn is not None:
                with self.saver.cursor() as cur:  # the saver's lock and transaction
                    for table in ("checkpoints", "writes"):
                        cur.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id < (SELECT "
                                    "MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?)", (thread_id, thread_id))
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def config(self, thread_id: str, config: Any = None) -> dict[str, Any]:
        """A RunnableConfig of `config` with the thread's id in `configurable`."""
        out = dict(config or {})
        out["configurable"] = {**dict(out.get("configurable") or {}), "thread_id": thread_id}
        return out

    def _state(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's latest state values, None when the store has no such thread."""
        cfg = {"configurable": {"thread_id": thread_id}}
        try:
            tup = self.saver.get_tuple(cfg)
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None
        if tup is None:
            return None
        values = dict((tup.checkpoint or {}).get("channel_values") or {})
        return values

    def thread_ids(self) -> builtins.list[str]:
        """The ids of the store's threads, the least recently used first."""
        if self._conn is not None:
            try:
                with self.saver.cursor(transaction=False) as cur:
                    rows = cur.execute("SELECT thread_id FROM checkpoints GROUP BY thread_id "
                                       "ORDER BY MIN(checkpoint_id)").fetchall()
            except sqlite3.DatabaseError as exc:
                raise damaged(self.path, exc) from None
            return [str(r[0]) for r in rows]
        return builtins.list(dict.fromkeys(str(t.config["configurable"]["thread_id"]) for t in self.saver.list(None)))

    def read(self, thread_id: str) -> builtins.list[dict[str, Any]]:
        """The thread's finished turns, oldest first (`finrag.tools.conversation.turns.turn_record`)."""
        thread_id = check_thread_id(thread_id)
        values = self._state(thread_id)
        if values is None:
            raise ThreadNotFound(f"no thread {thread_id!r} in {self.where()}")
        turns = builtins.list(values.get("turns") or [])
        if values.get("conversation") and values.get("answer") is not None:
            turns.append(turn_record(values))
        return turns

    def exists(self, thread_id: str) -> bool:
        """Does the store hold the thread?"""
        return self._state(check_thread_id(thread_id)) is not None

    def delete(self, thread_id: str) -> None:
        """Remove the thread and its checkpoints (ThreadNotFound when there is none)."""
        thread_id = check_thread_id(thread_id)
        with self.turn(thread_id):
            if self._state(thread_id) is None:
                raise ThreadNotFound(f"no thread {thread_id!r} in {self.where()}")
            try:
                self.saver.delete_thread(thread_id)
            except sqlite3.DatabaseError as exc:
                raise damaged(self.path, exc) from None

    def list_threads(self) -> builtins.list[ThreadInfo]:
        """Every thread of the store, with its number of turns and last question."""
        out = []
        for tid in self.thread_ids():
            turns = self.read(tid)
            out.append(ThreadInfo(thread_id=tid, turns=len(turns),
                                  last_question=str(turns[-1]["question"]) if turns else ""))
        return out

    def where(self) -> str:
        """The store, for messages."""
        return f"the thread store {self.path}" if self.path else "the in-memory thread store"

    def close(self) -> None:
        """Close the SQLite connection (the store is unusable afterwards)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


_STORES: dict[str, ThreadStore] = {}
_STORES_LOCK = threading.Lock()


def store_for(cfg: Configuration) -> ThreadStore:
    """The process's thread store of the run's index (opened on first use)."""
    path = store_path(cfg)
    if not getattr(cfg, "threads_dir", "") and not path.parent.is_dir():
        from finrag.tools.indexing.store import IndexMissing

        raise IndexMissing(f"no finrag index at {path.parent} (run `finrag index PATH --index {path.parent}` first)")
    key = str(path.resolve()) if path.parent.exists() else str(path)
    with _STORES_LOCK:
        if key not in _STORES:
            _STORES[key] = ThreadStore.sqlite(path)
        return _STORES[key]


def open_store(index: str | None = None, *, threads_dir: str | None = None) -> ThreadStore:
    """The thread store of `index` (default $FINRAG_HOME, else ./.finrag), in `threads_dir` when given."""
    values: dict[str, Any] = {}
    if index:
        values["index_dir"] = str(index)
    if threads_dir:
        values["threads_dir"] = str(threads_dir)
    return store_for(Configuration(**values))


def list_threads(index: str | None = None, *, threads_dir: str | None = None) -> builtins.list[ThreadInfo]:
    """The threads of an index's store."""
    return open_store(index, threads_dir=threads_dir).list_threads()


def read(thread_id: str, index: str | None = None, *,
         threads_dir: str | None = None) -> builtins.list[dict[str, Any]]:
    """A thread's turns (ThreadNotFound for an unknown id)."""
    return open_store(index, threads_dir=threads_dir).read(thread_id)


def delete(thread_id: str, index: str | None = None, *, threads_dir: str | None = None) -> None:
    """Delete a thread (ThreadNotFound for an unknown id)."""
    open_store(index, threads_dir=threads_dir).delete(thread_id)


__all__ = ["ThreadError", "ThreadInfo", "ThreadNotFound", "ThreadStore", "ThreadStoreDamaged", "check_thread_id",
           "delete", "list_threads", "open_store", "read", "store_for", "store_path"]
