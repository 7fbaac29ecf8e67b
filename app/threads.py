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
one thread are serialised: a lock per thread in the process and a byte-range lock on `<store>.lock` across
processes (`finrag serve --workers N` shares one store), held on one file handle the store keeps open (POSIX drops
every lock a process holds on a file when it closes any handle of it).

Each store keeps a registry of its threads (table `finrag_threads`: id, created, last used), so a thread can exist
before its first turn (`ThreadStore.create`, the server's `POST /threads`), and is bounded (`ThreadBounds`, from
`finrag.state.settings.ThreadSettings`: turns kept per thread, threads kept per store, days since last use): a
turn drops its thread's earliest turns past the limit, and creating a thread or finishing a turn drops the least
recently used threads past the limit and those unused for too long (a thread answering a turn is never dropped).
The server keeps one store per index and API key (`owner_of`, `store_path(cfg, owner)`).
"""
from __future__ import annotations

import builtins
import contextlib
import fcntl
import hashlib
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

from finrag.graphs import SYSTEMS, build_graph
from finrag.state.configuration import Configuration
from finrag.state.settings import ThreadSettings
from finrag.thread_errors import (
    ThreadBusy,
    ThreadError,
    ThreadExists,
    ThreadNotFound,
    ThreadQuota,
    ThreadStoreDamaged,
    ThreadStoreGone,
    ThreadStoreReadOnly,
    ThreadStoreTampered,
    damaged,
)
from finrag.tools.conversation import checkpoints
from finrag.tools.conversation.checkpoint_serde import ThreadSerializer
from finrag.tools.conversation.store_file import file_id, open_read_only
from finrag.tools.conversation.store_file import read_only as read_only_why
from finrag.tools.conversation.thread_ids import thread_id_problem
from finrag.tools.conversation.turns import turn_record
from finrag.tools.indexing.store_schema import IndexMissing

STORE_NAME = "threads.sqlite"
"""The thread store's file name beside an index."""


RETRIEVAL_KEYS = ("fts_results", "vector_results", "fused", "reranked")
"""State keys of a finished turn not kept in the store (hundreds of kB of chunk text; the contract's `contexts`
are kept)."""


@dataclass(frozen=True)
class ThreadInfo:
    """One thread of a store."""

    thread_id: str
    turns: int
    """Finished turns (the last one included)."""
    last_question: str
    """The last question as typed."""
    created: float = 0.0
    """When the thread was created (seconds since the epoch)."""
    updated: float = 0.0
    """When its last turn ended (or it was created)."""


@dataclass(frozen=True)
class ThreadBounds:
    """How much a store keeps (0: no limit): turns per thread, threads, seconds since a thread's last use."""

    max_turns: int = 50
    max_threads: int = 1000
    max_age_s: float = 30 * 86400.0

    @classmethod
    def from_settings(cls) -> "ThreadBounds":
        """The bounds of `ThreadSettings` (FINRAG_THREADS_MAX_TURNS, _MAX_THREADS, _MAX_AGE_DAYS)."""
        s = ThreadSettings()
        return cls(int(s.max_turns), int(s.max_threads), float(s.max_age_days) * 86400.0)


REGISTRY = "finrag_threads"
"""The store's table of its threads: thread_id, created, updated (seconds since the epoch)."""


def check_thread_id(thread_id: Any) -> str:
    """The thread id, or ThreadError when it is not a non-empty string of at most 200 characters, one line of
    visible characters (no control, separator, bidi or zero-width character) without surrounding spaces."""
    problem = thread_id_problem(thread_id)
    if problem:
        raise ThreadError(problem)
    return str(thread_id)


