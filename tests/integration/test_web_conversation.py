"""Issue 36: the answer page's conversation view, on a real `finrag serve` and in real Chromium.

With "Conversation" ticked, every question of the page is a turn of one LangGraph thread on the server (POST
/threads, then POST /{system}/stream with config.configurable.thread_id): the turns stack, each with its
question, the "Answering: <resolved question>" line when the server answered a follow-up as another question,
the answer with its citation chips and the routing; "New conversation" starts a new thread; the thread id is
kept for the tab (sessionStorage) so a reload reads the turns back (GET /threads/{id}); a thread the server no
longer has (404) starts a new one with a visible note. Unticked, the page is the single-question page of
tests/integration/test_web_page.py, unchanged.

The browser is Debian's `chromium` over the DevTools protocol (tests/support/headless.py), skipped with the
reason without it. The two-turn screenshot goes to the test's temporary folder, and to $FINRAG_SCREENSHOT_DIR
when set (docs/screenshots/conversation.png comes from
`FINRAG_SCREENSHOT_DIR=docs/screenshots pytest tests/integration/test_web_conversation.py -k two_turn`).
"""
from __future__ import annotations

import base64
import os
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from support.browser import click, close_tab, needs_browser, open_tab
from support.servers import ThreadServer

pytestmark = [pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance"),
              needs_browser]

FIRST = "What was Acme Widgets' revenue in FY2022?"
FOLLOW_UP = "And in FY2023?"
RESOLVED = "What was Acme Widgets' revenue in FY2023?"
FY2022, FY2023 = "1,476.2", "1,534.9"   # Acme Widgets' total revenue in the demo corpus (tools/demo), $ millions
TURNS = "[...document.querySelectorAll('#turns .turn')]"
KEY = "conversation-page-key"


# ----------------------------------------------------------------------------------------------- servers
@pytest.fixture(scope="module")
def browser_window() -> str:
    return "1280,900"


@pytest.fixture()
def page(browser, demo_server):
    """A fresh tab on the answer page (1280x900, a laptop screen), its sessionStorage empty."""
    tab = open_tab(browser, f"{demo_server}/documents", height=900)  # the tab is reused: the last conversation goes first
    tab.wait_for("!!document.body && location.pathname === '/documents'", 60)
    tab.eval("sessionStorage.clear(); true")
    tab.navigate(f"{demo_server}/")
    tab.wait_for("!!document.querySelector('#examples button')", 60)
    yield tab
    close_tab(browser, tab)


# ----------------------------------------------------------------------------------------------- helpers
def converse(page) -> None:
    """Tick "Conversation" (a real click) and wait until the view shows."""
    if not page.eval("document.querySelector('#conversation-mode').checked"):
        click(page, "#conversation-mode")
    page.wait_for("!document.querySelector('#conversation-view').hidden && "
                  "document.querySelector('#conversation-view').dataset.state !== 'loading' && "
                  "!document.querySelector('#ask-button').disabled", 30)


def turns(page) -> list[dict]:
    return page.eval(f"""{TURNS}.map(t => ({{turn: Number(t.dataset.turn), question: t.querySelector('.turn-question').innerText,
        resolved: t.querySelector('.resolved').hidden ? '' : t.querySelector('.resolved').innerText,
        state: t.querySelector('.result').dataset.state, restored: !!t.querySelector('.result').dataset.restored,
        system: t.querySelector('.result').dataset.system || '',
        answer: t.querySelector('.answer').innerText, text: t.innerText,
        error: t.querySelector('.error-box').hidden ? '' : t.querySelector('.error-box').innerText,
        chips: [...t.querySelectorAll('.answer .chip')].map(c => c.innerText),
        routed: [...t.querySelectorAll('.routing dd .chip')].map(c => c.textContent)}}))""")


def ask_turn(page, question: str, timeout: float = 90) -> list[dict]:
    """Type the question, press Enter and wait until the new turn has its answer (or its error)."""
    before = page.eval(f"{TURNS}.length")
    page.type_into("#question", question)
    page.call("Input.dispatchKeyEvent", type="keyDown", key="Enter", code="Enter", windowsVirtualKeyCode=13)
    page.call("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter", windowsVirtualKeyCode=13)
    page.wait_for(f"""(() => {{ const t = {TURNS}; return t.length >= 1 && (t.length > {before} ||
        document.querySelector('#conversation-note').innerText.includes('no longer on the server')) &&
        t.every(x => ['done', 'error'].includes(x.querySelector('.result').dataset.state)) &&
        !document.querySelector('#ask-button').disabled; }})()""", timeout)
    return turns(page)


