"""A loopback stand-in for EDGAR: serves the hand-written fixtures under `tests/support/edgar/` at SEC's paths
(`/files/company_tickers.json`, `/submissions/CIK##########.json`, `/Archives/edgar/data/...`), one base URL for
both of SEC's hosts, as a mirror would. Faults are injected per path: a list of statuses (or "malformed") served
before the real file, a delay, a permanent status. Every request is recorded with its User-Agent.

Run it alone (for a subprocess test): `python tests/support/edgar_server.py PORT [--slow PATH SECONDS]`.
"""
from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "edgar"
_TYPES = {".json": "application/json", ".htm": "text/html", ".html": "text/html", ".txt": "text/plain"}


class EdgarFixtureServer:
    def __init__(self, root: Path = ROOT, port: int = 0):
        self.root = root
        self.faults: dict[str, list] = {}  # path -> statuses (int) or "malformed", served first, one per request
        self.always: dict[str, int] = {}  # path -> status served every time
        self.delay: dict[str, float] = {}  # path -> seconds before answering
        self.requests: list[tuple[float, str, str]] = []  # (monotonic time, path, user agent)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):
                path = self.path.split("?")[0]
                with server._lock:
                    server.requests.append((time.monotonic(), path, self.headers.get("User-Agent", "")))
                    fault = server.faults.get(path, []).pop(0) if server.faults.get(path) else None
                if server.delay.get(path):
                    time.sleep(server.delay[path])
                status = server.always.get(path) or (fault if isinstance(fault, int) else None)
                if status:
                    body = f"<html><body>status {status}</body></html>".encode()
                    self.send_response(status)
                    if status == 429:
                        self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                file = (server.root / path.lstrip("/")).resolve()
                if server.root.resolve() not in file.parents or not file.is_file():
                    self.send_error(404)
                    return
                body = file.read_bytes()
                if fault == "malformed":
                    body = body[: max(1, len(body) // 2)]
                self.send_response(200)
                self.send_header("Content-Type", _TYPES.get(file.suffix, "application/octet-stream"))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def paths(self) -> list[str]:
        return [p for _, p, _ in self.requests]

    def __enter__(self) -> "EdgarFixtureServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":
    srv = EdgarFixtureServer(port=int(sys.argv[1]))
    if "--slow" in sys.argv:
        i = sys.argv.index("--slow")
        srv.delay[sys.argv[i + 1]] = float(sys.argv[i + 2])
    print(srv.url, flush=True)
    srv.httpd.serve_forever()
