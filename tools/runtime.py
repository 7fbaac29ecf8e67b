"""Process-wide handles: the open index and its registry, shared by every request.

A server opens the index once; concurrent requests share it (the Store serialises
SQLite access with a lock; FAISS searches are read-only). The registry is rebuilt
when the index's generation changes (documents added or removed).
"""
from __future__ import annotations

import threading

from finrag.state.configuration import Configuration, resolve_index_dir
from finrag.tools.indexing.store import Store

_LOCK = threading.Lock()
_STORES: dict[tuple[str, str], Store] = {}
_REGISTRIES: dict[str, tuple[int, object]] = {}


def get_store(cfg: Configuration) -> Store:
    """The open index of `cfg.index_dir` with `cfg.embedder` (opened once per process and shared)."""
    from finrag.tools.indexing.embedders import get_embedder

    index_dir = resolve_index_dir(cfg.index_dir)
    key = (str(index_dir.resolve()), cfg.embedder)
    with _LOCK:
        store = _STORES.get(key)
        if store is None:
            store = Store(index_dir, create=False)
            store.check_embedder(get_embedder(cfg.embedder))
            _STORES[key] = store
        return store


def get_registry(store: Store, alias_file: str = ""):
    """The registry of the store's documents (with `alias_file`, else the one the index recorded)."""
    from finrag.tools.routing.registry import Registry

    alias = alias_file or store.get_meta("alias_file") or None
    key = f"{store.index_dir.resolve()}|{alias}"
    with _LOCK:
        cached = _REGISTRIES.get(key)
        if cached is None or cached[0] != store.generation:
            cached = (store.generation, Registry(store.documents(), alias_file=alias))
            _REGISTRIES[key] = cached
        return cached[1]


def reset() -> None:
    """Forget open stores (tests, and after an index is rebuilt under a live process)."""
    with _LOCK:
        for s in _STORES.values():
            try:
                s.close()
            except Exception:
                pass
        _STORES.clear()
        _REGISTRIES.clear()
