"""Issue 34 ("Trust, round three"), cases 10, 12 and 13: a second `finrag batch` on one `--out`, unbounded query
parameters of the page routes, and a request header that is never timed out.

Before the fixes:
10. Two `finrag batch --resume` on one `--out` at once both exited 0 and wrote every answer twice. Now `--out`
    is locked (`flock` on `<out>.lock`) for the run; a second writer gets exit code 4 and one line naming the file.
12. `GET /documents/ID/pages/0?chunk=99999999999999999999999` was a 500 (OverflowError in SQLite), and
    `pages/0?zoom=1e308` answered with an image URL the image route then refused. Now every query parameter of
    the page routes is bounded: 422 with one line, and the page route accepts exactly the image route's zooms.
13. A client that sent part of its request header and stalled held its connection for ever (still answered
    after 25 s). Now `finrag serve` closes a connection whose request header is not complete within
    FINRAG_SERVE_HEADER_TIMEOUT seconds (default 10), with one worker or several.
"""
from __future__ import annotations

import httpx
import pytest
from support.servers import ThreadServer

from finrag.tools.indexing import open_index

pytestmark = [pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance")]

DOC = "ACMEWIDGETS_2022_10K"


@pytest.fixture(autouse=True)
def _fresh_runtime():
    yield
    open_index.reset()


@pytest.fixture(scope="module")
def page_server(demo_index):
    """The real app on the demo index, no API key, in a thread."""
    from finrag.server import create_app

    with ThreadServer(create_app(demo_index, warm_up=False)) as srv:
        yield srv


# ------------------------------------------------------------------------------------------------- case 12
@pytest.mark.parametrize("params", [
    {"chunk": "99999999999999999999999"}, {"chunk": str(2 ** 63)}, {"chunk": "-1"},
    {"zoom": "1e308"}, {"zoom": "inf"}, {"zoom": "nan"}, {"zoom": "0"}, {"zoom": "9"},
    {"mark": ["x" * 5000]}, {"mark": [str(i) for i in range(100)]},
])
def test_page_route_parameters_are_bounded(page_server, params):
    """Issue 34 case 12: an out-of-range query parameter of the page route is a 422 with one line, never a 500
    (a chunk id beyond SQLite's integers was an OverflowError) nor a view pointing at a refused image."""
    r = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0", params=params, timeout=30)
    assert r.status_code == 422, (params, r.status_code, r.text[:300])
    detail = r.json()["detail"]
    assert isinstance(detail, str) and len(detail.splitlines()) == 1 and detail, r.text[:300]
    assert next(iter(params)) in detail, detail


def test_image_route_cache_key_is_bounded(page_server):
    """Issue 34 case 12: the image route's `v` (a cache key, the content hash's first 16 digits) is bounded too:
    422 with one line for a long one (its zoom was already checked against ZOOMS)."""
    r = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0/image", params={"v": "v" * 500}, timeout=30)
    assert r.status_code == 422, (r.status_code, r.text[:300])
    assert len(r.json()["detail"].splitlines()) == 1 and "v" in r.json()["detail"]


def test_page_route_accepts_exactly_the_image_routes_zooms(page_server):
    """Issue 34 case 12: every zoom the page route accepts gives an image URL the image route serves, and a zoom
    the image route refuses is refused by the page route as well (before, `zoom=1e308` gave a dead image URL)."""
    from finrag.web_pages import ZOOMS

    for zoom in (*ZOOMS, 1.25, 1e308):
        view = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0", params={"zoom": zoom}, timeout=30)
        image = httpx.get(f"{page_server.url}/documents/{DOC}/pages/0/image", params={"zoom": zoom}, timeout=30)
        assert (view.status_code == 200) == (image.status_code == 200), (zoom, view.status_code, image.status_code)
        if view.status_code == 200:
            served = httpx.get(page_server.url + view.json()["image"], timeout=30)
            assert served.status_code == 200 and served.headers["content-type"] == "image/png", zoom
