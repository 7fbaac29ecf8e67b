"""Issue 49 case 4: a flood of empty `POST /threads` cannot evict conversations, and is limited per API key;
`finrag serve` without a key on an address other machines reach warns that threads are shared."""
from __future__ import annotations

import logging
import shutil

import httpx
import pytest
from support.servers import ThreadServer

QUESTION = "What was Acme Widgets' total revenue in FY2022?"


pytestmark = pytest.mark.usefixtures("fresh_threads")


def _turn(http, tid, headers):
    body = {"input": {"question": QUESTION}, "config": {"configurable": {"thread_id": tid}}}
    return http.post("/hdrr/invoke", json=body, headers=headers)


@pytest.mark.parametrize("keys", [None, ["key-a", "key-b"]])
def test_a_flood_of_empty_threads_evicts_no_conversation(demo_index, tmp_path, monkeypatch, keys):
    from finrag.server import create_app

    monkeypatch.setenv("FINRAG_THREADS_MAX_THREADS", "20")
    index = tmp_path / "index"
    shutil.copytree(demo_index, index)
    a = {"X-API-Key": keys[0]} if keys else {}
    b = {"X-API-Key": keys[1]} if keys else {}
    with ThreadServer(create_app(index, api_key=keys, warm_up=False)) as srv, \
            httpx.Client(base_url=srv.url, timeout=60) as http:
        for name, who in (("conv-a", a), ("conv-b", b)):  # one store without keys: two names
            assert http.post("/threads", json={"thread_id": name}, headers=who).status_code == 201
            assert _turn(http, name, who).status_code == 200
        made = [http.post("/threads", headers=b).status_code for _ in range(200)]
        assert made.count(429) >= 140, made  # at most 60 a minute per key
        assert set(made) <= {201, 429}
        for name, who in (("conv-a", a), ("conv-b", b)):  # both kept, the flooding key's own included
            got = http.get(f"/threads/{name}", headers=who)
            assert got.status_code == 200 and [t["question"] for t in got.json()["turns"]] == [QUESTION]
        if keys:
            assert http.post("/threads", headers=a).status_code == 201  # the other key's minute is its own


def test_a_full_store_of_conversations_refuses_a_new_thread(demo_index, tmp_path):
    from finrag import run_query
    from finrag.threads import ThreadBounds, ThreadQuota, ThreadStore

    store = ThreadStore.sqlite(tmp_path / "threads.sqlite", bounds=ThreadBounds(max_threads=2))
    try:
        store.create("a")  # never asked
        run_query(QUESTION, "sfr", index=str(demo_index), thread_id="b", threads=store)
        store.create("c", keep_conversations=True)  # room made of "a", not of the conversation "b"
        assert sorted(store.thread_ids()) == ["b", "c"]
        run_query(QUESTION, "sfr", index=str(demo_index), thread_id="c", threads=store)
        with pytest.raises(ThreadQuota) as err:
            store.create("d", keep_conversations=True)
        assert "delete one" in str(err.value) and "\n" not in str(err.value)
        assert sorted(store.thread_ids()) == ["b", "c"]
    finally:
        store.close()


@pytest.mark.parametrize("host, warned", [("0.0.0.0", True), ("192.168.1.5", True), ("127.0.0.1", False),
                                          ("localhost", False), ("::1", False)])
def test_serving_without_a_key_beyond_loopback_warns_threads_are_shared(caplog, host, warned):
    from finrag import serve_process

    with caplog.at_level(logging.WARNING, logger=serve_process.log.name):
        serve_process._log_start(host, 8000, "idx", None, 1)
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert bool(said) == warned, said
    if warned:
        assert "thread" in said[0] and "API key" in said[0]
    caplog.clear()
    serve_process._log_start(host, 8000, "idx", "k", 1)  # with a key: no warning
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
