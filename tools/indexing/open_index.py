"""The per-process open index and its registry: the `IndexReader` every request shares when the caller hands none.

`open_index(cfg)` opens `cfg.index_dir` (a directory, or a `milvus:` location) once per process and returns
the same object to every later call; `open_reader(cfg)` opens one that the caller owns (and closes);
`registry_for(reader, alias_file)` is the routing registry of any `IndexReader`. The nodes reach them through
`finrag.nodes.common` (`reader_of`, `registry_of`), which use a reader handed in as
`Configuration.index_reader` first and this cache otherwise.

A server opens the index once; concurrent requests share it (each thread reads through its
own SQLite connection; the vector files are memory-mapped read-only). The registry is built
once per index generation (documents added or removed) and stored next to the index
(`registry.pickle`, keyed by the generation, the alias file and the routing code), so a
one-shot `finrag ask` loads it in milliseconds instead of rebuilding it. The stored copy is a
pickle read by an unpickler that loads only finrag's registry types and plain containers: a
file that names anything else is refused (one log line) and the registry rebuilt, nothing of
it run (issue 49 case 3).

An index changed in place (`finrag index` adding or removing filings) needs nothing: SQLite
readers see each commit and the registry follows the generation. An index replaced on disk
(deleted and built again, or another one moved into its place) is a new database file that an
open store never sees; a long-running process calls `forget_if_replaced(cfg)` once per request
(one `stat`) to drop such a store, and the next `open_index` opens the new file.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import pickle
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Union

from finrag.state.configuration import Configuration, resolve_index_dir
from finrag.state.index_reader import IndexReader
from finrag.tools.indexing.backend import is_milvus, location_key, open_store
from finrag.tools.indexing.embedders import get_embedder, resolve_spec
from finrag.tools.indexing.locking import unique_tmp
from finrag.tools.indexing.store_schema import DB_NAME
from finrag.tools.routing.continuation import registrant_prefixes
from finrag.tools.routing.registry import Registry
from finrag.tools.routing.words import zipf

if TYPE_CHECKING:
    from finrag.tools.indexing.milvus.store import MilvusStore
    from finrag.tools.indexing.store import Store
    from finrag.tools.routing.registry import Registry

OpenIndex = Union["Store", "MilvusStore"]  # what `open_index` opens: the embedded index or a Milvus one

_LOCK = threading.Lock()
_STORES: dict[tuple[str, str], OpenIndex] = {}
_OPENED: dict[tuple[str, str], tuple[int, int] | None] = {}  # (device, inode) of each open store's database file
_FORGOTTEN: "weakref.WeakSet[IndexReader]" = weakref.WeakSet()  # stores dropped by forget_if_replaced
_REGISTRIES: dict[str, tuple[tuple, Registry, weakref.ref]] = {}
REGISTRY_FILE = "registry.pickle"
log = logging.getLogger(__name__)


def _db_file_id(location: str) -> tuple[int, int] | None:
    """(device, inode) of an embedded index's database file, None when it has none."""

    try:
        st = os.stat(os.path.join(location, DB_NAME))
    except OSError:
        return None
    return st.st_dev, st.st_ino


def open_reader(cfg: Configuration) -> OpenIndex:
    """A newly opened index of `cfg.index_dir` (a directory or a `milvus:` location) with `cfg.embedder`
    attached (`auto`: the index's own), not cached: the caller owns it (hand it to a run as
    `Configuration(index_reader=...)`, and close it). `IndexMissing` when there is no index there,
    `EmbedderMismatch` when the embedder is not the index's."""

    store = open_store(cfg.index_dir or resolve_index_dir(cfg.index_dir), create=False)
    spec = resolve_spec(cfg.embedder, store.get_meta("embedder"))  # auto: the index's own embedder
    store.check_embedder(get_embedder(spec, device=cfg.embed_device))
    return store


def open_index(cfg: Configuration) -> OpenIndex:
    """The open index of `cfg.index_dir` with `cfg.embedder` (opened once per process and shared)."""

    key = (location_key(cfg.index_dir), cfg.embedder)  # a directory, or a milvus: location (issue 10)
    with _LOCK:
        store = _STORES.get(key)
        if store is None:
            # the file's identity before opening it: a file replaced in between is noticed at the next check
            opened = None if is_milvus(key[0]) else _db_file_id(key[0])
            store = open_reader(cfg)
            _STORES[key] = store
            if not is_milvus(key[0]):
                _OPENED[key] = opened
        return store


def forget_if_replaced(cfg: Configuration) -> OpenIndex | None:
    """Drop the open index of `cfg` when its database file is no longer the one that was opened (deleted, or
    another file moved into its place), so that the next `open_index(cfg)` opens the new one; returns the
    dropped store, None when nothing changed (always for Milvus). Costs one `stat`; never waits for another
    thread opening a store (it looks again next time). The dropped store is not closed: requests still running
    on it finish with it, and it closes when the last of them lets go of it."""

    key = (location_key(cfg.index_dir), cfg.embedder)
    opened = _OPENED.get(key, False)  # False: not open (or a Milvus index, which has no file)
    if opened is False or _db_file_id(key[0]) == opened:
        return None
    if not _LOCK.acquire(blocking=False):
        return None
    try:
        if key not in _OPENED or _db_file_id(key[0]) == _OPENED[key]:
            return None
        del _OPENED[key]
        store = _STORES.pop(key)
        _FORGOTTEN.add(store)
        return store
    finally:
        _LOCK.release()


