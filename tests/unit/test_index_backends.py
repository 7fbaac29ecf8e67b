"""The index seams of issue 32: both backends are `IndexBackend`s (`state/index_reader.py`), the section labels and
XBRL facts are backend methods, nothing outside `tools/indexing/` reads a store's private members or tells the
backends apart, the run's reader is looked up once per configuration without writing onto it, the module caches
are bounded, and the Milvus settings are handed in."""
from __future__ import annotations

import ast
import gc
import inspect
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.protocols import assert_member_like
from support.readers import MemoryReader

from finrag.state.configuration import Configuration
from finrag.state.index_reader import IndexBackend, IndexLabels, IndexReader
from finrag.state.schema import DocumentInfo
from finrag.state.settings import MilvusSettings
from finrag.tools.cache import LruCache
from finrag.tools.indexing import facts_store, sections_store
from finrag.tools.indexing.milvus import lex
from finrag.tools.indexing.milvus import schema as milvus_schema
from finrag.tools.indexing.milvus.store import MilvusStore
from finrag.tools.indexing.store import Store

REPO = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = ("app", "graphs", "nodes", "state", "tools", "eval")
ATTRIBUTES = {"index_dir", "embedder"}  # set by each backend's __init__, not on the class


def members(protocol) -> set[str]:
    names: set[str] = set()
    for klass in protocol.__mro__:
        if klass in (object,) or klass.__module__ == "typing":
            continue
        names |= {n for n, v in vars(klass).items()
                  if not n.startswith("_") and (inspect.isfunction(v) or isinstance(v, property))}
    return names


def test_the_backend_protocol_is_the_reader_with_its_labels_and_facts():
    assert members(IndexLabels) == {"sections_of", "facts_of"}
    assert members(IndexBackend) == members(IndexReader) | {"sections_of", "facts_of"}


@pytest.mark.parametrize("backend", [Store, MilvusStore])
def test_both_backends_have_every_backend_member_with_the_same_parameters(backend):
    for name in members(IndexBackend) - ATTRIBUTES:
        mine = next(vars(k)[name] for k in IndexBackend.__mro__ if name in vars(k))
        theirs = getattr(backend, name, None)
        assert theirs is not None, (backend.__name__, name)
        assert_member_like(mine, theirs, (backend.__name__, name))


# the public names of `Store` before it was split by concern (issue 32): other modules call them
STORE_API = {
    "add_prefixes", "add_segments", "build_ann", "build_faiss", "check_chunking", "check_embedder", "chunk_ids_of",
    "chunk_ranges", "chunking_params", "chunks_of", "close", "count_documents", "delete_prefixes", "docs_with_vectors",
    "document_hashes", "document_text", "documents", "embed_missing", "ensure_lexical", "faiss_index",
    "faiss_is_current", "flush_lexical", "forget_vector_rows", "generation", "get_chunks", "get_meta",
    "missing_prefix_chunks", "pages_of", "prefix_of", "remove_document", "replace_document", "search_fts",
    "search_vectors", "segment_texts", "set_meta", "stats", "sync_vectors", "update_document_info",
    "variant_status", "vector_coverage", "vector_file", "write_doc_vectors"}


def test_the_split_store_keeps_its_public_names_and_adds_the_backend_methods():
    public = {n for n in dir(Store) if not n.startswith("_")}
    assert STORE_API <= public
    assert public - STORE_API == {"sections_of", "facts_of", "save_sections", "backfill_sections", "save_facts",
                                  "segment_counts", "chunk_vectors", "read_connection", "stale_facts_docs",
                                  "search_fts_dicts", "search_vectors_dicts",  # the searches' hits as dicts (issue 37)
                                  "content_hash_of"}  # the file's hash as indexed, checked before its bytes are read
    for half in ("store_read", "store_write", "store_search"):
        assert any(k.__module__ == f"finrag.tools.indexing.{half}" for k in Store.__mro__), half