def owner_of(api_key: str | None) -> str:
    """The owner name of an API key's thread store: '' for none (the store the Python API and `finrag chat` use),
    else 16 hex digits of a SHA-256 of the key (the key itself is written nowhere)."""
    if not api_key:
        return ""
    return hashlib.sha256(b"finrag-threads\0" + api_key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def store_path(cfg: Configuration, owner: str = "") -> Path:
    """Where the thread store of the run's index lies: `threads_dir` when set, else beside the index; an `owner`
    (`owner_of`, the server's API key) has a store of its own, `threads-<owner>.sqlite`."""
    name = f"threads-{owner}.sqlite" if owner else STORE_NAME
    index = cfg.index_dir
    folder = cfg.threads_dir
    if index.startswith("milvus:"):
        db = Path(index[len("milvus:"):]).expanduser()
        return (Path(folder).expanduser() if folder else db.parent) / f"{db.stem}.{name}"
    if folder:
        base = Path(index).expanduser().resolve()
        return Path(folder).expanduser() / f"{base.name or 'index'}-{hashlib.sha1(str(base).encode()).hexdigest()[:8]}" \
            f".{name}"
    return Path(index).expanduser() / name


class ThreadStore:
    """The threads of one index: a LangGraph checkpointer, the graphs compiled with it, and the store's registry of
    its threads (created, last used) that its bounds are applied by."""

    def __init__(self, saver: Any, path: Path | None = None, conn: sqlite3.Connection | None = None,
                 bounds: ThreadBounds | None = None, read_only: str = "") -> None:
        """A store over `saver` (the SQLite one at `path`, or an in-memory one); `bounds`: `ThreadSettings`'s;
        `read_only`: why the store cannot be written ('' when it can)."""
        self.saver, self.path, self._conn = saver, path, conn
        self.read_only = read_only
        self._file = file_id(path) if path is not None else None  # the file opened (`check_file`)
        self.bounds = bounds if bounds is not None else ThreadBounds.from_settings()
        self._graphs: dict[str, Any] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._lock_file: IO[bytes] | None = None
        # an in-memory store keeps its registry in an in-memory SQLite database (the SQLite store: in its file)
        self._meta = None if conn is not None else sqlite3.connect(":memory:", check_same_thread=False)
        self._meta_lock = threading.Lock()
        if read_only:
            return
        with self._sql() as cur:
            cur.execute(f"CREATE TABLE IF NOT EXISTS {REGISTRY} (thread_id TEXT PRIMARY KEY, created REAL NOT NULL, "
                        "updated REAL NOT NULL)")
        self._adopt()

    @classmethod
    def in_memory(cls, bounds: ThreadBounds | None = None) -> "ThreadStore":
        """A store that lives as long as the object (LangGraph's `InMemorySaver`)."""
        from langgraph.checkpoint.memory import InMemorySaver

        return cls(InMemorySaver(serde=ThreadSerializer()), bounds=bounds)

    @classmethod
    def sqlite(cls, path: Path, bounds: ThreadBounds | None = None) -> "ThreadStore":
        """The SQLite store at `path` (created when absent; ThreadStoreDamaged when SQLite cannot read it)."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        path.parent.mkdir(parents=True, exist_ok=True)
        conn = None
        try:
            why = read_only_why(path) if path.exists() else None
            conn = open_read_only(path) if why else sqlite3.connect(str(path), check_same_thread=False, timeout=30.0)
            row = conn.execute("PRAGMA quick_check").fetchone()
            if not row or row[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check: {row[0] if row else 'no answer'}")
            saver = SqliteSaver(conn, serde=ThreadSerializer())
            if why:
                saver.is_setup = True  # read as it is: no table created, no journal mode set
            else:
                saver.setup()
            return cls(saver, path, conn, bounds, read_only=why or "")
        except (sqlite3.DatabaseError, ThreadStoreDamaged) as exc:
            if conn is not None:
                conn.close()
            raise damaged(path, exc) from None

    # ------------------------------------------------------------------ graphs and turns
    def graph(self, system: str) -> Any:
        """The system's graph compiled with this store's checkpointer (compiled once)."""
        if system not in SYSTEMS:
            raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
        with self._guard:
            if system not in self._graphs:
                self._graphs[system] = build_graph(system, self.saver)
            return self._graphs[system]

    @contextlib.contextmanager
    def turn(self, thread_id: str, wait: float | None = None) -> Iterator[None]:
        """Hold the thread for one turn: other turns of it wait (this process: a lock; others: a byte-range lock on
        `<store>.lock`). `wait`: at most that many seconds, then ThreadBusy (None: as long as it takes)."""
        self.check_writable()
        if not self._acquire(thread_id, wait):
            raise ThreadBusy(f"thread {thread_id!r} is answering another turn; send this one when it has answered")
        try:
            try:
                before = checkpoints.mark(self.saver, thread_id)
            except sqlite3.DatabaseError as exc:
                raise damaged(self.path, exc) from None
            try:
                yield
            except BaseException:  # the turn failed: what it wrote is dropped, the thread is as it was (case 8)
                with contextlib.suppress(sqlite3.Error):
                    checkpoints.roll_back(self.saver, thread_id, before)
                raise
        finally:
            self._release(thread_id)

    def check_writable(self) -> None:
        """Before a write: ThreadStoreReadOnly for a store that cannot be written, ThreadStoreGone when the file at
        the store's path is no longer the one it opened (deleted, or another file moved there)."""
        if self.read_only:
            raise ThreadStoreReadOnly(f"{self.where()} is read-only ({self.read_only}): its conversations can be "
                                      "read, not continued; make it writable to go on")
        if self.path is not None and self.gone():
            what = "deleted" if not self.path.exists() else "replaced"
            raise ThreadStoreGone(f"{self.where()} was {what} while in use; nothing was written to it (the next "
                                  "request opens the store now at that path)")

    def gone(self) -> bool:
        """Is the file at the store's path another one than the store opened (or none)?"""
        return self.path is not None and file_id(self.path) != self._file

    @staticmethod
    def _offset(thread_id: str) -> int:
        """The byte of `<store>.lock` that holds a thread."""
        return int(hashlib.sha1(thread_id.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % (1 << 30)

    def _lock_handle(self) -> IO[bytes]:
        """The store's lock file, opened once and kept open (closing a handle would drop the process's locks)."""
        with self._guard:
            if self._lock_file is None:
                self._lock_file = open(str(self.path) + ".lock", "a+b")  # noqa: SIM115 - open as long as the store
            return self._lock_file

    def _acquire(self, thread_id: str, wait: float | None) -> bool:
        """Take the thread's locks (`turn`); False when `wait` seconds passed first."""
        with self._guard:
            lock = self._locks.setdefault(thread_id, threading.Lock())
        end = None if wait is None else time.monotonic() + max(0.0, wait)
        if not (lock.acquire() if wait is None else lock.acquire(timeout=max(0.0, wait))):
            return False
        if self.path is None:
            return True
        try:
            handle, offset = self._lock_handle(), self._offset(thread_id)
            if end is None:
                fcntl.lockf(handle, fcntl.LOCK_EX, 1, offset)
                return True
            while True:
                try:
                    fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
                    return True
                except OSError:  # another process holds it (EAGAIN / EACCES)
                    if time.monotonic() >= end:
                        lock.release()
                        return False
                    time.sleep(0.02)
        except BaseException:
            lock.release()
            raise

    def _release(self, thread_id: str) -> None:
        try:
            if self.path is not None and self._lock_file is not None:
                fcntl.lockf(self._lock_file, fcntl.LOCK_UN, 1, self._offset(thread_id))
        finally:
            self._locks[thread_id].release()

    durability = "exit"
    """LangGraph's durability for turns run through finrag: the state is written once, when the turn ends (not
    after every step); a turn that fails leaves the thread as it was."""

    def _compact(self, thread_id: str) -> None:
        """The thread's latest checkpoint without `RETRIEVAL_KEYS` and with at most `bounds.max_turns` turns
        (`checkpoints.compact`)."""
        checkpoints.compact(self.saver, thread_id, self.bounds.max_turns, RETRIEVAL_KEYS)

    def after_turn(self, thread_id: str, graph: Any = None) -> None:
        """After a turn (the thread held): the retrieval internals of its state cleared (`RETRIEVAL_KEYS`: the next
        turn resets them anyway; the answer, routing and contexts stay), its earliest turns past
        `bounds.max_turns` dropped, only its latest checkpoint kept (its state holds every turn, `turns`; older
        checkpoints add only size), its last use recorded, and the store's other bounds applied (`prune`)."""
        self.check_writable()
        try:
            self._compact(thread_id)
            if self._conn is not None:
                with self.saver.cursor() as cur:  # the saver's lock and transaction
                    for table in ("checkpoints", "writes"):
                        cur.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id < (SELECT "
                                    "MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?)", (thread_id, thread_id))
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None
        now = time.time()
        with self._sql() as cur:
            cur.execute(f"INSERT INTO {REGISTRY} VALUES (?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET "
                        "updated = excluded.updated", (thread_id, now, now))
        self.prune(keep=thread_id)

    def config(self, thread_id: str, config: Any = None) -> dict[str, Any]:
        """A RunnableConfig of `config` with the thread's id in `configurable`."""
        out = dict(config or {})
        out["configurable"] = {**dict(out.get("configurable") or {}), "thread_id": thread_id}
        return out

    # ------------------------------------------------------------------ the registry
    @contextlib.contextmanager
    def _sql(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        """A cursor on the registry's database: the saver's (its lock and transaction) or the in-memory one."""
        try:
            if self._meta is None:
                with self.saver.cursor(transaction=transaction) as cur:
                    yield cur
                return
            with self._meta_lock:
                cur = self._meta.cursor()
                try:
                    yield cur
                finally:
                    self._meta.commit()
                    cur.close()
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def _adopt(self) -> None:
        """Threads with checkpoints but no registry row (written before the registry existed) get one, dated now
        (when the store is opened)."""
        now = time.time()
        if self._meta is None:
            with self._sql() as cur:
                cur.execute(f"INSERT OR IGNORE INTO {REGISTRY} SELECT thread_id, ?, ? FROM checkpoints "
                            "GROUP BY thread_id", (now, now))
            return
        ids = dict.fromkeys(str(t.config["configurable"]["thread_id"]) for t in self.saver.list(None))
        with self._sql() as cur:
            cur.executemany(f"INSERT OR IGNORE INTO {REGISTRY} VALUES (?, ?, ?)", [(t, now, now) for t in ids])

    def _rows(self) -> builtins.list[tuple[str, float, float]]:
        """(thread_id, created, updated) of every thread, the least recently used first."""
        with self._sql(transaction=False) as cur:
            rows = cur.execute(f"SELECT thread_id, created, updated FROM {REGISTRY} ORDER BY updated, rowid").fetchall()
        return [(str(t), float(c), float(u)) for t, c, u in rows]

    def _row(self, thread_id: str) -> tuple[float, float] | None:
        with self._sql(transaction=False) as cur:
            row = cur.execute(f"SELECT created, updated FROM {REGISTRY} WHERE thread_id = ?", (thread_id,)).fetchone()
        return (float(row[0]), float(row[1])) if row else None

    def create(self, thread_id: str | None = None, *, keep_conversations: bool = False) -> str:
        """A new thread, empty until its first turn: `thread_id`, or a generated one (32 hex digits). ThreadExists
        when the store holds it already; the store's bounds are applied (`prune`). `keep_conversations` (the
        server's POST /threads): a full store makes room by dropping its oldest threads that were never asked,
        never a conversation; ThreadQuota when all of them have turns."""
        tid = check_thread_id(thread_id) if thread_id is not None else uuid.uuid4().hex
        self.check_writable()
        if keep_conversations:
            self._room_without_conversations()
        now, taken = time.time(), False
        with self._sql() as cur:
            try:
                cur.execute(f"INSERT INTO {REGISTRY} VALUES (?, ?, ?)", (tid, now, now))
            except sqlite3.IntegrityError:
                taken = True
        if taken:
            raise ThreadExists(f"thread {tid!r} exists already")
        self.prune(keep=tid)
        return tid

    def _room_without_conversations(self) -> None:
        """Room for one more thread under `bounds.max_threads`, made only of threads without a turn (ThreadQuota)."""
        limit = self.bounds.max_threads
        rows = self._rows()
        if not limit or len(rows) < limit:
            return
        asked = set(self._asked_ids())
        for tid in [t for t, _, _ in rows if t not in asked][:len(rows) - limit + 1]:
            if self._acquire(tid, 0.0):
                try:
                    self._remove(tid)
                finally:
                    self._release(tid)
        if len(self._rows()) >= limit:
            raise ThreadQuota(f"{limit} threads with turns are kept here already (FINRAG_THREADS_MAX_THREADS): "
                              "delete one (DELETE /threads/ID) before creating another")

    def _asked_ids(self) -> builtins.list[str]:
        """The ids of threads with at least one checkpoint (a turn answered)."""
        if self._meta is None:
            with self._sql(transaction=False) as cur:
                return [str(r[0]) for r in cur.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()]
        return [str(t) for t in getattr(self.saver, "storage", {})]

    def prune(self, keep: str | None = None) -> builtins.list[str]:
        """Apply the store's bounds: threads unused for longer than `bounds.max_age_s`, then the least recently used
        past `bounds.max_threads`, are deleted (never `keep`, nor a thread answering a turn right now); the ids
        deleted."""
        b = self.bounds
        if not b.max_threads and not b.max_age_s:
            return []
        rows = self._rows()
        old = {t for t, _, u in rows if b.max_age_s and u < time.time() - b.max_age_s}
        alive = [t for t, _, _ in rows if t not in old]
        excess = alive[:len(alive) - b.max_threads] if b.max_threads and len(alive) > b.max_threads else []
        dropped = []
        for tid in [t for t, _, _ in rows if t in old or t in excess]:
            if tid != keep and self._acquire(tid, 0.0):
                try:
                    self._remove(tid)
                finally:
                    self._release(tid)
                dropped.append(tid)
        return dropped

    # ------------------------------------------------------------------ reading
    def _state(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's latest state values, None when the store has no checkpoint of it."""
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
        return [t for t, _, _ in self._rows()]

    def read(self, thread_id: str) -> builtins.list[dict[str, Any]]:
        """The thread's finished turns, oldest first (`finrag.tools.conversation.turns.turn_record`); [] for a
        thread created and not asked yet."""
        thread_id = check_thread_id(thread_id)
        values = self._state(thread_id)
        if values is None:
            if self._row(thread_id) is None:
                raise ThreadNotFound(f"no thread {thread_id!r} in {self.where()}", thread_id)
            return []
        turns = builtins.list(values.get("turns") or [])
        if values.get("conversation") and values.get("answer") is not None:
            turns.append(turn_record(values))
        return turns

    def exists(self, thread_id: str) -> bool:
        """Does the store hold the thread?"""
        thread_id = check_thread_id(thread_id)
        return self._row(thread_id) is not None or self._state(thread_id) is not None

    def delete(self, thread_id: str, wait: float | None = None) -> None:
        """Remove the thread and its checkpoints (ThreadNotFound when there is none; ThreadBusy when it is still
        answering a turn after `wait` seconds)."""
        thread_id = check_thread_id(thread_id)
        with self.turn(thread_id, wait):
            if not self.exists(thread_id):
                raise ThreadNotFound(f"no thread {thread_id!r} in {self.where()}", thread_id)
            self._remove(thread_id)

    def _remove(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and registry row (the thread held)."""
        try:
            self.saver.delete_thread(thread_id)
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None
        with self._sql() as cur:
            cur.execute(f"DELETE FROM {REGISTRY} WHERE thread_id = ?", (thread_id,))

    def list_threads(self) -> builtins.list[ThreadInfo]:
        """Every thread of the store, the least recently used first, with its number of turns and last question."""
        out = []
        for tid, created, updated in self._rows():
            try:
                turns = self.read(tid)
            except ThreadNotFound:  # deleted meanwhile (another process)
                continue
            out.append(ThreadInfo(thread_id=tid, turns=len(turns),
                                  last_question=str(turns[-1]["question"]) if turns else "",
                                  created=created, updated=updated))
        return out

    def where(self) -> str:
        """The store, for messages."""
        return f"the thread store {self.path}" if self.path else "the in-memory thread store"

    def close(self) -> None:
        """Close the SQLite connection and the lock file (the store is unusable afterwards)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._meta is not None:
            self._meta.close()
        with self._guard:
            if self._lock_file is not None:
                self._lock_file.close()
                self._lock_file = None


_STORES: dict[str, ThreadStore] = {}
_STORES_LOCK = threading.Lock()


def store_for(cfg: Configuration) -> ThreadStore:
    """The process's thread store of the run's index (opened on first use)."""
    store = owned_store(cfg)
    assert store is not None  # created when absent
    return store


def owned_store(cfg: Configuration, owner: str = "", *, create: bool = True) -> ThreadStore | None:
    """The process's thread store of the run's index for `owner` (`owner_of`; '' the shared one), opened on first
    use; None when `create` is false and there is no such store yet (nothing is written then)."""
    path = store_path(cfg, owner)
    if not getattr(cfg, "threads_dir", "") and not path.parent.is_dir():
        raise IndexMissing(f"no finrag index at {path.parent} (run `finrag index PATH --index {path.parent}` first)")
    key = str(path.resolve()) if path.parent.exists() else str(path)
    with _STORES_LOCK:
        held = _STORES.get(key)
        if held is not None and held.gone():  # the file was deleted or replaced: the one at the path now
            del _STORES[key]
            held.close()
        if key not in _STORES:
            if not create and not path.exists():
                return None
            _STORES[key] = ThreadStore.sqlite(path)
        return _STORES[key]


def close_stores() -> None:
    """Close every thread store this process holds (they reopen on next use): a restart, for tests and tools."""
    with _STORES_LOCK:
        for opened in _STORES.values():
            opened.close()
        _STORES.clear()


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


__all__ = ["ThreadBounds", "ThreadBusy", "ThreadError", "ThreadExists", "ThreadInfo", "ThreadNotFound", "ThreadQuota",
           "ThreadStore", "ThreadStoreDamaged", "ThreadStoreGone", "ThreadStoreReadOnly", "ThreadStoreTampered",
           "check_thread_id", "close_stores", "damaged", "delete", "list_threads", "open_store", "owned_store", "owner_of", "read",
           "store_for", "store_path"]