def _code_stamp() -> str:
    """Names, sizes and mtimes of the modules a registry is built from: a stored registry of other code is rebuilt."""
    here = Path(__file__).resolve().parents[1]  # tools/
    files = sorted((here / "routing").glob("*.py")) + sorted((here / "routing" / "data").glob("*"))
    files.append(here.parent / "state" / "schema.py")
    h = hashlib.sha1()
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def _registry_key(store: IndexReader, alias: str | None, generation: int) -> dict:
    alias_stamp = None
    if alias:
        try:
            st = os.stat(alias)
            alias_stamp = [str(Path(alias).resolve()), st.st_size, st.st_mtime_ns]
        except OSError:
            alias_stamp = [str(alias), None, None]
    return {"generation": generation, "info": store.get_meta("info_generation", "0"), "alias": alias_stamp,
            "code": _code_stamp(), "documents": store.count_documents()}


_SAFE_BUILTINS = frozenset({("builtins", n) for n in ("set", "frozenset", "dict", "list", "tuple", "bytearray",
                                                      "bytes", "str", "int", "float", "bool", "complex")}
                           | {("collections", n) for n in ("OrderedDict", "defaultdict", "deque", "Counter")})
_DATA_MODULES = ("finrag.state.", "finrag.tools.routing.")


class _RegistryUnpickler(pickle.Unpickler):
    """Loads only finrag's registry types (classes defined in finrag's state and routing modules) and plain
    containers: a stored registry that names anything else (a tampered file: `os.system`) is refused, never run."""

    def find_class(self, module: str, name: str):  # noqa: D102
        if (module, name) in _SAFE_BUILTINS:
            return super().find_class(module, name)
        if module.startswith(_DATA_MODULES) and "." not in name:
            obj = super().find_class(module, name)
            if isinstance(obj, type) and obj.__module__ == module:
                return obj
        raise pickle.UnpicklingError(f"names {module}.{name}, which a finrag registry never holds")


def _load_stored(path: Path, key: dict):
    try:
        with path.open("rb") as fh:
            header = json.loads(fh.readline())
            if header != key:
                return None
            return _RegistryUnpickler(fh).load()
    except pickle.UnpicklingError as exc:
        log.warning("%s: %s; refused, nothing of it run (rebuilt from the index)", path, " ".join(str(exc).split()))
        return None
    except (OSError, ValueError, EOFError, AttributeError, ImportError, TypeError, IndexError, KeyError):
        return None


def _store(path: Path, key: dict, registry: Registry) -> None:
    buf = io.BytesIO()
    buf.write(json.dumps(key).encode() + b"\n")
    pickle.dump(registry, buf, protocol=pickle.HIGHEST_PROTOCOL)
    tmp = unique_tmp(path)
    try:
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
    except OSError:  # a read-only index directory: the registry stays in memory
        pass
    finally:
        tmp.unlink(missing_ok=True)


def registry_for(store: IndexReader, alias_file: str = "") -> Registry:
    """The registry of the store's documents (with `alias_file`, else the one the index recorded)."""
    alias = alias_file or store.get_meta("alias_file") or None
    key = f"{store.index_dir.resolve()}|{alias}"
    generation = store.generation
    stamp = (generation, store.get_meta("info_generation", "0"))
    with _LOCK:
        cached = _REGISTRIES.get(key)
        if cached is None or cached[0] != stamp or cached[2]() is not store:
            if store in _FORGOTTEN:  # an index replaced on disk: its directory's files are the new index's

                return Registry(store.documents(), alias_file=alias)
            stored_key = _registry_key(store, alias, generation)
            path = store.index_dir / (REGISTRY_FILE if not alias_file else
                                      f"registry-{hashlib.sha1(str(alias).encode()).hexdigest()[:12]}.pickle")
            registry = _load_stored(path, stored_key)
            if registry is None:

                registry = Registry(store.documents(), alias_file=alias)
                _store(path, stored_key, registry)
            cached = (stamp, registry, weakref.ref(store))
            _REGISTRIES[key] = cached
        return cached[1]


def prefetch(cfg: Configuration) -> threading.Thread:
    """Warm what a one-shot question will need in a background thread while the caller imports the graph:
    the open index, its stored registry, the query encoder's weights, routing's word-frequency list and SEC
    registrant list, and PyMuPDF (the statement reader's). Each is cached where the nodes look for it; errors are left for the
    question itself to meet and report. Join the thread before exiting."""

    def work() -> None:
        try:  # routing's word frequencies (a cached table; built from wordfreq's list on first use)

            zipf("revenue")
            registrant_prefixes("apple")  # and the SEC registrant list the linker reads for longer names
        except Exception:
            pass
        try:
            store = open_index(cfg)
            registry_for(store, cfg.alias_file)
            encoder = getattr(store.embedder, "_query_encoder", None)
            if encoder is not None:
                encoder()
        except Exception:
            pass
        try:
            import pymupdf  # noqa: F401
        except Exception:
            pass

    thread = threading.Thread(target=work, name="finrag-prefetch", daemon=True)
    thread.start()
    return thread


def reset() -> None:
    """Forget open stores (tests, and after an index is rebuilt under a live process)."""
    with _LOCK:
        for s in _STORES.values():
            try:
                s.close()
            except Exception:
                pass
        _STORES.clear()
        _OPENED.clear()
        _REGISTRIES.clear()
