"""`finrag fetch` against a loopback EDGAR (hand-written fixtures in SEC's formats, `tests/support/edgar/`):
fetch -> index -> ask, HTML filings retrieved with page numbers, resume after a SIGKILL, the rate limit on real
requests, and 404/429/500/malformed JSON as one-line errors."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.edgar_server import EdgarFixtureServer

from finrag.cli import main
from finrag.tools.edgar.fetch import plan_requests

REPO = Path(__file__).resolve().parents[2]
FINRAG = [sys.executable, "-m", "finrag.cli"]
UA = "Test Runner test@example.com"
ALL = ["--forms", "10-K,10-Q,8-K,earnings", "--years", "2021-2024"]
EXPECTED = {"CTSO/CTSO_2023_10K.htm", "CTSO/CTSO_2024Q1_10Q.htm", "NWTR/NWTR_2021_10K.htm", "NWTR/NWTR_2022_10K.htm",
            "NWTR/NWTR_2023Q2_10Q.htm", "NWTR/NWTR_2023_10K.htm", "NWTR/NWTR_2023_8K_dated-2023-05-15.htm",
            "NWTR/NWTR_2024_8K_dated-2024-01-25.htm", "NWTR/NWTR_2024_EARNINGS_dated-2024-01-25.htm"}


@pytest.fixture()
def edgar():
    with EdgarFixtureServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _user_agent(monkeypatch):
    monkeypatch.setenv("FINRAG_SEC_USER_AGENT", UA)
    monkeypatch.delenv("FINRAG_SEC_BASE_URL", raising=False)


def _files(out: Path) -> set[str]:
    return {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.suffix == ".htm"}


def _fetch(srv, out, *extra) -> int:
    return main(["fetch", "--base-url", srv.url, "--out", str(out), "-q", *extra])


@pytest.fixture(scope="module")
def fetched_index(tmp_path_factory):
    """One `finrag fetch ... --index` run (a subprocess, as a user runs it) over both fixture companies."""
    tmp = tmp_path_factory.mktemp("edgar")
    with EdgarFixtureServer() as srv:
        env = dict(os.environ, FINRAG_SEC_USER_AGENT=UA, HF_HUB_OFFLINE="1")
        r = subprocess.run([*FINRAG, "fetch", "--tickers", "NWTR,CTSO", *ALL, "--out", str(tmp / "out"),
                            "--index", str(tmp / "idx"), "--base-url", srv.url, "-q"],
                           capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
        requests = list(srv.requests)
    assert r.returncode == 0, r.stderr
    return tmp, r, requests


def test_fetch_writes_filings_with_exact_identity(fetched_index):
    tmp, r, requests = fetched_index
    out = tmp / "out"
    assert _files(out) == EXPECTED
    assert "fetched 9 filing(s), skipped 0 already fetched, failed 0; 2 companies, 9 filings matched; 14 requests" \
        in r.stdout
    # 1 ticker map + 2 submissions + 1 older submissions page + 8 documents + 2 for the earnings release
    assert len(requests) == 14 and {ua for _, _, ua in requests} == {UA}
    assert not any("nwt-20201231" in p or "s8.htm" in p for _, p, _ in requests)  # FY2020 and the S-8: not asked
    kinds = [json.loads(p.read_text())["kind"] for p in out.rglob("*.json")]
    assert plan_requests(2, kinds, older_pages=1) == len(requests)  # the cost model docs/indexing.md's estimate uses
    side = json.loads((out / "NWTR" / "NWTR_2021_10K.json").read_text())
    assert side["cik"] == 1111111 and side["company"] == "NORTHWIND TRADERS, INC." and side["form"] == "10-K"
    assert (side["fiscal_year"], side["fiscal_period"], side["period_end"]) == (2021, "FY", "2021-12-31")
    assert side["tickers"] == ["NWT"] and side["current_tickers"] == ["NWTR"]  # ticker at filing time vs today
    assert (side["accession"], side["filing_date"]) == ("0001111111-22-000007", "2022-02-23")
    assert side["source_url"].endswith("/Archives/edgar/data/1111111/000111111122000007/nwt-20211231.htm")
    q1 = json.loads((out / "CTSO" / "CTSO_2024Q1_10Q.json").read_text())
    assert (q1["fiscal_year"], q1["fiscal_period"], q1["period_of_report"]) == (2024, "Q1", "2023-12-30")
    er = json.loads((out / "NWTR" / "NWTR_2024_EARNINGS_dated-2024-01-25.json").read_text())
    assert er["kind"] == "earnings" and er["items"] == ["2.02", "9.01"] and er["source_url"].endswith("nwtr-ex991.htm")
    assert "Fourth Quarter and Fiscal 2023 Results" in (out / "NWTR" / "NWTR_2024_EARNINGS_dated-2024-01-25.htm").read_text()


def test_index_takes_identity_from_the_sidecars(fetched_index):
    from finrag.tools.indexing.store import Store

    tmp, _, _ = fetched_index
    store = Store(tmp / "idx")
    docs = {d.doc_id: d for d in store.documents()}
    store.close()
    assert set(docs) == {Path(f).stem for f in EXPECTED}
    d = docs["NWTR_2021_10K"]
    assert (d.company, d.form, d.fiscal_year, d.tickers) == ("Northwind Traders", "10K", 2021, ["NWT", "NWTR"])
    q = docs["CTSO_2024Q1_10Q"]
    assert (q.company, q.form, q.fiscal_year, q.quarter, q.period_end) == ("Contoso Devices", "10Q", 2024, 1,
                                                                          "2023-12-30")
    e = docs["NWTR_2024_EARNINGS_dated-2024-01-25"]
    assert (e.form, e.filed_date, e.items) == ("EARNINGS", "2024-01-25", ["2.02", "9.01"])


def test_round_trip_fetch_index_ask(fetched_index):
    from finrag.api import run_query

    tmp, _, _ = fetched_index
    idx = str(tmp / "idx")
    res = run_query("How many distribution centers does Northwind Traders operate?", system="hdrr", index_dir=idx)
    assert res["routing"]["routed_docs"] == ["NWTR_2023_10K"]
    assert "14 distribution centers" in res["answer"]
    assert {c["doc_id"] for c in res["contexts"]} == {"NWTR_2023_10K"}
    old = run_query("What were NWT's capital expenditures in FY2021?", system="hdrr", index_dir=idx)
    assert old["routing"]["routed_docs"] == ["NWTR_2021_10K"]  # the ticker it had then, from the sidecar
    cfo = run_query("In its May 2023 8-K, whom did Northwind Traders appoint as Chief Financial Officer?",
                    system="hdrr", index_dir=idx)
    assert cfo["routing"]["routed_docs"] == ["NWTR_2023_8K_dated-2023-05-15"] and "Maria Anders" in cfo["answer"]
    er = run_query("What fiscal 2024 revenue growth outlook did Northwind Traders give in its Q4 2023 earnings "
                   "release?", system="hdrr", index_dir=idx)
    assert er["routing"]["routed_docs"] == ["NWTR_2024_EARNINGS_dated-2024-01-25"] and "8% to 10%" in er["answer"]


def test_html_filings_are_retrieved_with_page_numbers(fetched_index, tmp_path):
    """Small chunks so the 4-page 10-K is several chunks: contexts carry the page the text is on."""
    from finrag.api import run_query

    src, _, _ = fetched_index
    idx = tmp_path / "idx"
    assert main(["index", str(src / "out" / "NWTR"), str(src / "out" / "CTSO"), "--index", str(idx), "-q",
                 "--chunk-size", "400", "--chunk-overlap", "200"]) == 0
    cases = [("How many distribution centers does Northwind Traders operate? FY2023", 1, "14 distribution centers"),
             ("Northwind Traders FY2023 total net revenue and gross profit table", 2, "Total net revenue | $4,812.6"),
             ("Northwind Traders total assets and long-term debt on the FY2023 balance sheet", 3, "Total assets | $3,918.4")]
    for question, page, text in cases:
        res = run_query(question, system="hdrr", index_dir=str(idx))
        assert res["routing"]["routed_docs"] == ["NWTR_2023_10K"], res["routing"]
        hits = [c for c in res["contexts"] if text in c["text"]]
        assert hits, [c["text"][:80] for c in res["contexts"]]
        assert all(c["page_start"] <= page <= c["page_end"] for c in hits)
        assert hits[0]["page_start"] == page or hits[0]["page_end"] == page
    cbr = run_query("Contoso Devices fiscal 2023 capital expenditures", system="cbr", index_dir=str(idx))
    top = cbr["contexts"][0]
    assert top["doc_id"] == "CTSO_2023_10K" and "$512.9 million" in top["text"]
    assert top["page_start"] <= 1 <= top["page_end"]  # the MD&A after the cover's page break


def test_resume_after_sigkill(tmp_path):
    """A real `finrag fetch` killed with SIGKILL while a download hangs; the rerun fetches only what is missing."""
    out = tmp_path / "out"
    slow = "/Archives/edgar/data/1111111/000111111124000004/nwtr-20240125.htm"  # the 5th download
    env = dict(os.environ, FINRAG_SEC_USER_AGENT=UA)
    with EdgarFixtureServer() as srv:
        srv.delay[slow] = 60
        proc = subprocess.Popen([*FINRAG, "fetch", "--tickers", "NWTR,CTSO", *ALL, "--out", str(out),
                                 "--base-url", srv.url, "-q"], env=env, cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while slow not in srv.paths() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert slow in srv.paths(), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        before = _files(out)
        assert len(before) == 4 and all((out / f).with_suffix(".json").is_file() for f in before)
        srv.delay.clear()
        n = len(srv.requests)
        assert _fetch(srv, out, "--tickers", "NWTR,CTSO", *ALL) == 0
        again = srv.paths()[n:]
    assert _files(out) == EXPECTED
    assert not list(out.rglob("*.part"))  # leftovers of the killed run are cleaned up
    assert all(json.loads(p.read_text())["document"] == p.with_suffix(".htm").name for p in out.rglob("*.json"))
    # the rerun: ticker map + 3 submissions pages + the 5 missing filings (the earnings release costs 2)
    assert len(again) == 4 + 6 and not any(p.endswith("nwt-20211231.htm") for p in again)


def test_requests_keep_to_the_rate_limit(edgar, tmp_path):
    """The real client against the server with a fake clock: no window of one (fake) second holds more than 10."""
    from finrag.tools.edgar.client import EdgarClient
    from finrag.tools.edgar.limiter import RateLimiter

    class Clock:
        now = 0.0

        def __call__(self):
            return self.now

        def sleep(self, s):
            self.now += s

    clock = Clock()
    with EdgarClient(UA, edgar.url, limiter=RateLimiter(10, 1.0, clock=clock, sleep=clock.sleep)) as client:
        stamps = []
        for _ in range(25):
            client.get(f"{edgar.url}/files/company_tickers.json")
            stamps.append(clock.now)
    assert len(edgar.requests) == 25 and stamps[9] == 0.0 and stamps[10] == 1.0 and stamps[-1] == 2.0
    assert all(sum(1 for u in stamps if t <= u < t + 1) <= 10 for t in stamps)


def test_429_and_500_are_retried_with_backoff(edgar, tmp_path):
    from finrag.tools.edgar.client import EdgarClient, EdgarError

    path = "/files/company_tickers.json"
    edgar.faults[path] = [429, 503, 500]
    waits: list[float] = []
    with EdgarClient(UA, edgar.url, sleep=waits.append, backoff=0.5) as client:
        assert client.get_json(f"{edgar.url}{path}")["0"]["ticker"] == "CTSO"
        assert waits == [0.0, 1.0, 2.0] and client.retries == 3  # Retry-After: 0 for the 429, then 0.5 * 2**n
        edgar.always[path] = 500
        with pytest.raises(EdgarError) as exc:
            client.get(f"{edgar.url}{path}")
    assert str(exc.value) == f"HTTP 500 for {edgar.url}{path} (gave up after 5 tries)"


def test_fault_lines(edgar, tmp_path, capsys):
    out = tmp_path / "out"
    # a 404 for one company's submissions and a 500 for one document: one line each, the rest is fetched
    edgar.always["/submissions/CIK0002222222.json"] = 404
    edgar.always["/Archives/edgar/data/1111111/000111111123000008/nwtr-20221231.htm"] = 500
    from finrag.tools.edgar import client as client_mod

    orig = client_mod.EdgarClient.__init__

    def fast(self, *a, **k):  # no real backoff waits in a test
        orig(self, *a, **{**k, "sleep": lambda s: None})

    client_mod.EdgarClient.__init__ = fast
    try:
        code = _fetch(edgar, out, "--tickers", "NWTR,CTSO,ZZZZ", "--forms", "10-K", "--years", "2021-2024")
    finally:
        client_mod.EdgarClient.__init__ = orig
    cap = capsys.readouterr()
    failed = [ln for ln in cap.err.splitlines() if ln.startswith("failed")]
    assert code == 1 and len(cap.err.splitlines()) == 3 and "Traceback" not in cap.err
    assert any(ln.startswith("failed  ZZZZ: ticker not in SEC's company_tickers.json") for ln in failed)
    assert any("CTSO" in ln and "HTTP 404 (not found)" in ln for ln in failed)
    assert any("0001111111-23-000008" in ln and "HTTP 500" in ln and "gave up after 5 tries" in ln for ln in failed)
    assert _files(out) == {"NWTR/NWTR_2021_10K.htm", "NWTR/NWTR_2023_10K.htm"}
    assert "fetched 2 filing(s), skipped 0 already fetched, failed 3" in cap.out


def test_malformed_json_and_usage_errors_are_one_line(edgar, tmp_path, capsys, monkeypatch):
    edgar.faults["/files/company_tickers.json"] = ["malformed"]
    assert _fetch(edgar, tmp_path / "o", "--tickers", "NWTR", "--years", "2023") == 1
    err = capsys.readouterr().err
    assert err.startswith("finrag: error: malformed JSON from ") and len(err.splitlines()) == 1
    edgar.faults["/submissions/CIK0001111111.json"] = ["malformed"]
    assert _fetch(edgar, tmp_path / "o", "--ciks", "1111111", "--years", "2023") == 1
    err = capsys.readouterr().err
    assert err.startswith("failed  CIK 1111111: malformed JSON from ") and len(err.splitlines()) == 1
    monkeypatch.delenv("FINRAG_SEC_USER_AGENT")
    assert _fetch(edgar, tmp_path / "o", "--tickers", "NWTR", "--years", "2023") == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "FINRAG_SEC_USER_AGENT=" in err and "--user-agent" in err
    assert _fetch(edgar, tmp_path / "o", "--tickers", "NWTR", "--years", "2023", "--user-agent", "bot") == 2
    assert "needs a name and an e-mail" in capsys.readouterr().err
    assert _fetch(edgar, tmp_path / "o", "--tickers", "NWTR", "--years", "21-24", "--user-agent", UA) == 2
    assert _fetch(edgar, tmp_path / "o", "--tickers", "NWTR", "--years", "2023", "--forms", "10-X",
                  "--user-agent", UA) == 2
    errs = capsys.readouterr().err.splitlines()
    assert len(errs) == 2 and "bad --years" in errs[0] and "unknown form '10-X'" in errs[1]
    assert main(["fetch", "--base-url", "ftp://mirror", "--out", str(tmp_path / "o"), "--tickers", "NWTR",
                 "--years", "2023", "--user-agent", UA]) == 2
    assert capsys.readouterr().err == "finrag: error: bad EDGAR base URL 'ftp://mirror': expected http(s)://host[:port][/path]\n"
    r = subprocess.run([*FINRAG, "fetch", "--tickers", "NWTR", "--years", "2023", "--out", str(tmp_path / "o2"),
                        "--base-url", "http://127.0.0.1:9"], capture_output=True, text=True, cwd=REPO, timeout=120,
                       env=dict(os.environ, FINRAG_SEC_USER_AGENT=UA))
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "ConnectError" in r.stderr and "gave up after 5 tries" in r.stderr


def test_dry_run_lists_and_prices_without_downloading(edgar, tmp_path, capsys):
    out = tmp_path / "out"
    tickers = tmp_path / "tickers.txt"
    tickers.write_text("# two fixture companies\nNWTR|Northwind Traders, Inc.\nCTSO, nwtr  # NWTR twice\n")
    assert _fetch(edgar, out, "--tickers-file", str(tickers), *ALL, "--dry-run") == 0
    text = capsys.readouterr().out
    assert "dry run: would fetch 9 filing(s) with 10 requests (about 1 s at 10 requests/s)" in text
    assert "2 companies" in text and "listing took 4 requests" in text  # NWTR twice is one company
    assert len(edgar.requests) == 4 and _files(out) == set()
