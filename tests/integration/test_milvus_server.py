"""The Milvus backend over the network (issue 51): a real Milvus gRPC server process (`milvus-lite server`, the
server Milvus Lite ships, on a loopback port), beside the Lite-file tests of test_milvus.py. `milvus://HOST:PORT/DB`
creates its database on the first write; copy, `finrag index` (incremental, `--remove`), `finrag info` and the
six systems' answers work against it."""
from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

from support.servers import free_port, stop_process  # noqa: E402

from finrag.cli import main  # noqa: E402
from finrag.graphs import SYSTEMS  # noqa: E402

SERVER = Path(sys.executable).with_name("milvus-lite")


@pytest.fixture(scope="module")
def milvus_server(tmp_path_factory):
    """`milvus-lite server` on a free loopback port: yields 'HOST:PORT'."""
    if not SERVER.exists():
        pytest.skip(f"no Milvus server binary here ({SERVER} is missing: milvus-lite is not installed with it)")
    port = free_port()
    data = tmp_path_factory.mktemp("milvus-server")
    proc = subprocess.Popen([str(SERVER), "server", "--data-dir", str(data / "data"), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                pytest.skip(f"milvus-lite server cannot run here (exit {proc.returncode}): {out[-300:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        else:
            pytest.fail("milvus-lite server did not listen within 60 s")
        yield f"127.0.0.1:{port}"
    finally:
        stop_process(proc)


pytestmark = pytest.mark.usefixtures("fresh_index")


@pytest.fixture(scope="module")
def server_index(milvus_server, demo_index) -> str:
    """The demo index copied with `finrag copy` into a database the server does not have yet."""
    loc = f"milvus://{milvus_server}/fin"
    assert main(["copy", str(demo_index), loc, "-q"]) == 0
    return loc


def test_copy_creates_the_database_and_carries_everything(milvus_server, server_index, demo_index, capsys):
    from pymilvus import MilvusClient

    from finrag.tools.indexing.backend import open_store

    client = MilvusClient(uri=f"http://{milvus_server}")
    try:
        assert "fin" in client.list_databases()
    finally:
        client.close()
    emb, mil = open_store(str(demo_index)), open_store(server_index)
    try:
        assert [d.doc_id for d in mil.documents()] == [d.doc_id for d in emb.documents()]
        doc = emb.documents()[0].doc_id
        assert mil.pages_of(doc) == emb.pages_of(doc)
        assert mil.stats()["chunks"] == emb.stats()["chunks"]
    finally:
        emb.close()
        mil.close()
    capsys.readouterr()
    assert main(["copy", str(demo_index), server_index, "-q"]) == 0  # again: nothing to do
    assert "copied 0 document(s)" in capsys.readouterr().out


def test_info_on_a_server_has_no_size_on_disk_and_no_traceback(server_index, capsys):
    assert main(["info", "--index", server_index]) == 0
    out = capsys.readouterr().out
    assert "documents  6" in out and "size       not reported" in out, out
    assert main(["info", "--index", server_index, "--json"]) == 0
    assert '"size_bytes": null' in capsys.readouterr().out


def test_a_database_the_server_lacks_is_one_line_for_a_reader(milvus_server, capsys):
    rc = main(["info", "--index", f"milvus://{milvus_server}/nothing_here"])
    err = capsys.readouterr().err
    assert rc != 0 and "no finrag index at" in err and "'nothing_here'" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_system_answers_from_the_server_as_from_the_embedded_index(server_index, demo_index, demo_qas, system):
    from finrag import run_query

    q = demo_qas[0]
    here = run_query(q["question"], system, index_dir=str(demo_index))
    there = run_query(q["question"], system, index_dir=server_index)
    assert "error" not in there, there.get("error")
    assert there["routing"]["routed_docs"] == here["routing"]["routed_docs"]
    assert [(c["doc_id"], c["page_start"]) for c in there["contexts"]] == \
           [(c["doc_id"], c["page_start"]) for c in here["contexts"]]
    assert there["answer"] == here["answer"]


def test_index_into_a_server_database_is_incremental_and_removes(milvus_server, demo_corpus, tmp_path, capsys):
    from finrag.tools.indexing.backend import open_store

    folder = tmp_path / "two"
    folder.mkdir()
    for pdf in sorted(demo_corpus[1])[:2]:
        shutil.copy(pdf, folder)
    loc = f"milvus://{milvus_server}/ix"
    assert main(["index", str(folder), "--index", loc, "-q", "--workers", "1"]) == 0
    assert "copied 2 document(s)" in capsys.readouterr().out
    assert main(["index", str(folder), "--index", loc, "-q", "--workers", "1"]) == 0
    assert "unchanged 2" in capsys.readouterr().out
    mil = open_store(loc)
    doc = mil.documents()[0].doc_id
    mil.close()
    assert main(["index", "--remove", doc, "--index", loc, "-q"]) == 0
    assert f"removed {doc} from {loc}" in capsys.readouterr().out
    mil = open_store(loc)
    try:
        assert len(mil.documents()) == 1 and doc not in mil.document_hashes()
        assert mil.search_fts("revenue", 5, [doc]) == [] and mil.search_fts("revenue", 5)
    finally:
        mil.close()
