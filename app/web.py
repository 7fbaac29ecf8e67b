"""The answer page of `finrag serve`: a page analysts read, on the same app, port and API key as the API.

Routes (all behind the server's guard, API key included; see docs/serving.md):

- ``GET /`` with ``Accept: text/html`` (a browser): the answer page (question box, system picker, two systems
  side by side, answers streamed with citation chips, routing, cost and context panels, the page viewer). API
  clients (no ``text/html`` in Accept) still get the JSON listing of systems and endpoints.
- ``GET /documents``: the filings page for a browser; JSON (every filing's identity, each field with where it
  came from) for API clients.
- ``GET /documents/{doc_id}/pages/{page}``: one page for the viewer (text, image URL, the cited chunk's part of
  the page and the marks as boxes and text spans); ``?chunk=ID&mark=TEXT&mark=...&zoom=1.5``.
- ``GET /documents/{doc_id}/pages/{page}/image?zoom=1.5``: the PDF page as PNG (PyMuPDF), cached.

Every query parameter of the page routes is bounded, a value out of bounds is a 422 with one line (never a 500):
a chunk id 0-2**63-1 (SQLite's integers), at most 16 marks of at most 1000 characters, a zoom of
`web_pages.ZOOMS` (the same rule on both routes, so a page view never names an image URL that is refused),
a cache key `v` of at most 64 characters.
- ``GET /documents/{doc_id}/file``: the whole filing (sandboxed: no script of a filing runs on this origin).
- ``GET /docs``, ``/redoc``: Swagger UI and ReDoc from files shipped in `fastapi-offline` (no CDN).

Ids are looked up in the index (`finrag.web_pages`), never used as paths. The page itself is one HTML file with
its CSS and JavaScript inlined (`app/web_static/`, package data), so it loads in one request and needs
nothing from the internet. With ``--api-key`` a browser's first visit gets the guard's 401, whose body
`PageOn401` replaces with the same static page (it holds no index data): the page asks for the key, keeps
it in the tab's sessionStorage and sends it as ``X-API-Key`` on every request it makes (page images are
fetched with the header too and shown from blob URLs).

The page's conversation view (`web_static/conversation.js`, inlined into app.js's script where it marks it):
with "Conversation" ticked, each question is a turn of a thread (``POST /threads``, then ``POST
/{system}/stream`` with ``config.configurable.thread_id``); turns stack with their answer, citations and
routing, the thread id is kept in the tab's sessionStorage and a reload reads the turns back (``GET
/threads/{id}``). Unticked, the page answers single questions as before.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response

from finrag.state.contract import ROUTING_STATUSES
from finrag.state.systems import DEFAULT_SYSTEM, REGISTRY, SYSTEMS
from finrag.tools.documents.file_identity import CHANGED
from finrag.web_pages import (
    MAX_CHUNK_ID,
    MAX_MARK_QUERY_CHARS,
    MAX_MARKS_ASKED,
    ZOOMS,
    PageError,
    file_state,
    filing,
    identity,
    page_png,
    page_view,
)

if TYPE_CHECKING:
    from finrag.tools.indexing.open_index import OpenIndex

__all__ = ["PageOn401", "answer_first", "is_playground", "mount", "page", "wants_html"]

STATIC = Path(__file__).resolve().parent / "web_static"
SYSTEM_NOTES = {s.name: s.description for s in REGISTRY}
"""The page's note under each system: its registry description."""
PAGE_PATHS = frozenset({"/", "/documents"})
CACHE_SECONDS = 86400


def wants_html(request: Request) -> bool:
    """Whether the client asked for HTML (a browser navigating), not JSON."""
    return "text/html" in request.headers.get("accept", "")


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


