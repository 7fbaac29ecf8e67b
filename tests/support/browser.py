"""What the browser tests share on top of tests/support/headless.py: the skip mark where no Chromium is installed,
a reused tab opened at a laptop's viewport, and a real mouse click."""
from __future__ import annotations

import json

import pytest

from support.headless import Chromium, Page, chromium_binary

NO_CHROMIUM = ("no chromium binary: `bash .ci/install` (as root) installs Debian's chromium; "
               "or set CHROMIUM=/path/to/chrome")
needs_browser = pytest.mark.skipif(chromium_binary() is None, reason=NO_CHROMIUM)


def open_tab(browser: Chromium, url: str, *, width: int = 1280, height: int = 800) -> Page:
    """The browser's tab with a `width` x `height` viewport (a laptop screen) showing `url`; what an earlier test's
    page logged or threw is forgotten (the tab is reused)."""
    page = browser.open("about:blank")
    page.call("Log.clear")
    page.errors.clear()
    page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
    page.navigate(url)
    return page


def close_tab(browser: Chromium, page: Page) -> None:
    browser.pages.remove(page)
    page.close()


def click(page: Page, selector: str, index: int = 0) -> None:
    """A real mouse click on the `index`-th element matching `selector` (scrolled into view first)."""
    box = page.eval(f"""(() => {{
        const el = document.querySelectorAll({json.dumps(selector)})[{index}];
        if (!el) return null;
        el.scrollIntoView({{block: "center"}});
        const r = el.getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2];
    }})()""")
    if not box:
        raise LookupError(f"nothing matches {selector!r} (index {index})")
    for kind in ("mousePressed", "mouseReleased"):
        page.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