def thread_of(page) -> str | None:
    return page.eval("sessionStorage.getItem('finrag.thread')")


def shot(page, tmp_path: Path, name: str) -> Path:
    """The whole page (the viewport grown to the content's height, 1280 wide) as PNG; a copy in
    $FINRAG_SCREENSHOT_DIR when set (256 colours, as docs/screenshots' others)."""
    height = int(page.eval("Math.ceil(document.documentElement.scrollHeight)"))
    page.call("Emulation.setDeviceMetricsOverride", width=1280, height=height, deviceScaleFactor=1, mobile=False)
    page.pump(0.4)
    data = page.call("Page.captureScreenshot", format="png")["data"]
    page.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
    path = tmp_path / name
    path.write_bytes(base64.b64decode(data))
    folder = os.environ.get("FINRAG_SCREENSHOT_DIR")
    if folder:
        from PIL import Image

        Path(folder).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as img:
            img.convert("RGB").quantize(256).save(Path(folder) / name, optimize=True)
    assert path.stat().st_size > 10_000, f"{name} looks empty"
    return path


def page_errors(page) -> list[str]:
    """What the page logged as errors, less the browser's own line for a request the server refused on purpose
    (a 404 for a thread it no longer has)."""
    page.pump(0.3)
    return [e for e in page.errors if "status of 404" not in e]


# ------------------------------------------------------------------------------------------------- tests
def test_two_turn_conversation_then_reload_restores_it(demo_server, page, tmp_path):
    converse(page)
    assert page.eval("document.querySelector('#compare').disabled")  # one system answers each turn
    assert not page.eval("document.querySelector('#conversation-hint').hidden")
    [one] = ask_turn(page, FIRST)
    assert one["state"] == "done" and one["turn"] == 1 and FY2022 in one["answer"], one
    assert one["resolved"] == "" and one["question"] == FIRST  # it named company, period and measure itself
    thread = thread_of(page)
    assert thread, "the tab keeps no thread id"
    assert page.eval("document.activeElement.id") == "question" and page.eval("document.querySelector('#question').value") == ""

    one, two = ask_turn(page, FOLLOW_UP)
    assert two["state"] == "done" and two["turn"] == 2 and two["question"] == FOLLOW_UP, two
    assert two["resolved"] == f"Answering: {RESOLVED}", two["resolved"]
    assert FY2023 in two["answer"] and FY2022 not in two["answer"], two["answer"]
    assert not two["answer"].startswith("Answering:")  # shown once, on its own line
    assert two["chips"] and all(c.startswith("[ACMEWIDGETS_2023_10K, p.") for c in two["chips"]), two["chips"]
    assert two["routed"] == ["ACMEWIDGETS_2023_10K"] and "exact_path" in two["text"]
    assert "company (turn 1), measure (turn 1)" in two["text"]  # which slots came from which turn
    assert one["routed"] == ["ACMEWIDGETS_2022_10K"] and FY2022 in one["answer"]  # the first turn stays as it was
    assert thread_of(page) == thread
    live = page.eval("document.querySelector('#live').innerText")
    assert live.startswith("Turn 2, HDRR answered:") and FY2023 in live, live  # aria-live: the new answer
    assert page.eval("document.querySelector('#live').getAttribute('aria-live')") == "polite"
    shot(page, tmp_path, "conversation.png")

    # the server holds the same two turns
    held = httpx.get(f"{demo_server}/threads/{thread}", timeout=30)
    assert held.status_code == 200, held.text[:300]
    body = held.json()
    held_turns = body["turns"] if isinstance(body, dict) else body
    assert [t["question"] for t in held_turns] == [FIRST, FOLLOW_UP]
    assert held_turns[1]["resolved_question"] == RESOLVED

    # a reload reads the thread back: both turns, their resolved question, answer, routing and citations
    page.navigate(f"{demo_server}/")
    page.wait_for(f"{TURNS}.length === 2 && document.querySelector('#conversation-view')?.dataset.state === 'ready'", 60)
    assert page.eval("document.querySelector('#conversation-mode').checked")
    one, two = turns(page)
    assert one["restored"] and two["restored"] and [one["turn"], two["turn"]] == [1, 2]
    assert one["system"] == two["system"] == "hdrr" and two["text"].startswith("TURN 2")
    assert one["question"] == FIRST and FY2022 in one["answer"] and one["routed"] == ["ACMEWIDGETS_2022_10K"]
    assert two["resolved"] == f"Answering: {RESOLVED}" and FY2023 in two["answer"] and two["chips"], two
    assert "Citations" in two["text"] and "company (turn 1), measure (turn 1)" in two["text"]
    click(page, "#turns .turn:nth-child(2) .answer .chip")  # a restored citation still opens its page
    page.wait_for("!document.querySelector('#viewer').hidden && document.querySelector('#page-frame').dataset.state"
                  " === 'ready'", 60)
    assert page.eval("document.querySelector('#viewer-title').innerText") == "Acme Widgets 10-K 2023"
    click(page, "#viewer-close")

    # ... and the conversation goes on where it was: a third turn on the same thread
    *_, three = ask_turn(page, "What was its net income?")
    assert three["turn"] == 3 and three["state"] == "done", three
    assert three["resolved"] == "Answering: What was Acme Widgets' net income in FY2023?", three["resolved"]
    assert three["routed"] == ["ACMEWIDGETS_2023_10K"] and thread_of(page) == thread
    assert not page_errors(page), page.errors


