"""`finrag serve`'s processes: uvicorn running the app of app/server.py, in this process or in worker processes.

A request is Python work under one interpreter lock, so one process answers on one core. `serve` runs
`workers` processes (default `default_workers()`: one per core this process may use, at most
`MAX_AUTO_WORKERS`) that share one listening socket, bound here; uvicorn's supervisor starts them, restarts
one that dies and stops them on SIGINT/SIGTERM. Each worker builds its own app (`_worker_app`: the index
opened, the embedder loaded, the read cache its own), answers each connection's one request
(`_OneRequestPerConnection`, so the next request goes to a worker that is free) and watches its supervisor:
killed with SIGKILL, the supervisor cannot stop them, so they stop by themselves (`_exit_with_parent`). With
one worker the app runs in this process, with keep-alive, as before workers existed.

Every process reads request headers with a timeout (app/http_timeouts.py, default 10 s):
a connection whose request line and headers are not complete in time is closed (408 when part was sent).
"""
from __future__ import annotations

import functools
import logging
import os
import signal
import threading
import time
from typing import Any, Optional

from finrag.guard import DEFAULT_MAX_BATCH
from finrag.http_timeouts import checked_header_timeout, protocol_class, with_header_timeout
from finrag.server import DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_S, _resolve_index, create_app
from finrag.state.settings import ServeSettings

__all__ = ["serve", "default_workers", "MAX_AUTO_WORKERS"]

log = logging.getLogger("finrag.server")

MAX_AUTO_WORKERS = 4  # each worker holds its own embedder, registry and read cache (a few hundred MB)
MAX_WORKERS = 64
WORKER_HEALTHCHECK_S = 120  # a worker imports finrag and opens the index before it answers the supervisor's ping;
# uvicorn's default (5 s) kills and restarts, forever, a worker that a loaded machine starts in more than 5 s


def default_workers() -> int:
    """`finrag serve`'s worker processes when none are asked for: one per core this process may use, at most
    `MAX_AUTO_WORKERS` (a request is Python work under one interpreter lock, so one process uses one core)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_AUTO_WORKERS))


def _log_to_stderr() -> None:
    """INFO lines on stderr, unless the embedding program configured logging itself."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _worker_app(index_dir: Any, api_key: Optional[str], max_body_bytes: int, timeout_s: float,
                max_batch: int, configurable: Optional[dict[str, Any]] = None) -> Any:
    """One worker process's app (`serve` with workers > 1 hands uvicorn this factory: it is pickled into each
    worker, which builds its own app, opens the index and warms up)."""
    _log_to_stderr()
    _exit_with_parent(os.getppid())
    return _OneRequestPerConnection(create_app(index_dir, api_key=api_key, max_body_bytes=max_body_bytes,
                                               timeout_s=timeout_s, max_batch=max_batch, configurable=configurable))


class _OneRequestPerConnection:
    """ASGI middleware of a worker: every HTTP response says `Connection: close`. Workers share one listening
    socket, and a kept-alive connection stays with the worker that accepted it; under load the busier worker's
    connections would queue behind each other while the other worker idles (p95 doubled in the load test).
    A new connection per request goes to a worker that is free to accept it (a loopback connect costs well
    under a millisecond, a request tens)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return

        async def send_closing(message: dict) -> None:
            if message.get("type") == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive, send_closing)


def _exit_with_parent(parent: int, every_s: float = 1.0, grace_s: float = 10.0) -> None:
    """A worker whose supervisor is gone (killed with SIGKILL, so it could not stop its workers) stops too: it
    would otherwise go on answering on the port, out of anyone's control. A daemon thread looks at the parent
    pid every `every_s`; when it changed, the worker shuts down as on SIGTERM (requests in flight finish), and
    exits after `grace_s` if that did not end it."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        log.warning("the supervising process %d is gone; this worker stops", parent)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace_s)
        os._exit(1)

    threading.Thread(target=watch, name="finrag-parent-watch", daemon=True).start()


def _worker_count(workers: Optional[int], env: ServeSettings) -> int:
    """`workers`, else FINRAG_SERVE_WORKERS, else `default_workers()`; 1-64, or a ValueError naming the source."""
    if workers is not None:
        n, source = workers, "workers"
    elif env.workers is not None:
        n, source = env.workers, "FINRAG_SERVE_WORKERS"
    else:
        return default_workers()
    if not 1 <= n <= MAX_WORKERS:
        raise ValueError(f"{source} must be 1-{MAX_WORKERS}, not {n}")
    return int(n)


