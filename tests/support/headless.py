"""Headless Chromium driven over the DevTools protocol (standard library + `websockets`, no browser download).

    with Chromium() as browser:                  # skips the test when no chromium binary is installed
        page = browser.open("http://127.0.0.1:8000/hdrr/playground/")
        page.wait_for("document.querySelector('textarea') !== null")
        page.type_into("textarea", "What was ...?")
        page.click_text("button", "Start")
        page.wait_for_text("ACMEWIDGETS_2022_10K")
        page.errors                                # uncaught exceptions and console errors, as strings

The binary is Debian's `chromium` (installed by `.ci/install` when missing and run as root), else
`chromium-browser` / `google-chrome` on PATH, else $CHROMIUM. Flags are the ones that work in a container
without a display or network: --headless --no-sandbox --disable-gpu --disable-background-networking
--disable-component-update --disable-sync --no-first-run, a fresh --user-data-dir, and a DevTools port
chosen by Chromium (read back from DevToolsActivePort). Only loopback URLs are opened.
"""
from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def chromium_binary() -> str | None:
    env = os.environ.get("CHROMIUM")
    if env and Path(env).is_file():
        return env
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Page:
    def __init__(self, ws_url: str):
        from websockets.sync.client import connect

        self.ws = connect(ws_url, max_size=64 * 2**20, open_timeout=30)
        self.ids = itertools.count(1)
        self.errors: list[str] = []
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")

    # ------------------------------------------------------------ protocol
    def _event(self, msg: dict) -> None:
        method, params = msg.get("method"), msg.get("params") or {}
        if method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails") or {}
            self.errors.append("exception: " + str((d.get("exception") or {}).get("description") or d.get("text")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                            for a in params.get("args") or []))
        elif method == "Log.entryAdded" and (params.get("entry") or {}).get("level") == "error":
            e = params["entry"]
            self.errors.append(f"log: {e.get('text')} {e.get('url', '')}".strip())

    def call(self, method: str, timeout: float = 30.0, **params):
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result") or {}
            self._event(msg)

    def pump(self, seconds: float) -> None:
        """Read events (errors) for a while."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                self._event(json.loads(self.ws.recv(timeout=max(0.05, deadline - time.monotonic()))))
            except TimeoutError:
                return

    def eval(self, expression: str):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"evaluate {expression[:80]!r}: {res['exceptionDetails'].get('text')}")
        return (res.get("result") or {}).get("value")

    # ------------------------------------------------------------- helpers
    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def wait_for(self, expression: str, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.eval(expression)
            if value:
                return value
            self.pump(0.25)
        raise TimeoutError(f"not true after {timeout:.0f} s: {expression}")

    def text(self) -> str:
        return self.eval("document.body ? document.body.innerText : ''") or ""

    def wait_for_text(self, needle: str, timeout: float = 120.0) -> str:
        self.wait_for(f"document.body && document.body.innerText.includes({json.dumps(needle)})", timeout)
        return self.text()

    def type_into(self, selector: str, text: str) -> None:
        """Focus the element and type as a user would (React sees real input events)."""
        self.eval(f"(() => {{ const el = document.querySelector({json.dumps(selector)}); el.focus(); "
                  "if (el.select) el.select(); return true; })()")
        self.call("Input.insertText", text=text)

    def click_text(self, selector: str, label: str) -> None:
        """Click the first element matching `selector` whose text is `label` (a real mouse click)."""
        box = self.eval(f"""(() => {{
            const el = [...document.querySelectorAll({json.dumps(selector)})]
                .find(e => e.innerText.trim() === {json.dumps(label)});
            if (!el) return null;
            el.scrollIntoView();
            const r = el.getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2];
        }})()""")
        if not box:
            raise LookupError(f"no {selector} with text {label!r}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def screenshot(self, path: str | Path) -> Path:
        import base64

        data = self.call("Page.captureScreenshot", format="png")["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001 - the browser may be gone already
            pass


class Chromium:
    def __init__(self, binary: str | None = None, window: str = "1280,2000"):
        self.binary = binary or chromium_binary()
        if not self.binary:
            raise FileNotFoundError("no chromium binary (install Debian's `chromium`: bash .ci/install as root)")
        self.window = window
        self.proc: subprocess.Popen | None = None
        self.profile = ""
        self.pages: list[Page] = []

    def __enter__(self) -> "Chromium":
        self.profile = tempfile.mkdtemp(prefix="finrag-chromium-")
        args = [self.binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                f"--user-data-dir={self.profile}", "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0", f"--window-size={self.window}", "about:blank"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"chromium did not start ({self.binary})")
            time.sleep(0.1)
        self.port = int(port_file.read_text().split()[0])
        return self

    def open(self, url: str) -> Page:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=10) as r:
            targets = [t for t in json.loads(r.read()) if t.get("type") == "page"]
        page = Page(targets[0]["webSocketDebuggerUrl"])
        self.pages.append(page)
        page.navigate(url)
        return page

    def __exit__(self, *exc) -> None:
        for page in self.pages:
            page.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