def test_new_conversation_clears_the_turns_and_starts_a_new_thread(demo_server, page):
    converse(page)
    ask_turn(page, FIRST)
    old = thread_of(page)
    click(page, "#new-conversation")
    page.wait_for(f"{TURNS}.length === 0", 10)
    assert thread_of(page) is None and not page.eval("document.querySelector('#conversation-hint').hidden")
    assert page.eval("document.activeElement.id") == "question"
    assert "New conversation" in page.eval("document.querySelector('#live').innerText")
    page.call("Input.dispatchKeyEvent", type="keyDown", key="Enter", code="Enter", windowsVirtualKeyCode=13)
    page.wait_for("document.querySelector('#conversation-note')?.hidden === false", 10)  # nothing typed: a note
    assert "the question is empty" in page.eval("document.querySelector('#conversation-note').innerText")
    assert page.eval(f"{TURNS}.length") == 0 and thread_of(page) is None  # and no request
    # the follow-up alone: nothing of the old thread answers it (no company: the page says which company?)
    [alone] = ask_turn(page, FOLLOW_UP)
    new = thread_of(page)
    assert new and new != old and alone["turn"] == 1 and alone["resolved"] == "", alone
    assert "ACMEWIDGETS" not in " ".join(alone["routed"]) and FY2023 not in alone["answer"], alone["text"][:600]
    assert "which_company" in alone["text"], alone["text"][:600]
    # the old thread is still the server's (New conversation only leaves it)
    assert httpx.get(f"{demo_server}/threads/{old}", timeout=30).status_code == 200
    page.navigate(f"{demo_server}/")  # a reload shows the new thread's one turn
    page.wait_for(f"{TURNS}.length === 1 && document.querySelector('#conversation-view')?.dataset.state === 'ready'", 60)
    assert turns(page)[0]["question"] == FOLLOW_UP
    assert not page_errors(page), page.errors