@lru_cache(maxsize=1)
def _page() -> tuple[bytes, str]:
    """The page's HTML (CSS and JavaScript inlined, the page's settings as JSON) and its CSP header."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    css = (STATIC / "app.css").read_text(encoding="utf-8")
    settings = {"systems": list(SYSTEMS), "notes": SYSTEM_NOTES, "default": DEFAULT_SYSTEM,
                "compare": "cbr", "statuses": ROUTING_STATUSES, "zoom": 1.5}
    app_js = (STATIC / "app.js").read_text(encoding="utf-8")
    # the conversation view (conversation.js) runs inside app.js's closure: inlined where app.js marks it
    app_js = app_js.replace("/*CONVERSATION_JS*/", (STATIC / "conversation.js").read_text(encoding="utf-8"), 1)
    js = "window.FINRAG = " + json.dumps(settings).replace("</", "<\\/") + ";\n" + app_js
    html = html.replace("/*APP_CSS*/", css).replace("/*APP_JS*/", js)
    csp = ("default-src 'none'; " f"script-src {_csp_hash(js)}; style-src {_csp_hash(css)}; "
           "img-src 'self' blob: data:; connect-src 'self'; frame-src 'self' blob:; "
           "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    return html.encode("utf-8"), csp


def _page_headers(csp: str) -> dict:
    return {"content-security-policy": csp, "cache-control": "no-cache", "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer"}


def page() -> HTMLResponse:
    """The answer page (the same static HTML for `/` and `/documents`; its script shows the right view)."""
    body, csp = _page()
    return HTMLResponse(body, headers=_page_headers(csp))


class PageOn401:
    """ASGI wrapper outside the guard: a browser asking for a page (`/`, `/documents`) without the API key gets
    the guard's 401 with the page as its body (static HTML, no index data), so it can ask for the key. Every
    other response, and every request with the key, passes through untouched."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET" or scope.get("path") not in PAGE_PATHS:
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        if b"text/html" not in headers.get(b"accept", b""):
            return await self.app(scope, receive, send)
        swapped = False

        async def swap(message):
            nonlocal swapped
            if message["type"] == "http.response.start" and message.get("status") == 401:
                swapped = True
                body, csp = _page()
                extra = [(k.encode(), v.encode()) for k, v in _page_headers(csp).items()]
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                    *extra]})
                await send({"type": "http.response.body", "body": body, "more_body": False})
                return
            if swapped:
                return
            await send(message)

        await self.app(scope, receive, swap)


# ------------------------------------------------------------------ playground
def is_playground(config: Any) -> bool:
    """Whether a run was started by LangServe's `/stream_log` (what the playground uses)."""
    meta = (config or {}).get("metadata") or {}
    return meta.get("__langserve_endpoint") == "stream_log"


def answer_first(contract: dict) -> dict:
    """The contract with `answer` as its first key (the playground prints the output as JSON: answer on top)."""
    return {"answer": contract.get("answer", ""), **{k: v for k, v in contract.items() if k != "answer"}}


# ---------------------------------------------------------------------- routes
def _problem(exc: PageError) -> JSONResponse:
    return JSONResponse(status_code=exc.status, content={"detail": str(exc)})


