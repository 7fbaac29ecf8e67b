"""Issue 24: the answer page of `finrag serve` (app/web.py), on a real server and in a real browser.

Before: the only page was LangServe's playground, whose output was three JSON objects glued together with the
answer under the routing; nothing opened the cited page, and `/docs` and `/redoc` were blank offline (their
scripts came from a CDN). Now `/` is an answer page (question, system picker, two systems side by side,
citation chips that open the filing's page as an image with the cited passage highlighted, routing, cost and
context panels), `/documents` lists the filings with where each identity field came from, page images and
texts are served only for ids and pages the index holds, `/docs` and `/redoc` use shipped files, and the
playground prints the answer first.

The browser is Debian's `chromium`, driven over the DevTools protocol (tests/support/headless.py; `.ci/install`
installs it); without it the browser tests are skipped with the reason. Screenshots go to the test's
temporary folder, and to $FINRAG_SCREENSHOT_DIR when set (those in docs/serving.md come from
`FINRAG_SCREENSHOT_DIR=docs/screenshots pytest tests/integration/test_web_page.py`).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx
import pytest
from support.browser import click, close_tab, needs_browser, open_tab
from support.openai_stub import OpenAIStub
from support.servers import ThreadServer

pytestmark = pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance")

QUESTION = "What was Acme Widgets' total revenue in FY2022?"
FIGURE = "1,476.2"
UNKNOWN = "What was Globex Corp's revenue in 2022?"
KEY = "web-page-key"
HTML_FILING = """<html><head><title>Northwind Traders 10-K 2023</title><script>document.title = "x";</script></head><body>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>Washington, D.C. 20549</p><p>FORM 10-K</p>
<p>ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934</p>
<p>For the fiscal year ended December 31, 2023</p>
<p>Northwind Traders, Inc.</p><p>(Exact name of registrant as specified in its charter)</p>
<table><tr><td>Title of each class</td><td>Trading Symbol(s)</td><td>Name of each exchange on which registered</td></tr>
<tr><td>Common Stock</td><td>NWTD</td><td>Nasdaq Global Select Market</td></tr></table>
<div style="page-break-after: always"></div>
<h2>Item 7. Management's Discussion and Analysis</h2>
<p>Results of Operations. Total revenue for fiscal 2023 was $812.4 million, an increase of 6.1% compared with
$765.7 million in fiscal 2022, driven by specialty foods and higher volumes in our wholesale channel.</p>
<div style="page-break-after: always"></div>
<h2>Item 8. Financial Statements</h2>
<table><tr><td>(In millions)</td><td>2023</td><td>2022</td></tr>
<tr><td>Total revenue</td><td>812.4</td><td>765.7</td></tr><tr><td>Net income</td><td>58.2</td><td>49.9</td></tr></table>
</body></html>
"""


# ----------------------------------------------------------------------------------------------- servers
# ----------------------------------------------------------------------------------------------- browser
def choose(page, selector: str, value: str) -> None:
    page.eval(f"""(() => {{ const s = document.querySelector({json.dumps(selector)}); s.value = {json.dumps(value)};
        s.dispatchEvent(new Event("change", {{bubbles: true}})); return true; }})()""")


def shot(page, tmp_path: Path, name: str) -> Path:
    path = page.screenshot(tmp_path / name)
    folder = os.environ.get("FINRAG_SCREENSHOT_DIR")
    if folder:  # docs/serving.md's copies: 256 colours, a third of the size
        from PIL import Image

        Path(folder).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as img:
            img.convert("RGB").quantize(256).save(Path(folder) / name, optimize=True)
    assert path.stat().st_size > 10_000, f"{name} looks empty"
    return path


def ask(page, question: str, *, compare: str | None = None, timeout: float = 60) -> list[dict]:
    """Type the question, set the comparison, click Ask and wait for every result card to finish."""
    page.type_into("#question", question)
    checked = page.eval("document.querySelector('#compare').checked")
    if bool(compare) != bool(checked):
        click(page, "#compare")
    if compare:
        choose(page, "#system-b", compare)
    page.eval("document.querySelectorAll('.result').forEach(r => { r.dataset.stale = '1'; }); true")
    click(page, "#ask-button")
    n = 2 if compare else 1
    page.wait_for(f"!document.querySelector('.result[data-stale]') && document.querySelectorAll('.result').length === {n}"
                  " && [...document.querySelectorAll('.result')].every(r => ['done', 'error'].includes(r.dataset.state))",
                  timeout)
    return page.eval("""[...document.querySelectorAll('.result')].map(r => ({system: r.dataset.system,
        state: r.dataset.state, ms: Number(r.dataset.ms || 0), tokens: Number(r.dataset.tokens || 0),
        fromAsked: r.dataset.fromAsked, text: r.innerText, answer: r.querySelector('.answer').innerText,
        error: r.querySelector('.error-box').hidden ? '' : r.querySelector('.error-box').innerText,
        chips: [...r.querySelectorAll('.answer .chip')].map(c => c.innerText)}))""")


def open_chip(page, selector: str = ".answer .chip", index: int = 0) -> dict:
    click(page, selector, index)
    page.wait_for("!document.querySelector('#viewer').hidden && document.querySelector('#page-frame').dataset.state"
                  " === 'ready'", 60)
    return page.eval("""({label: document.querySelector('#viewer-page').innerText,
        title: document.querySelector('#viewer-title').innerText,
        ms: Number(document.querySelector('#page-frame').dataset.ms),
        passage: document.querySelectorAll('#page-boxes .hl.passage').length,
        marks: document.querySelectorAll('#page-boxes .hl.mark').length,
        width: document.querySelector('#page-img').naturalWidth,
        src: document.querySelector('#page-img').src,
        note: document.querySelector('#viewer-note').hidden ? '' : document.querySelector('#viewer-note').innerText})""")


# ---------------------------------------------------------------------------------------------- HTTP only
def test_root_is_the_page_for_browsers_and_json_for_api_clients(demo_server):
    page = httpx.get(f"{demo_server}/", headers={"accept": "text/html,application/xhtml+xml"}, timeout=30)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), page.text[:200]
    assert 'id="question"' in page.text and 'id="system-a"' in page.text
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    # nothing from outside: no absolute URL in any src/href, and no CDN in the page
    assert not re.findall(r'(?:src|href)="(?:https?:)?//', page.text), "the page links outside the server"
    assert "cdn" not in page.text.lower()
    api = httpx.get(f"{demo_server}/", timeout=30)
    assert api.headers["content-type"].startswith("application/json") and "systems" in api.json()
    docs = httpx.get(f"{demo_server}/documents", timeout=30)
    assert docs.headers["content-type"].startswith("application/json") and docs.json()["count"] == 6


def test_filings_list_identity_and_where_each_field_came_from(demo_server):
    docs = {d["doc_id"]: d for d in httpx.get(f"{demo_server}/documents", timeout=30).json()["documents"]}
    acme = docs["ACMEWIDGETS_2022_10K"]["fields"]
    assert acme["company"] == {"value": "Acme Widgets", "source": "cover page (registrant name)"}
    assert acme["tickers"] == {"value": ["ACME"], "source": "cover page"}
    assert acme["form"] == {"value": "10-K", "source": "file name"}
    assert acme["period"] == {"value": "2022", "source": "file name"}
    assert acme["period_end"]["value"] == "2022-12-31" and acme["filed_date"]["source"] == "not found"
    assert docs["COBALTSOFTWARE_2023_10K"]["fields"]["fiscal_year_end"]["value"] == "June 30"
    assert all(d["n_pages"] == 10 and d["kind"] == "pdf" for d in docs.values())


def test_page_routes_serve_only_indexed_filings_and_pages(demo_server):
    base = f"{demo_server}/documents"
    refused = {
        f"{base}/NOPE_2022_10K/pages/0": 404,
        f"{base}/ACMEWIDGETS_2022_10K/pages/10": 404,           # 10 pages: 0-9
        f"{base}/ACMEWIDGETS_2022_10K/pages/-1/image": 404,
        f"{base}/ACMEWIDGETS_2022_10K.pdf/pages/0": 404,         # an id, not a file name
        f"{base}/..%2F..%2Fetc%2Fpasswd/file": 404,
        f"{base}/%2Fetc%2Fpasswd/pages/0/image": 404,
        f"{base}/ACMEWIDGETS_2022_10K/pages/x": 422,
        f"{base}/ACMEWIDGETS_2022_10K/pages/1/image?zoom=9": 422,
    }
    for url, status in refused.items():
        r = httpx.get(url, timeout=30)
        assert r.status_code == status, (url, r.status_code, r.text[:200])
        assert "root:" not in r.text and len(r.json()["detail"].splitlines()) == 1, r.text[:200]
    # a chunk of another filing highlights nothing and says so
    other = httpx.get(f"{base}/ACMEWIDGETS_2022_10K/pages/6", params={"chunk": 999_999}, timeout=30).json()
    assert other["boxes"] == [] and "not a chunk of ACMEWIDGETS_2022_10K" in other["note"]
    pdf = httpx.get(f"{base}/ACMEWIDGETS_2022_10K/file", timeout=30)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF") and pdf.headers["content-type"] == "application/pdf"


def test_cited_page_highlights_the_chunk_and_the_figure(demo_server):
    answer = httpx.post(f"{demo_server}/hdrr/invoke", json={"input": {"question": QUESTION}}, timeout=120).json()["output"]
    cited = re.search(r"\[(ACMEWIDGETS_2022_10K), p\. (\d+)(?: \(printed [^)]+\))?\]", answer["answer"])
    assert cited, answer["answer"]
    page = int(cited.group(2)) - 1  # the answer cites the viewer's page; /pages/N counts from 0
    chunk = next(c for c in answer["contexts"] if c["page_start"] <= page <= c["page_end"] and FIGURE in c["text"])
    view = httpx.get(f"{demo_server}/documents/ACMEWIDGETS_2022_10K/pages/{page}",
                     params={"chunk": chunk["chunk_id"], "mark": [FIGURE, "Total revenue"]}, timeout=30).json()
    assert view["view"] == "image" and view["passage"]["found"], view["note"]
    kinds = [b["kind"] for b in view["boxes"]]
    assert kinds.count("mark") >= 2 and kinds.count("passage") >= 3, kinds
    assert all(0 <= b["x"] <= 1 and 0 <= b["y"] <= 1 and b["w"] > 0 and b["h"] > 0 for b in view["boxes"])
    marked = {view["text"][a:b] for a, b, kind in view["spans"] if kind == "mark"}
    assert FIGURE in marked and "Total revenue" in marked, marked
    passage = next(view["text"][a:b] for a, b, kind in view["spans"] if kind == "passage")
    assert passage and passage in chunk["text"], passage[:200]


def test_page_images_are_png_and_cached(demo_server):
    """The image is a PNG the browser may keep (private, with an ETag) and a revalidation is a bodyless 304.
    How fast the second fetch is lives in bench/web_page.py (page_view_cached), not in a timed test; that the
    server renders a page once is tests/integration/test_page_cache.py."""
    url = f"{demo_server}/documents/BOREALISENERGY_2023_10K/pages/3/image"
    first = httpx.get(url, params={"zoom": 2}, timeout=60)
    assert first.status_code == 200 and first.content.startswith(b"\x89PNG") and first.headers["content-type"] == "image/png"
    assert "private" in first.headers["cache-control"] and first.headers["etag"]
    again = httpx.get(url, params={"zoom": 2}, timeout=60)
    assert again.content == first.content and again.headers["etag"] == first.headers["etag"]
    not_modified = httpx.get(url, params={"zoom": 2}, headers={"if-none-match": first.headers["etag"]}, timeout=60)
    assert not_modified.status_code == 304 and not not_modified.content


def test_docs_pages_use_shipped_assets(demo_server):
    for path in ("/docs", "/redoc"):
        html = httpx.get(f"{demo_server}{path}", timeout=30).text
        srcs = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert srcs and all(s.startswith("/docs-assets/") for s in srcs), (path, srcs)
        for src in srcs:
            r = httpx.get(f"{demo_server}{src}", timeout=30)
            assert r.status_code == 200 and len(r.content) > 1000, src


def test_playground_output_has_the_answer_first(demo_server):
    r = httpx.post(f"{demo_server}/hdrr/stream_log", json={"input": {"question": QUESTION}}, timeout=120)
    assert r.status_code == 200, r.text[:300]
    outputs = []
    for block in r.text.replace("\r\n", "\n").split("\n\n"):
        data = "".join(line[6:] for line in block.split("\n") if line.startswith("data: "))
        if "event: data" in block and data:
            outputs += [op["value"] for op in json.loads(data).get("ops", []) if op.get("path") == "/streamed_output/-"]
    assert len(outputs) == 1, outputs  # one piece: the playground prints it as one JSON object
    assert list(outputs[0])[0] == "answer" and FIGURE in outputs[0]["answer"]
    invoked = httpx.post(f"{demo_server}/hdrr/invoke", json={"input": {"question": QUESTION}}, timeout=120).json()["output"]
    assert set(outputs[0]) == set(invoked)


# ------------------------------------------------------------------------------------------------ browser
@needs_browser
def test_ask_open_the_cited_page_and_compare_systems(demo_server, browser, tmp_path):
    page = open_tab(browser, f"{demo_server}/")
    try:
        page.wait_for("!!document.querySelector('#examples button')", 60)
        assert page.eval("document.querySelector('#system-a').value") == "hdrr"
        [hdrr] = ask(page, QUESTION)
        assert hdrr["state"] == "done" and FIGURE in hdrr["answer"], hdrr
        assert hdrr["chips"] and all(re.fullmatch(r"\[[A-Z0-9_]+, pp?\. \d+(-\d+)?\]", c) for c in hdrr["chips"])
        assert "exact_path" in hdrr["text"] and "company and period select exactly one filing" in hdrr["text"]
        shot(page, tmp_path, "answer.png")

        viewer = open_chip(page)
        assert viewer["title"] == "Acme Widgets 10-K 2022" and viewer["label"].startswith("p. 7 of "), viewer  # zero-based page 6
        assert viewer["width"] > 500 and viewer["passage"] >= 3 and viewer["marks"] >= 1, viewer
        shot(page, tmp_path, "page.png")
        click(page, "#viewer-next")
        page.wait_for("document.querySelector('#viewer-page').innerText.startsWith('p. 8 of') && "
                      "document.querySelector('#page-frame').dataset.state === 'ready'", 30)
        click(page, "#viewer-prev")
        page.wait_for("document.querySelector('#viewer-page').innerText.startsWith('p. 7 of') && "
                      "document.querySelector('#page-frame').dataset.state === 'ready'", 30)
        fetched = page.eval("performance.getEntriesByType('resource').map(e => e.name)"
                            ".filter(n => n.includes('/pages/6/image')).length")
        assert fetched == 1, f"a page seen before was fetched again ({fetched} image requests for p. 6)"
        click(page, "#viewer-close")

        hdrr, cbr = ask(page, QUESTION, compare="cbr")
        assert (hdrr["system"], cbr["system"]) == ("hdrr", "cbr") and hdrr["state"] == cbr["state"] == "done"
        assert "from other filings than the asked one" in cbr["text"], cbr["text"][:600]
        assert page.eval("document.querySelectorAll('.result[data-system=cbr] .chip.other').length") >= 1
        shot(page, tmp_path, "compare.png")

        [unknown] = ask(page, UNKNOWN)
        assert "company_not_indexed" in unknown["text"] and "Not in the index" in unknown["text"]
        assert "Globex Corp" in unknown["text"] and "no retrieval" in unknown["text"], unknown["text"][:600]
        page.eval("document.querySelector('.result .routing').scrollIntoView({block: 'start'})")
        shot(page, tmp_path, "routing.png")

        page.pump(0.3)
        assert not page.errors, page.errors
        [empty] = ask(page, "   ")
        assert empty["state"] == "error" and "the question is empty" in empty["error"], empty
        page.pump(0.3)
        assert all("status of 422" in e for e in page.errors), page.errors  # the browser logs the refused request
    finally:
        close_tab(browser, page)


@needs_browser
def test_filings_page_and_offline_docs_in_chromium(demo_server, browser, tmp_path):
    page = open_tab(browser, f"{demo_server}/documents")
    try:
        page.wait_for("document.querySelectorAll('#documents-table tbody tr').length === 6", 60)
        text = page.text()
        for needle in ("Acme Widgets, Inc.", "CBLT", "June 30", "cover page", "file name"):
            assert needle in text, needle
        shot(page, tmp_path, "documents.png")
        click(page, "#documents-table tbody tr .chip")
        page.wait_for("document.querySelector('#page-frame').dataset.state === 'ready'", 60)
        assert page.eval("document.querySelector('#viewer-page').innerText").startswith("p. 1 of")
        page.navigate(f"{demo_server}/docs")
        page.wait_for("!!document.querySelector('.swagger-ui .info .title')", 60)
        page.wait_for("!!document.body && document.body.innerText.includes('/documents/{doc_id}/pages/{page_no}/image')", 30)
        shot(page, tmp_path, "docs.png")
        loaded = page.eval("performance.getEntriesByType('resource').map(e => e.name)")
        page.navigate(f"{demo_server}/redoc")
        page.wait_for("!!document.body && document.body.innerText.includes('One page of a filing, with the cited passage')", 60)
        page.wait_for("!!document.querySelector('img[alt=\"redocly logo\"]')", 30)
        page.pump(0.5)
        loaded += page.eval("performance.getEntriesByType('resource').map(e => e.name)")
        assert loaded and all(u.startswith(demo_server) for u in loaded), loaded  # nothing from outside
        assert not page.errors, page.errors
    finally:
        close_tab(browser, page)


@needs_browser
def test_the_page_asks_for_the_api_key_and_sends_it(demo_index, browser, monkeypatch, machine_settings_cleared, tmp_path):
    from finrag.server import create_app

    with ThreadServer(create_app(demo_index, api_key=KEY, warm_up=False)) as srv:
        refused = httpx.get(f"{srv.url}/", headers={"accept": "text/html"}, timeout=30)
        assert refused.status_code == 401 and 'id="key-input"' in refused.text  # the page, holding no data
        assert httpx.get(f"{srv.url}/", timeout=30).json()["detail"].startswith("missing API key")
        for path in ("/documents", "/documents/ACMEWIDGETS_2022_10K/pages/6", "/documents/ACMEWIDGETS_2022_10K/pages/6/image",
                     "/documents/ACMEWIDGETS_2022_10K/file"):
            assert httpx.get(f"{srv.url}{path}", timeout=30).status_code == 401, path
            assert httpx.get(f"{srv.url}{path}", headers={"X-API-Key": KEY}, timeout=30).status_code == 200, path
        page = open_tab(browser, f"{srv.url}/")
        try:
            page.wait_for("!!document.querySelector('#key-panel') && !document.querySelector('#key-panel').hidden", 30)
            assert "needs an API key" in page.text()
            page.type_into("#key-input", KEY)
            click(page, "#key-panel button[type=submit]")
            page.wait_for("!!document.querySelector('#examples button')", 60)
            [hdrr] = ask(page, QUESTION)
            assert hdrr["state"] == "done" and FIGURE in hdrr["answer"], hdrr
            viewer = open_chip(page)
            assert viewer["src"].startswith("blob:") and viewer["marks"] >= 1, viewer
            page.pump(0.3)
            assert not [e for e in page.errors if "401" not in e], page.errors  # the first visit's 401 is expected
        finally:
            close_tab(browser, page)


@needs_browser
def test_llm_tokens_stream_in_and_failures_are_messages(demo_index, browser, monkeypatch, machine_settings_cleared, tmp_path):
    from finrag.server import create_app

    with OpenAIStub() as stub:
        monkeypatch.setenv("FINRAG_LLM", "openai/stub-model")
        monkeypatch.setenv("FINRAG_LLM_BASE_URL", stub.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "stub")
        monkeypatch.setenv("FINRAG_FAST_PATH", "off")  # the generator LLM answers (not the statement reader)
        with ThreadServer(create_app(demo_index, warm_up=False, timeout_s=8)) as srv:
            page = open_tab(browser, f"{srv.url}/")
            try:
                page.wait_for("!!document.querySelector('#examples button')", 60)
                [ok] = ask(page, QUESTION)
                assert ok["state"] == "done" and ok["tokens"] >= 1 and ok["answer"].startswith("Stub answer"), ok
                assert "LLM calls" in ok["text"]
                stub.mode = "http500"
                [failed] = ask(page, QUESTION)
                assert failed["state"] == "error" and "The language model failed (502)" in failed["error"], failed
                stub.mode = "hang"
                [slow] = ask(page, QUESTION, timeout=60)
                assert slow["state"] == "error" and "took too long (504)" in slow["error"], slow
                shot(page, tmp_path, "llm-error.png")
            finally:
                stub.mode = "ok"
                close_tab(browser, page)
    with ThreadServer(create_app(tmp_path / "no-index-here", warm_up=False)) as srv:
        page = open_tab(browser, f"{srv.url}/")
        try:
            page.wait_for("!!document.querySelector('#banner') && !document.querySelector('#banner').hidden", 30)
            assert "not ready (503)" in page.text() and "no finrag index" in page.text()
            [down] = ask(page, QUESTION)
            assert down["state"] == "error" and "busy or not ready (503)" in down["error"], down
        finally:
            close_tab(browser, page)


@needs_browser
def test_an_html_filing_opens_as_its_text_with_the_passage_marked(browser, monkeypatch, machine_settings_cleared, tmp_path):
    from finrag.server import create_app
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import index_paths
    from finrag.tools.indexing.store import Store

    (tmp_path / "filings").mkdir()
    (tmp_path / "filings" / "NORTHWIND_2023_10K.htm").write_text(HTML_FILING, encoding="utf-8")
    store = Store(tmp_path / "index", create=True)
    store.check_embedder(get_embedder())
    assert not index_paths([tmp_path / "filings"], store, progress=False, workers=1).failed
    store.close()
    with ThreadServer(create_app(tmp_path / "index", warm_up=False)) as srv:
        served = httpx.get(f"{srv.url}/documents/NORTHWIND_2023_10K/file", timeout=30)
        assert served.headers["content-type"].startswith("text/html") and served.headers["content-security-policy"] == "sandbox"
        assert httpx.get(f"{srv.url}/documents/NORTHWIND_2023_10K/pages/1/image", timeout=30).status_code == 404
        page = open_tab(browser, f"{srv.url}/")
        try:
            page.wait_for("!!document.querySelector('#examples button')", 60)
            [hdrr] = ask(page, "What was Northwind Traders' total revenue in fiscal 2023?")
            assert hdrr["state"] == "done" and "812.4" in hdrr["answer"] and hdrr["chips"], hdrr
            click(page, ".answer .chip")
            page.wait_for("document.querySelector('#page-frame').dataset.state === 'ready' && "
                          "!document.querySelector('#page-text').hidden", 60)
            marked = page.eval("[...document.querySelectorAll('#page-text mark')].map(m => [m.className, m.innerText])")
            assert ["mark", "812.4"] in marked and any(kind == "passage" for kind, _ in marked), marked
            assert page.eval("document.querySelector('#page-frame').hidden")  # no image for an HTML filing
            assert "Northwind Traders 10-K 2023" in page.eval("document.querySelector('#viewer-title').innerText")
            shot(page, tmp_path, "html-page.png")
            page.pump(0.3)
            assert not page.errors, page.errors
        finally:
            close_tab(browser, page)