def _one_filing(store: Store) -> str:
    pages = ["ACME CORP FORM 10-K fiscal year 2023", "Item 7. Management's Discussion and Analysis\nRevenue grew.",
             "Item 8. Financial Statements\nTotal revenue 1,234"]
    info = DocumentInfo(doc_id="ACME_2023", path="/c/2023/ACME.pdf", company="Acme")
    starts, pos = [], 0
    for p in pages:
        starts.append(pos)
        pos += len(p) + 1
    chunks = [SimpleNamespace(ord=i, page_start=i, page_end=i, char_start=starts[i], char_end=starts[i] + len(p),
                              text=p) for i, p in enumerate(pages)]
    store.replace_document(info, "hash-1", pages, chunks, None, [(i, 1) for i in range(len(pages))])
    return info.doc_id


def test_a_store_keeps_its_labels_and_facts_and_answers_through_the_protocol(tmp_path):
    store = Store(tmp_path / "index", create=True)
    try:
        assert isinstance(store, IndexBackend)
        doc = _one_filing(store)
        assert store.facts_of(doc) is None and store.facts_of("NOPE") is None
        detected = store.sections_of(doc)  # none stored yet: detected from the pages
        assert sorted(detected) == [int(i) for i in store.chunk_ids_of([doc])]
        assert store.save_sections(doc, "hash-1", store.pages_of(doc)) == sum(1 for v in detected.values() if any(v))
        assert store.sections_of(doc) == detected == sections_store.sections_of(store, doc)
        assert store.backfill_sections() == 0  # labelled for its current content
        store.save_facts(doc, "hash-1", {"facts": [{"concept": "Revenues", "value": 1234}]})
        assert store.facts_of(doc) == facts_store.load_facts(store, doc) == {
            "facts": [{"concept": "Revenues", "value": 1234}]}
        store.save_facts(doc, "other-content", {"facts": []})  # facts of another content are never read
        assert store.facts_of(doc) is None
        assert store.segment_counts([doc]) == {doc: 3}
        assert store.sections_of("NOPE") == {}
    finally:
        store.close()


def test_a_reader_without_labels_gets_them_from_its_pages_and_has_no_facts(tmp_path):
    reader = MemoryReader(tmp_path, {"/c/2023/ACME.pdf": ["Acme Corp annual report", "Item 7. Management's Discussion",
                                                         "Item 8. Financial Statements"]})
    assert isinstance(reader, IndexReader) and not isinstance(reader, IndexLabels)
    doc = reader.infos[0].doc_id
    labels = sections_store.sections_of(reader, doc)
    assert labels == sections_store.labels_from_pages(reader, doc)
    assert sorted(labels) == [1, 2, 3]
    assert facts_store.load_facts(reader, doc) is None
    assert sections_store.sections_of(reader, "NOPE") == {}


# ------------------------------------------------------------------------------- what the tree must not do
PRIVATE = re.compile(r"\b(store|reader|index_reader|src_store|dst_store)\._[a-z]")
SNIFF = re.compile(r"hasattr\(\s*(self\.)?(store|reader)\b|\.backend\s*==|backend\s*=\s*[\"']milvus|"
                   r"getattr\(\s*(self\.)?(store|reader)\s*,\s*[\"'](?P<name>\w+)")


def sniffs(line: str) -> bool:
    """Does the line tell backends apart by what they have? (a `getattr` of a member every `IndexReader` has is
    only a roundabout read, not a test of the backend)"""
    m = SNIFF.search(line)
    return bool(m) and not (m.group("name") and m.group("name") in members(IndexReader))


def _package_files():
    for top in PACKAGE_FOLDERS:
        for path in sorted((REPO / top).rglob("*.py")):
            yield path, path.relative_to(REPO).as_posix()


def test_no_private_store_member_is_read_outside_the_indexing_package():
    found = [f"{rel}:{i}: {line.strip()}" for path, rel in _package_files() if not rel.startswith("tools/indexing/")
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if PRIVATE.search(line)]
    assert not found, "\n".join(found)


def test_no_code_tells_the_backends_apart_by_their_members():
    found = [f"{rel}:{i}: {line.strip()}" for path, rel in _package_files()
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if sniffs(line)]
    assert not found, "\n".join(found)


