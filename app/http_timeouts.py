"""A read timeout for request headers, for `finrag serve` (uvicorn has none).

uvicorn times out an idle kept-alive connection, but not a request whose line and headers arrive slowly or not
at all: a client that sends `GET /health HTTP/1.1\\r\\nHost: x\\r\\n` and stalls held its connection (and a slot
of the server's connections) for ever. The protocol classes here are uvicorn's own (`HttpToolsProtocol` where
httptools is installed, `H11Protocol` otherwise, as uvicorn's "auto" picks) with one timer added: it starts
when a connection is made and when the first byte of a request arrives on a kept-alive connection, and stops
when the request's headers are complete. When it fires, a client that had sent part of a request gets
`408 Request Timeout` and the connection is closed; one that sent nothing is closed without a reply.
A request body is not covered here: its pace is the guard's (app/guard.py) and the request timeout's.

    config = uvicorn.Config(app, http=protocol_class())
    with_header_timeout(config, 10.0)   # seconds; travels with the config into worker processes

The timeout is read from the config (attribute `HEADER_TIMEOUT_ATTR`), which uvicorn hands every protocol
instance and pickles into each worker process, so one setting covers one process and many.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Optional

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["DEFAULT_HEADER_TIMEOUT_S", "HEADER_TIMEOUT_ATTR", "HeaderTimeoutH11", "MAX_HEADER_TIMEOUT_S",
           "header_timeout_of", "protocol_class", "with_header_timeout"]

DEFAULT_HEADER_TIMEOUT_S = 10.0
"""Seconds a request's line and headers may take; read when a config is given its timeout (`with_header_timeout`
with None), so the value at `serve()`'s start is the one every worker uses."""
MAX_HEADER_TIMEOUT_S = 3600.0
HEADER_TIMEOUT_ATTR = "finrag_header_timeout_s"
_REPLY = b"request header not complete in time; the connection is closed\n"
_408 = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        b"content-length: " + str(len(_REPLY)).encode() + b"\r\n\r\n" + _REPLY)

log = logging.getLogger("finrag.server")


def with_header_timeout(config: Any, seconds: Optional[float]) -> Any:
    """Set the header read timeout of a `uvicorn.Config` (None: `DEFAULT_HEADER_TIMEOUT_S`); a ValueError for a
    value that is not a number of seconds in (0, MAX_HEADER_TIMEOUT_S]. Returns `config`."""
    setattr(config, HEADER_TIMEOUT_ATTR, checked_header_timeout(seconds))
    return config


def checked_header_timeout(seconds: Optional[float]) -> float:
    """`seconds` as a header timeout (None: the default), or a ValueError in one line."""
    if seconds is None:
        return DEFAULT_HEADER_TIMEOUT_S
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise ValueError(f"header_timeout_s must be a number of seconds, not {seconds!r}") from None
    if not 0 < value <= MAX_HEADER_TIMEOUT_S:  # also NaN
        raise ValueError(f"header_timeout_s must be more than 0 and at most {MAX_HEADER_TIMEOUT_S:g} seconds, "
                         f"not {seconds!r}")
    return value


def header_timeout_of(config: Any) -> float:
    """The header read timeout a protocol instance uses: the config's, else the default."""
    value = getattr(config, HEADER_TIMEOUT_ATTR, None)
    return DEFAULT_HEADER_TIMEOUT_S if value is None else float(value)


class _HeaderTimer:
    """The timer both protocol classes share: `_arm(partial)` when headers are awaited, `_disarm()` when they
    are complete (or the connection is gone)."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    config: Any
    client: Any
    _header_timer: Optional[asyncio.TimerHandle] = None
    _header_partial = False

    def _arm(self, partial: bool) -> None:
        self._header_partial = self._header_partial or partial
        if self._header_timer is None and self.transport is not None and not self.transport.is_closing():
            self._header_timer = self.loop.call_later(header_timeout_of(self.config), self._header_timed_out)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer, self._header_partial = None, False

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        cycle = getattr(self, "cycle", None)
        if cycle is not None and not cycle.response_complete:  # a pipelined request stalls while one is answered:
            self._arm(partial=True)                              # never cut that answer; look again later
            return
        who = "%s:%d" % tuple(self.client[:2]) if self.client else "a client"
        if self._header_partial:
            log.info("closed the connection of %s: its request header was not complete within %g s", who,
                     header_timeout_of(self.config))
            self.transport.write(_408)
        self.transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """A new connection: the timer runs until its first request's headers are complete."""
        super().connection_made(transport)  # type: ignore[misc]
        self._arm(partial=False)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]


class HeaderTimeoutH11(_HeaderTimer, H11Protocol):
    """uvicorn's h11 protocol with the header read timeout (see the module's docstring)."""

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._check_partial()

    def on_response_complete(self) -> None:  # a pipelined request may be waiting, part-way, behind the answer
        super().on_response_complete()
        self._check_partial()

    def _check_partial(self) -> None:
        """Arm the timer while part of a request's line or headers is buffered, disarm it once they are complete."""
        import h11

        if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            if self.conn.trailing_data[0].strip():
                self._arm(partial=True)
        elif self.conn.their_state is not h11.DONE or self.conn.our_state is not h11.DONE:
            self._disarm()


def _httptools_class() -> Optional[type]:
    """uvicorn's httptools protocol with the header read timeout, or None without httptools."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return None

    class HeaderTimeoutHttpTools(_HeaderTimer, HttpToolsProtocol):
        """uvicorn's httptools protocol with the header read timeout (see the module's docstring)."""

        def on_message_begin(self) -> None:  # the first byte of a request
            super().on_message_begin()
            self._arm(partial=True)

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

    HeaderTimeoutHttpTools.__qualname__ = "HeaderTimeoutHttpTools"
    return HeaderTimeoutHttpTools


HeaderTimeoutHttpTools = _httptools_class()
"""uvicorn's httptools protocol with the header read timeout; None where httptools is not installed."""


def protocol_class() -> type[asyncio.Protocol]:
    """The protocol `finrag serve` runs: httptools where it is installed (uvicorn's "auto" choice), else h11,
    each with the header read timeout."""
    return HeaderTimeoutHttpTools or HeaderTimeoutH11