def serve(host: str = "127.0.0.1", port: int = 8000, index_dir: Optional[str] = None,
          api_key: Optional[str] = None, *, max_body_bytes: Optional[int] = None,
          timeout_s: Optional[float] = None, log_level: str = "info", max_batch: Optional[int] = None,
          workers: Optional[int] = None, configurable: Optional[dict[str, Any]] = None) -> int:
    """Run the app with uvicorn until interrupted; 0 on a clean stop, 1 if the server could not start.

    `workers` processes share the listening socket (default: `default_workers()`, one per core, at most 4);
    each opens the index itself and answers requests on its own core. With 1 the app runs in this process.
    A connection whose request headers are not complete within FINRAG_SERVE_HEADER_TIMEOUT seconds (default
    `http_timeouts.DEFAULT_HEADER_TIMEOUT_S`, 10) is closed, in every process.
    Limits also come from the environment: FINRAG_SERVE_MAX_BODY (bytes), FINRAG_SERVE_TIMEOUT (seconds),
    FINRAG_SERVE_MAX_BATCH (inputs per /batch request), FINRAG_SERVE_WORKERS. `configurable`: `Configuration`
    values every request of every worker starts from (`finrag serve --llm`), above FINRAG_*.
    """
    import uvicorn

    _log_to_stderr()
    env = ServeSettings()  # FINRAG_SERVE_MAX_BODY, _TIMEOUT, _MAX_BATCH, _WORKERS, _HEADER_TIMEOUT
    max_body = max_body_bytes or (DEFAULT_MAX_BODY_BYTES if env.max_body is None else env.max_body)
    timeout = timeout_s or (DEFAULT_TIMEOUT_S if env.timeout is None else env.timeout)
    batch = max_batch or (DEFAULT_MAX_BATCH if env.max_batch is None else env.max_batch)
    n = _worker_count(workers, env)
    header_timeout = checked_header_timeout(env.header_timeout)  # FINRAG_SERVE_HEADER_TIMEOUT: in the config to workers
    if n == 1:
        app = create_app(index_dir, api_key=api_key, max_body_bytes=max_body, timeout_s=timeout, max_batch=batch,
                         configurable=configurable)
        _log_start(host, port, app.state.index_dir, api_key, n)
        server = uvicorn.Server(with_header_timeout(uvicorn.Config(
            app, host=host, port=int(port), log_level=log_level, timeout_graceful_shutdown=5, http=protocol_class()),
            header_timeout))
        try:
            server.run()
        except KeyboardInterrupt:
            return 0
        except SystemExit:  # uvicorn exits when it cannot bind (it has logged why)
            return 1
        return 0 if server.started else 1
    from uvicorn.supervisors import Multiprocess

    index = _resolve_index(index_dir)  # resolved here, so every worker opens the same index
    config = uvicorn.Config(functools.partial(_worker_app, index, api_key, max_body, timeout, batch, configurable),
                            factory=True,
                            host=host, port=int(port), log_level=log_level, timeout_graceful_shutdown=5, workers=n,
                            http=protocol_class(), timeout_worker_healthcheck=WORKER_HEALTHCHECK_S)
    with_header_timeout(config, header_timeout)  # pickled with the config into every worker
    _log_start(host, port, index, api_key, n)
    try:
        sock = config.bind_socket()  # bound once here; the workers accept on it
    except SystemExit:  # uvicorn exits when it cannot bind (it has logged why)
        return 1
    try:
        Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        return 0
    finally:
        sock.close()
    return 0


def _log_start(host: str, port: int, index: Any, api_key: Optional[str], workers: int) -> None:
    log.info("finrag serving on http://%s:%d (index %s, API key %s, %d worker process%s)", host, int(port), index,
             "required" if api_key else "off", workers, "" if workers == 1 else "es")
    if not api_key and not _loopback(host):
        log.warning("no API key on %s, an address other machines may reach: every client shares one thread store "
                    "(the one `finrag chat` uses), and can read, delete and crowd out anyone's conversations; "
                    "set --api-key or FINRAG_API_KEY to give each key its own", host)


def _loopback(host: str) -> bool:
    """Is `host` a loopback address or name (only this machine reaches it)?"""
    import ipaddress

    if host.strip().lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
