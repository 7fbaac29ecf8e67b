"""Issue 36: conversations on LangGraph threads over the demo index: the real SQLite checkpointer in tmp_path,
follow-ups resolved offline before routing, the contract's conversation fields, `finrag.threads`, `finrag chat`."""
from __future__ import annotations

import sqlite3

import pytest

from finrag import run_query

pytestmark = pytest.mark.usefixtures("fresh_index")


def turn(demo_index, store, question, thread="t1", system="hdrr"):
    return run_query(question, system, index=str(demo_index), thread_id=thread, threads=store)


def test_two_turns_inherit_company_and_measure(demo_index, thread_store):
    """Issue 36 case 1: "And in FY2023?" after a revenue question is answered as Acme's FY2023 revenue, routed to
    that filing, with resolved_question, conversation.inherited and the "Answering:" line."""
    first = turn(demo_index, thread_store, "What was Acme Widgets' total revenue in FY2022?")
    assert first.routing.routed_docs == ["ACMEWIDGETS_2022_10K"]
    assert first.resolved_question == first.question  # named everything itself: unchanged
    assert first.conversation.turn == 1 and first.conversation.inherited == {}
    assert not first.answer.startswith("Answering:")
    second = turn(demo_index, thread_store, "And in FY2023?")
    assert second.question == "And in FY2023?"
    assert second.resolved_question == "What was Acme Widgets' total revenue in FY2023?"
    assert second.routing.routed_docs == ["ACMEWIDGETS_2023_10K"] and second.routing.status == "exact_path"
    assert second.conversation.turn == 2 and second.conversation.inherited == {"company": 1, "measure": 1}
    assert second.answer.startswith("Answering: What was Acme Widgets' total revenue in FY2023?\n\n")
    assert "1,534.9" in second.answer


def test_five_turns_company_period_pronoun(demo_index, thread_store):
    """Issue 36 case 2: a five-turn thread (company change, period change, pronoun, new measure) routes every
    follow-up to the right filing; `finrag.threads` reads the five turns back."""
    convo = [("What was Acme Widgets' total revenue in FY2022?", "ACMEWIDGETS_2022_10K"),
             ("What about Cobalt?", "COBALTSOFTWARE_2022_10K"),
             ("How about 2023?", "COBALTSOFTWARE_2023_10K"),
             ("What was its net income?", "COBALTSOFTWARE_2023_10K"),
             ("Same for Borealis", "BOREALISENERGY_2023_10K")]
    for q, doc in convo:
        assert turn(demo_index, thread_store, q).routing.routed_docs == [doc], q
    turns = thread_store.read("t1")
    assert [t["turn"] for t in turns] == [1, 2, 3, 4, 5]
    assert [t["question"] for t in turns] == [q for q, _ in convo]
    assert turns[3]["resolved_question"] == "What was Cobalt Software's net income in FY2023?"
    assert turns[4]["resolved_question"] == "What was Borealis Energy's net income in FY2023?"
    assert all(t["routing"]["routed_docs"] == [doc] for t, (_, doc) in zip(turns, convo))
    assert turns[0]["citations"] and turns[0]["citations"][0]["doc_id"] == "ACMEWIDGETS_2022_10K"


def test_per_turn_keys_do_not_leak(demo_index, thread_store):
    """Issue 36 case 3: a checkpointed thread keeps all state, so each turn restarts the per-turn keys: the
    reducer keys (timings_ms summed, llm_calls appended) hold this turn only, and a CBR turn after an HDRR turn
    has no route of its own (not the HDRR turn's)."""
    turn(demo_index, thread_store, "What was Acme Widgets' total revenue in FY2022?")
    second = turn(demo_index, thread_store, "And in FY2023?")
    nodes = {k: v for k, v in second.timings_ms.items() if k != "total"}
    assert sum(nodes.values()) <= second.timings_ms["total"] + 1.0  # not turn 1's times added in
    values = thread_store.graph("hdrr").get_state({"configurable": {"thread_id": "t1"}}).values
    assert values["llm_calls"] == [] and len(values["turns"]) == 1
    cbr = turn(demo_index, thread_store, "What about Cobalt?", system="cbr")
    assert cbr.routing.status == "not_routed" and cbr.routing.routed_docs == []
    assert cbr.resolved_question == "What was Cobalt Software's total revenue in FY2023?"