def test_a_stale_thread_starts_a_new_one_with_a_note(demo_server, page):
    # a tab whose thread the server does not have (another server, or the thread removed): the reload says so
    page.eval("sessionStorage.setItem('finrag.conversation', 'on'); sessionStorage.setItem('finrag.thread', "
              "'gone-thread-1'); true")
    page.navigate(f"{demo_server}/")
    page.wait_for("document.querySelector('#conversation-note')?.hidden === false", 30)
    note = page.eval("document.querySelector('#conversation-note').innerText")
    assert "gone-thread-1" in note and "no longer on the server" in note and "next question" in note, note
    assert page.eval(f"{TURNS}.length") == 0 and thread_of(page) is None
    [one] = ask_turn(page, FIRST)
    assert one["state"] == "done" and FY2022 in one["answer"] and thread_of(page) not in (None, "gone-thread-1")
    assert page.eval("document.querySelector('#conversation-note').hidden")  # the note went with the new answer

    # the thread removed on the server while the page shows it: the next turn starts a new thread and says so
    old = thread_of(page)
    assert httpx.delete(f"{demo_server}/threads/{old}", timeout=30).status_code in (200, 204)
    [again] = ask_turn(page, FOLLOW_UP)
    note = page.eval("document.querySelector('#conversation-note').innerText")
    assert old in note and "no longer on the server" in note and "new one started" in note, note
    new = thread_of(page)
    assert new and new != old and again["turn"] == 1 and again["question"] == FOLLOW_UP, again
    assert again["state"] in ("done", "error") and not again["error"], again  # answered on the new thread
    assert not page_errors(page), page.errors


def test_single_questions_stay_as_they_were(demo_server, page):
    converse(page)
    ask_turn(page, FIRST)
    click(page, "#conversation-mode")  # unticked: the single-question page, side by side available again
    page.wait_for("document.querySelector('#conversation-view').hidden && !document.querySelector('#compare').disabled", 10)
    page.type_into("#question", FIRST)
    click(page, "#compare")
    click(page, "#ask-button")
    page.wait_for("document.querySelectorAll('#results .result').length === 2 && [...document.querySelectorAll("
                  "'#results .result')].every(r => r.dataset.state === 'done')", 90)
    assert page.eval("location.search").startswith("?q=")  # a single question's link, as before
    assert page.eval("document.querySelectorAll('#results .resolved, #results .turn').length") == 0
    # a ?q= link is a single question even in a tab that keeps a conversation
    page.eval("sessionStorage.setItem('finrag.conversation', 'on'); true")
    page.navigate(f"{demo_server}/?q={quote(FOLLOW_UP)}")
    page.wait_for("document.querySelectorAll('#results .result').length === 1 && "
                  "['done', 'error'].includes(document.querySelector('#results .result')?.dataset.state)", 90)
    assert page.eval("document.querySelector('#conversation-view').hidden")
    assert "which_company" in page.eval("document.querySelector('#results .result').innerText")
    assert not page_errors(page), page.errors


def test_a_conversation_with_the_api_key(demo_index, browser, monkeypatch, machine_settings_cleared, tmp_path):
    """A server with --api-key: the page sends the key on the thread routes too (POST /threads, the turns, the
    read-back after a reload), and a thread is the key's: another key's request for it is a 404."""
    from finrag.server import create_app

    monkeypatch.setenv("FINRAG_THREADS_DIR", str(tmp_path / "threads"))
    with ThreadServer(create_app(demo_index, api_key=[KEY, "another-key"], warm_up=False)) as srv:
        tab = browser.open("about:blank")
        try:
            tab.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
            tab.navigate(f"{srv.url}/")
            tab.wait_for("document.querySelector('#key-panel')?.hidden === false", 30)
            tab.eval("sessionStorage.removeItem('finrag.thread'); sessionStorage.removeItem('finrag.conversation'); true")
            tab.type_into("#key-input", KEY)
            click(tab, "#key-panel button[type=submit]")
            tab.wait_for("!!document.querySelector('#examples button')", 60)
            converse(tab)
            ask_turn(tab, FIRST)
            one, two = ask_turn(tab, FOLLOW_UP)
            assert two["resolved"] == f"Answering: {RESOLVED}" and FY2023 in two["answer"], two
            thread = thread_of(tab)
            tab.navigate(f"{srv.url}/")
            tab.wait_for(f"{TURNS}.length === 2 && document.querySelector('#conversation-view')?.dataset.state === 'ready'", 60)
            assert turns(tab)[1]["resolved"] == f"Answering: {RESOLVED}"
            assert httpx.get(f"{srv.url}/threads/{thread}", headers={"X-API-Key": KEY}, timeout=30).status_code == 200
            assert httpx.get(f"{srv.url}/threads/{thread}", headers={"X-API-Key": "another-key"}, timeout=30).status_code == 404
            tab.pump(0.3)
            assert not [e for e in tab.errors if "401" not in e], tab.errors  # the first visit's 401 is expected
        finally:
            browser.pages.remove(tab)
            tab.close()
