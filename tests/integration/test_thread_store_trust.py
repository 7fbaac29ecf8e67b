"""Issue 49 cases 3, 6, 7, 8 and 11: the thread store loads only finrag's and LangGraph's types, notices its file
deleted or replaced, says "read-only" for a store it cannot write, keeps a thread as it was after a failed turn,
and takes only visible one-line thread ids."""
from __future__ import annotations

import logging
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys

import ormsgpack
import pytest

from finrag import run_query, threads
from finrag.threads import ThreadError, ThreadStore, ThreadStoreDamaged
from finrag.tools.indexing import open_index

Q1, Q2 = "What was Acme Widgets' total revenue in FY2022?", "And in FY2023?"


pytestmark = pytest.mark.usefixtures("fresh_threads")


def _turn(demo_index, store, question, thread="t1", **kw):
    return run_query(question, "hdrr", index=str(demo_index), thread_id=thread, threads=store, **kw)


# ------------------------------------------------------------------ case 3: no code from the store
def _plant(db, marker):
    """Rewrite the thread's latest checkpoint so that one value is a msgpack constructor extension calling
    os.system (what an attacker who can write the store would do)."""
    conn = sqlite3.connect(db)
    rowid, blob = conn.execute("SELECT rowid, checkpoint FROM checkpoints ORDER BY checkpoint_id DESC").fetchone()
    raw = ormsgpack.unpackb(blob, ext_hook=lambda code, data: ormsgpack.Ext(code, data),
                            option=ormsgpack.OPT_NON_STR_KEYS)
    call = ormsgpack.Ext(1, ormsgpack.packb(["os", "system", [f"touch {marker}"]]))  # EXT_CONSTRUCTOR_POS_ARGS
    raw["channel_values"]["question"] = call
    conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE rowid = ?", (ormsgpack.packb(raw), rowid))
    conn.commit()
    conn.close()


def test_a_tampered_checkpoint_is_refused_never_run(demo_index, tmp_path):
    db = tmp_path / "threads.sqlite"
    s = ThreadStore.sqlite(db)
    _turn(demo_index, s, Q1)
    s.close()
    marker = tmp_path / "ran"
    _plant(db, marker)
    s = ThreadStore.sqlite(db)
    try:
        for attempt in (s.list_threads, lambda: s.read("t1"), lambda: _turn(demo_index, s, Q2)):
            with pytest.raises(ThreadStoreDamaged) as err:
                attempt()
            assert "os.system" in str(err.value) and "refused" in str(err.value) and "\n" not in str(err.value)
    finally:
        s.close()
    assert not marker.exists(), "the planted os.system call ran"


def test_a_follow_up_logs_no_unregistered_type_warning(demo_index, thread_store, caplog):
    """`finrag chat` printed "Deserializing unregistered type finrag.state.question.QuestionFacts" on every
    follow-up: LangGraph's default serializer loads any type, with that warning."""
    from langgraph.checkpoint.serde import jsonplus
    from langgraph.checkpoint.serde.event_hooks import register_serde_event_listener

    jsonplus._warned_unregistered_types.clear()  # LangGraph warns once per process and type
    events = []
    remove = register_serde_event_listener(events.append)
    try:
        with caplog.at_level(logging.WARNING):
            _turn(demo_index, thread_store, Q1)
            res = _turn(demo_index, thread_store, Q2)
            thread_store.list_threads()
    finally:
        remove()
    assert res.routing.routed_docs == ["ACMEWIDGETS_2023_10K"]  # the follow-up read its facts back
    assert not [r for r in caplog.records if "unregistered type" in r.getMessage()]
    assert not [e for e in events if e.get("kind") == "msgpack_unregistered_allowed"], events


def test_a_tampered_registry_pickle_is_refused_never_run(demo_index, tmp_path, caplog):
    from finrag.tools.indexing.store import Store

    index = tmp_path / "index"
    shutil.copytree(demo_index, index)
    store = Store(index)
    open_index.registry_for(store)  # stored beside the index
    path = index / open_index.REGISTRY_FILE
    header = path.read_bytes().split(b"\n", 1)[0]
    marker = tmp_path / "ran"

    class Boom:
        def __reduce__(self):
            return os.system, (f"touch {marker}",)

    path.write_bytes(header + b"\n" + pickle.dumps(Boom()))
    open_index._REGISTRIES.clear()
    with caplog.at_level(logging.WARNING):
        registry = open_index.registry_for(store)
    store.close()
    assert not marker.exists(), "the planted os.system call ran"
    assert registry.get("ACMEWIDGETS_2022_10K") is not None  # rebuilt from the index
    assert any("refused" in r.getMessage() and "os" in r.getMessage() for r in caplog.records)