def _cached(request: Request, etag: str, body: bytes, media_type: str, max_age: int = 0) -> Response:
    """`body` with its ETag (304 when the client has it); `max_age` 0: the client asks again each time."""
    cache = f"private, max-age={max_age}" if max_age else "private, no-cache"
    headers = {"etag": etag, "cache-control": cache, "x-content-type-options": "nosniff"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def mount(app: FastAPI, open_store: Callable[[], Any]) -> None:
    """Add the answer page's routes to `app` and make `/docs` and `/redoc` work offline; `open_store` gives
    the server's open index (the same one the systems read)."""
    router = APIRouter(tags=["answer page"])

    async def in_thread(fn, *args, **kwargs):
        store = await asyncio.to_thread(open_store)
        return await asyncio.to_thread(fn, store, *args, **kwargs)

    @router.get("/documents", summary="The filings in the index (an HTML page for browsers)")
    async def documents(request: Request):
        if wants_html(request):
            return page()

        def listing(store: OpenIndex) -> dict:
            hashes = store.document_hashes()
            docs = [identity(store, d, hashes.get(d.doc_id, ("", ""))[0]) for d in store.documents()]
            return {"documents": docs, "count": len(docs)}

        return await in_thread(listing)

    @router.get("/documents/{doc_id}/pages/{page_no}", summary="One page of a filing, with the cited passage")
    async def document_page(request: Request, doc_id: str, page_no: int,
                            chunk: Optional[int] = Query(None, description="the cited chunk's id "
                                                         f"(0-{MAX_CHUNK_ID})"),
                            mark: list[str] = Query(default=[], description="words to mark (figures, labels): at "
                                                    f"most {MAX_MARKS_ASKED}, each at most {MAX_MARK_QUERY_CHARS} "
                                                    "characters"),
                            zoom: float = Query(1.5, description=f"image zoom, one of {ZOOMS}")):
        try:
            view = await in_thread(page_view, doc_id, page_no, chunk_id=chunk, marks=mark, zoom=zoom)
        except PageError as exc:
            return _problem(exc)
        body = json.dumps(view).encode("utf-8")
        etag = '"' + hashlib.sha256(body).hexdigest()[:24] + '"'
        return _cached(request, etag, body, "application/json")

    @router.get("/documents/{doc_id}/pages/{page_no}/image", summary="A PDF page as PNG",
                response_class=Response)
    async def document_page_image(request: Request, doc_id: str, page_no: int, zoom: float = 1.5,
                                  v: str = Query("", max_length=64,
                                                 description="the filing's content hash (cache key only)")):
        try:
            png, etag = await in_thread(page_png, doc_id, page_no, zoom=zoom)
        except PageError as exc:
            return _problem(exc)
        return _cached(request, etag, png, "image/png", max_age=CACHE_SECONDS if v else 0)

    @router.get("/documents/{doc_id}/file", summary="The whole filing, as indexed", response_class=Response)
    async def document_file(doc_id: str):
        def find(store: OpenIndex):
            doc = filing(store, doc_id)
            state = file_state(doc["path"], doc["content_hash"])
            if state == "missing":
                raise PageError(404, f"the file of {doc_id} is no longer at its indexed path")
            if state == "changed":  # another file at the indexed path: never served as this filing (issue 49)
                raise PageError(409, f"{doc_id}: {CHANGED}")
            return doc

        try:
            doc = await in_thread(find)
        except PageError as exc:
            return _problem(exc)
        media = {"pdf": "application/pdf", "html": "text/html"}.get(doc["kind"], "text/plain")
        headers = {"x-content-type-options": "nosniff", "cache-control": "private, no-cache"}
        if doc["kind"] != "pdf":  # an HTML filing's scripts never run with this origin (it holds the page's key);
            headers["content-security-policy"] = "sandbox"  # (a sandboxed PDF would not open in Chromium's viewer)
        return FileResponse(doc["path"], media_type=media, headers=headers)

    app.include_router(router)
    _offline_docs(app)


def _offline_docs(app: FastAPI) -> None:
    """Swagger UI at /docs and ReDoc at /redoc from the files of `fastapi-offline`, instead of FastAPI's pages
    that load their scripts from a CDN (blank offline)."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.staticfiles import StaticFiles

    try:
        import fastapi_offline
    except ImportError:  # pragma: no cover - a dependency; without it FastAPI's CDN pages stay
        return
    assets = Path(fastapi_offline.__file__).resolve().parent / "static"
    base = "/docs-assets"
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) not in ("/docs", "/redoc")]
    title = app.title

    @lru_cache(maxsize=1)
    def redoc_js() -> bytes:
        # ReDoc's side menu shows a logo from its CDN (hidden when it fails): the shipped favicon instead
        text = (assets / "redoc.standalone.js").read_text(encoding="utf-8")
        return text.replace("https://cdn.redoc.ly/redoc/logo-mini.svg", f"{base}/favicon.png").encode("utf-8")

    @app.get(f"{base}/redoc.standalone.js", include_in_schema=False)
    async def redoc_script() -> Response:
        return Response(redoc_js(), media_type="text/javascript", headers={"cache-control": "public, max-age=86400"})

    app.mount(base, StaticFiles(directory=str(assets)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        # validatorUrl None: Swagger UI would otherwise show a badge image from validator.swagger.io
        return get_swagger_ui_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{title} - Swagger UI",
                                   swagger_js_url=f"{base}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{base}/swagger-ui.css", swagger_favicon_url=f"{base}/favicon.png",
                                   swagger_ui_parameters={**(app.swagger_ui_parameters or {}), "validatorUrl": None})

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{title} - ReDoc",
                              redoc_js_url=f"{base}/redoc.standalone.js", redoc_favicon_url=f"{base}/favicon.png",
                              with_google_fonts=False)