def test_threads_are_isolated(demo_index, thread_store):
    """Issue 36 case 4: two threads on one store do not see each other's turns."""
    turn(demo_index, thread_store, "What was Acme Widgets' total revenue in FY2022?", thread="a")
    turn(demo_index, thread_store, "What was CBLT's net income for fiscal year 2022?", thread="b")
    a2 = turn(demo_index, thread_store, "And in FY2023?", thread="a")
    b2 = turn(demo_index, thread_store, "And in FY2023?", thread="b")
    assert a2.routing.routed_docs == ["ACMEWIDGETS_2023_10K"]
    assert b2.routing.routed_docs == ["COBALTSOFTWARE_2023_10K"]
    assert [t.thread_id for t in thread_store.list_threads()] == ["a", "b"]
    assert [len(thread_store.read(t)) for t in ("a", "b")] == [2, 2]


def test_unknown_thread_and_deletion(demo_index, thread_store):
    """Issue 36 case 5: reading or deleting an unknown thread is ThreadNotFound with one line; a deleted thread
    is gone and the next question on its id starts afresh (turn 1, nothing inherited)."""
    from finrag.threads import ThreadNotFound

    with pytest.raises(ThreadNotFound) as err:
        thread_store.read("nope")
    assert "nope" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ThreadNotFound):
        thread_store.delete("nope")
    turn(demo_index, thread_store, "What was Acme Widgets' total revenue in FY2022?")
    thread_store.delete("t1")
    with pytest.raises(ThreadNotFound):
        thread_store.read("t1")
    again = turn(demo_index, thread_store, "And in FY2023?")
    assert again.conversation.turn == 1 and again.conversation.inherited == {}
    assert again.resolved_question == "And in FY2023?"


def test_no_thread_unchanged(demo_index, thread_store):
    """Issue 36 case 6: without a thread nothing is resolved or stored: the answer, routing and contexts are
    those of the same question as a thread's first turn, with no resolved_question or conversation, the
    follow-up alone routes nowhere (no company), and no thread store is created beside the index."""
    q = "What was Acme Widgets' total revenue in FY2022?"
    plain, first = run_query(q, "hdrr", index=str(demo_index)), turn(demo_index, thread_store, q)
    assert "resolved_question" not in plain and "conversation" not in plain
    assert (plain.answer, plain.routing.routed_docs, [c.chunk_id for c in plain.contexts]) == \
        (first.answer, first.routing.routed_docs, [c.chunk_id for c in first.contexts])
    assert run_query("And in FY2023?", "hdrr", index=str(demo_index)).routing.routed_docs == []
    assert not (demo_index / "threads.sqlite").exists()


def test_damaged_store_is_reported(tmp_path):
    """Issue 36 case 7: a thread store SQLite cannot read is ThreadStoreDamaged (one line), never reset."""
    from finrag.threads import ThreadStore, ThreadStoreDamaged

    bad = tmp_path / "threads.sqlite"
    bad.write_bytes(b"not a database" * 100)
    with pytest.raises(ThreadStoreDamaged) as err:
        ThreadStore.sqlite(bad)
    assert "damaged" in str(err.value) and "\n" not in str(err.value)
    assert bad.read_bytes() == b"not a database" * 100
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(bad).execute("select * from checkpoints").fetchall()


def test_index_store_beside_the_index_and_async(tmp_path, demo_index):
    """Issue 36 case 8: with no store given the thread lives in `threads_dir` (or `<index>/threads.sqlite`), and
    arun_query continues the same thread."""
    import asyncio

    from finrag import arun_query, threads

    conf = {"threads_dir": str(tmp_path / "state")}
    run_query("What was Acme Widgets' total revenue in FY2022?", "hdrr", index=str(demo_index), thread_id="x",
              configurable=conf)
    res = asyncio.run(arun_query("And in FY2023?", "hdrr", index=str(demo_index), thread_id="x",
                                 configurable=conf))
    assert res.routing.routed_docs == ["ACMEWIDGETS_2023_10K"]
    assert list((tmp_path / "state").glob("*.threads.sqlite"))
    assert [t["turn"] for t in threads.read("x", str(demo_index), threads_dir=conf["threads_dir"])] == [1, 2]