# ------------------------------------------------------------------ cases 6 and 7: the store's file
def test_a_store_deleted_while_serving_is_reopened_not_written_unlinked(demo_index, tmp_path):
    index = tmp_path / "index"
    shutil.copytree(demo_index, index)
    run_query(Q1, "hdrr", index=str(index), thread_id="a")
    db = index / threads.STORE_NAME
    for f in index.glob(threads.STORE_NAME + "*"):
        f.unlink()
    run_query(Q1, "hdrr", index=str(index), thread_id="b")  # a new store at the path, not the unlinked file
    assert db.exists()
    threads.close_stores()  # a restart: the stores close and reopen on next use
    assert [t.thread_id for t in threads.list_threads(str(index))] == ["b"]


def test_a_turn_on_a_replaced_store_is_refused(demo_index, tmp_path, thread_store):
    _turn(demo_index, thread_store, Q1)
    other = tmp_path / "other.sqlite"
    ThreadStore.sqlite(other).close()
    os.replace(other, tmp_path / "threads.sqlite")
    with pytest.raises(threads.ThreadStoreGone) as err:
        _turn(demo_index, thread_store, Q2)
    assert "replaced" in str(err.value) and "\n" not in str(err.value)


def _read_only(folder):
    """Make `folder` read-only: a read-only tmpfs remount as root, else permissions."""
    if os.geteuid() != 0:
        for f in folder.iterdir():
            f.chmod(0o444)
        folder.chmod(0o555)
        return None
    if subprocess.run(["mount", "-o", "remount,ro", str(folder)], capture_output=True).returncode:
        pytest.skip("cannot remount a tmpfs read-only here")
    return folder


def test_a_read_only_store_says_read_only_and_reads(demo_index, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)],
                                            capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (root without the privilege)")
    try:
        s = ThreadStore.sqlite(folder / "threads.sqlite")
        _turn(demo_index, s, Q1)
        s.close()
        _read_only(folder)
        s = ThreadStore.sqlite(folder / "threads.sqlite")
        assert [t["question"] for t in s.read("t1")] == [Q1]  # reads still work
        assert [t.thread_id for t in s.list_threads()] == ["t1"]
        for attempt in (lambda: _turn(demo_index, s, Q2), lambda: s.create("t2")):
            with pytest.raises(ThreadStoreDamaged) as err:
                attempt()
            text = str(err.value)
            assert "read-only" in text and "damaged" not in text and "move it away" not in text, text
        s.close()
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], capture_output=True)
        else:
            folder.chmod(0o755)


# ------------------------------------------------------------------ case 8: a failed turn
def test_a_failed_turn_leaves_the_thread_as_it_was(demo_index, thread_store, monkeypatch):
    from support.openai_stub import OpenAIStub

    from finrag.tools.llm.calls import LLMError

    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with OpenAIStub() as stub:
        conf = stub.configurable(llm_max_retries=0)
        _turn(demo_index, thread_store, Q1, configurable=conf)
        before = thread_store.read("t1")
        stub.mode = "http500"  # the router LLM fails: a 502 from the server
        with pytest.raises(LLMError):
            _turn(demo_index, thread_store, "What was Borealis Energy's net income in FY2023?", configurable=conf)
        assert thread_store.read("t1") == before
        stub.mode = "ok"
        res = _turn(demo_index, thread_store, Q2, configurable=conf)
    assert res.conversation.turn == 2  # the failed turn took no number (the stub's resolution is its own)
    assert [t["question"] for t in thread_store.read("t1")] == [Q1, Q2]


# ------------------------------------------------------------------ case 11: thread ids
@pytest.mark.parametrize("tid", ["a\x7fb", "a\u2028b", "a\u0085b", "a\u202eb", "a\u200bb", "a\x1bb", "\ufeffa",
                                 " lead", "lead ", "a\u2029b"])
def test_thread_ids_with_invisible_characters_or_surrounding_spaces_are_refused(thread_store, tid):
    with pytest.raises(ThreadError) as err:
        thread_store.create(tid)
    assert "\n" not in str(err.value)
    assert thread_store.thread_ids() == []


def test_a_visible_thread_id_is_kept_as_typed(thread_store):
    assert thread_store.create("lead-é 中文 a b") == "lead-é 中文 a b"


def test_a_registrant_name_is_shown_escaped():
    from finrag.tools.visible import shown

    assert shown("Acme\u202e Corp\u200b") == "Acme\\u202e Corp\\u200b"
    assert shown("Société Générale") == "Société Générale"
    assert shown("line\nnext", keep="\n") == "line\nnext"


def test_a_registrant_name_with_a_bidi_override_is_escaped_in_answers_and_on_the_page():
    from finrag.api import to_answer
    from finrag.state.schema import DocumentInfo
    from finrag.web_pages import _label

    name = "Evil\u202eCorp"
    state = {"answer": f"{name}'s FY2022 total revenue was $5.0 million [EVIL_2022_10K, p. 1].\nSource: p. 1"}
    got = to_answer(state, system="hdrr", qid="q", question="?", total_ms=1.0).answer
    assert "\u202e" not in got and "Evil\\u202eCorp's" in got and "\n" in got  # newlines kept
    info = DocumentInfo(doc_id="EVIL_2022_10K", company=name, form="10K", period="2022")
    assert _label(info, info.doc_id) == "Evil\\u202eCorp 10-K 2022"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