def test_the_patterns_catch_what_they_forbid():
    assert PRIVATE.search("rows = store._reader().execute(q)") and PRIVATE.search("with store._lock:")
    assert not PRIVATE.search("store.pages_of(doc)") and not PRIVATE.search("self._reader()")
    assert sniffs('if not hasattr(store, "_reader"):') and sniffs('getattr(store, "backend", "")')
    assert sniffs('key = str(getattr(store, "location", ""))') and sniffs('cache = getattr(store, "read_cache", None)')
    assert sniffs('if store.backend == "milvus":') and not sniffs("store.sections_of(doc)")


def test_every_store_parameter_of_the_query_path_is_typed():
    untyped = []
    for path, rel in _package_files():
        if not rel.startswith(("tools/indexing/", "tools/retrieval/", "tools/answering/fast_path.py",
                               "nodes/common.py")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                untyped += [f"{rel}:{node.lineno} {node.name}" for a in args
                            if a.arg in ("store", "reader") and a.annotation is None]
    assert not untyped, "\n".join(untyped)


# ------------------------------------------------------------------------------------ the run's reader
def test_the_run_reader_is_looked_up_once_per_configuration_and_not_written_onto_it(monkeypatch):
    from finrag.nodes import common

    opened: list[object] = []

    def open_index(cfg):
        opened.append(SimpleNamespace(cfg_dir=cfg.index_dir))
        return opened[-1]

    monkeypatch.setattr(common, "open_index", open_index)
    cfg = Configuration(index_dir="somewhere")
    first = common.reader_of(cfg)
    assert common.reader_of(cfg) is first and len(opened) == 1  # every node of the run reads the same index
    other = Configuration(index_dir="somewhere")
    assert common.reader_of(other) is not first and len(opened) == 2  # another run looks it up again
    assert not any(v is first for v in (cfg.__pydantic_private__ or {}).values())
    handed = MemoryReader("/nonexistent")
    assert common.reader_of(Configuration(index_reader=handed)) is handed and len(opened) == 2
    assert sum(any(r is o for o in opened) for r in common.RUN_READERS.readers()) == 2
    del cfg, other
    gc.collect()  # other tests' configurations may go too: count only this test's readers
    assert not any(any(r is o for o in opened) for r in common.RUN_READERS.readers())  # held while the run lives


# ----------------------------------------------------------------------------------------- bounded caches
def test_the_lru_cache_keeps_the_most_recently_used():
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # now the most recent
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2
    calls: list[str] = []
    assert cache.get_or_compute("d", lambda: calls.append("d") or 4) == 4
    assert cache.get_or_compute("d", lambda: calls.append("again") or 5) == 4 and calls == ["d"]
    with pytest.raises(ValueError):
        LruCache(0)


def test_the_module_caches_of_the_indexing_package_are_bounded():
    assert sections_store._MEMO.max_items == sections_store.MEMO_DOCUMENTS
    assert lex.term_key.cache_info().maxsize == lex.TERM_KEYS_KEPT
    assert lex.term_key("revenue") == lex.term_key("revenue") and 1 <= lex.term_key("revenue") <= 2 ** 32 - 2


# ---------------------------------------------------------------------------------------- Milvus settings
def test_the_milvus_settings_are_handed_in_and_read_once(monkeypatch, tmp_path):
    monkeypatch.setenv("FINRAG_MILVUS_PREFIX", "from_env")
    monkeypatch.setenv("FINRAG_MILVUS_CONSISTENCY", "Bounded")
    handed = MilvusSettings(prefix="handed", consistency="Session", avgdl_drift="0.05", bm25="function")
    loc = milvus_schema.parse_location(f"milvus:{tmp_path / 'x.db'}", handed)
    assert loc.prefix == "handed" and loc.settings is handed
    assert milvus_schema.consistency(loc.settings) == "Session" and milvus_schema.bm25_mode(handed) == "function"
    assert lex.drift_limit(handed) == 0.05
    assert milvus_schema.parse_location(f"milvus:{tmp_path / 'x.db'}").prefix == "from_env"  # else the environment's
    sources = [(REPO / "tools" / "indexing" / "milvus" / f).read_text(encoding="utf-8")
               for f in ("schema.py", "lex.py", "store.py", "writer.py")]
    assert sum(s.count("Settings()") for s in sources) == 0  # the default comes from state.settings.milvus_settings