def test_chat_piped(demo_index, tmp_path, monkeypatch, capsys):
    """Issue 36 case 11: `finrag chat` piped: one answer block per question line (a follow-up shows
    "Answering: ..."), `/system cbr` keeps the thread, `/new` starts a new one; nothing but answer blocks on
    stdout, exit 0; a damaged thread store is one line and exit 5."""
    import io

    from finrag.cli import main

    lines = ["What was Acme Widgets' total revenue in FY2022?", "And in FY2023?", "/system cbr", "What about Cobalt?",
             "/new", "And in FY2023?"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    rc = main(["chat", "--index", str(demo_index), "--threads-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.count("route: ") == 4, out
    assert "route: exact_path ACMEWIDGETS_2023_10K  (hdrr, turn 2)" in out
    assert "Answering: What was Acme Widgets' total revenue in FY2023?" in out
    assert "Answering: What was Cobalt Software's total revenue in FY2023?" in out and "(cbr, turn 3)" in out
    assert out.rstrip().endswith("(cbr, turn 1)")  # /new: a new thread, turn 1 again
    assert "finrag chat:" not in out and "finrag> " not in out  # no banner or prompt when piped
    from finrag import threads

    threads.close_stores()  # a restart: the stores close and reopen on next use
    store = next(tmp_path.glob("*.threads.sqlite"))
    store.write_bytes(b"garbage" * 200)
    monkeypatch.setattr("sys.stdin", io.StringIO("And in FY2022?\n"))
    assert main(["chat", "--index", str(demo_index), "--threads-dir", str(tmp_path)]) == 5
    err = capsys.readouterr().err
    assert "damaged" in err and len(err.strip().splitlines()) == 1


def test_chat_in_a_terminal(demo_index, tmp_path):
    """Issue 36 case 12: `finrag chat` driven in a pty: the prompt, a question, a follow-up answered as the
    resolved question, /quit, exit 0."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "finrag.cli", "chat", "--index", str(demo_index),
                             "--threads-dir", str(tmp_path), "--thread", "tty"],
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    seen = b""

    def until(marker: bytes, timeout: float = 60.0) -> None:
        nonlocal seen
        end = time.time() + timeout
        while marker not in seen:
            assert time.time() < end, seen.decode(errors="replace")[-2000:]
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break

    try:
        until(b"finrag> ")
        os.write(master, b"What was Acme Widgets' total revenue in FY2022?\n")
        until(b"(hdrr, turn 1)")
        os.write(master, b"And in FY2023?\n")
        until(b"(hdrr, turn 2)")
        assert b"Answering: What was Acme Widgets' total revenue in FY2023?" in seen
        os.write(master, b"/quit\n")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


def test_concurrent_turns_are_serialised_and_streamed(demo_index, thread_store):
    """Issue 36 case 13: turns sent at once on one thread run one after the other (turns 1..4, never two with
    the same number), and stream_answer / astream_answer continue the thread, their pieces adding up to the
    answer."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from finrag import astream_answer, stream_answer

    q = "What was Acme Widgets' total revenue in FY2022?"
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: turn(demo_index, thread_store, q, thread="busy"), range(4)))
    assert sorted(a.conversation.turn for a in answers) == [1, 2, 3, 4]
    assert [t["turn"] for t in thread_store.read("busy")] == [1, 2, 3, 4]
    pieces = list(stream_answer("And in FY2023?", "hdrr", index=str(demo_index), thread_id="busy", threads=thread_store))
    final = pieces[-1]
    assert "".join(pieces[:-1]) == final.answer and final.conversation.turn == 5
    assert final.routing.routed_docs == ["ACMEWIDGETS_2023_10K"]

    async def collect():
        return [p async for p in astream_answer("What about Cobalt?", "hdrr", index=str(demo_index),
                                                thread_id="busy", threads=thread_store)]

    apieces = asyncio.run(collect())
    assert "".join(apieces[:-1]) == apieces[-1].answer
    assert apieces[-1].resolved_question == "What was Cobalt Software's total revenue in FY2023?"


def test_chat_missing_index(tmp_path, monkeypatch, capsys):
    """Issue 36 case 15: a conversation on an index that does not exist is one line and exit 2, and no folder
    is created for its thread store."""
    import io

    from finrag.cli import main

    missing = tmp_path / "nowhere"
    monkeypatch.setattr("sys.stdin", io.StringIO("What was Acme Widgets' total revenue in FY2022?\n"))
    assert main(["chat", "--index", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "no finrag index" in err and len(err.strip().splitlines()) == 1
    assert not missing.exists()


def test_turn_numbers_go_on_after_the_turns_bound_trims_a_thread(demo_index, tmp_path):
    """Issue 36 (bounds): a thread keeping its latest 2 turns still numbers new turns 3, 4, 5 (the number comes
    from the previous turn, not from how many turns are kept), and only the latest turns are read back."""
    from finrag.threads import ThreadBounds, ThreadStore

    s = ThreadStore.sqlite(tmp_path / "bounded.sqlite", bounds=ThreadBounds(max_turns=2))
    try:
        questions = ["What was Acme Widgets' total revenue in FY2022?", "And in FY2023?", "What about Cobalt?",
                     "And in FY2022?", "What about Globex?"]
        numbers = [turn(demo_index, s, q).conversation.turn for q in questions]
        assert numbers == [1, 2, 3, 4, 5], numbers
        kept = s.read("t1")
        assert [t["turn"] for t in kept] == [4, 5], [t["turn"] for t in kept]
    finally:
        s.close()
