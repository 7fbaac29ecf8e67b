"""HTTP for EDGAR under SEC's fair-access rules: a declared User-Agent, a rate limit, retries with backoff.

* **User-Agent.** SEC asks automated clients to declare who they are: a name and an e-mail address
  ("Jane Doe jane@example.com"). `check_user_agent` refuses anything else with a message saying how to set it
  (`FINRAG_SEC_USER_AGENT` or `--user-agent`).
* **Rate.** Every request (retries included) takes a slot of the `RateLimiter` (10 per second).
* **Retries.** 429 and 5xx answers and connection errors are retried up to `max_tries` times in all, waiting
  `Retry-After` when the server sends it, else `backoff * 2**n` seconds (capped at `max_backoff`).
* **Base URLs.** `www` (company_tickers.json, Archives) and `data` (submissions) default to SEC's hosts; a mirror
  or a test server that serves both gives one `base_url` for both.

Every failure is an `EdgarError` with a one-line message naming the URL.
"""
from __future__ import annotations

import json
import re
import time
from typing import Callable, Optional

import httpx

from finrag.tools.edgar.limiter import RateLimiter

__all__ = ["DATA_URL", "ENV_USER_AGENT", "WWW_URL", "EdgarClient", "EdgarError", "check_user_agent"]

WWW_URL = "https://www.sec.gov"
DATA_URL = "https://data.sec.gov"
ENV_USER_AGENT = "FINRAG_SEC_USER_AGENT"  # ProcessSettings.sec_user_agent
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
RETRY_STATUSES = (429, 500, 502, 503, 504)


class EdgarError(Exception):
    """A request to EDGAR that failed for good, with a one-line reason."""

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.status = status


def check_user_agent(value: Optional[str]) -> str:
    """The declared User-Agent ('Name e-mail'), or ValueError with a message that says how to set it."""
    ua = re.sub(r"\s+", " ", str(value or "")).strip()
    how = (f'SEC requires a User-Agent naming you and your e-mail: set {ENV_USER_AGENT}="Jane Doe jane@example.com" '
           'or pass --user-agent "Jane Doe jane@example.com"')
    if not ua:
        raise ValueError(f"no User-Agent given; {how}")
    email = _EMAIL.search(ua)
    name = _EMAIL.sub("", ua).strip(" <>,;()")
    if not email or not re.search(r"[A-Za-z]{2,}", name):
        raise ValueError(f"User-Agent {ua!r} needs a name and an e-mail address; {how}")
    return ua


class EdgarClient:
    def __init__(self, user_agent: str, base_url: Optional[str] = None, *, rate: int = 10,
                 limiter: Optional[RateLimiter] = None, max_tries: int = 5, backoff: float = 1.0,
                 max_backoff: float = 30.0, timeout: float = 60.0,
                 sleep: Callable[[float], None] = time.sleep, transport: Optional[httpx.BaseTransport] = None):
        self.user_agent = check_user_agent(user_agent)
        base = (base_url or "").rstrip("/")  # the caller's (`finrag fetch --base-url`, else FINRAG_SEC_BASE_URL)
        if base and not re.match(r"https?://[^/\s]+", base):
            raise ValueError(f"bad EDGAR base URL {base!r}: expected http(s)://host[:port][/path]")
        self.www = base or WWW_URL
        self.data = base or DATA_URL
        self.limiter = limiter or RateLimiter(rate)
        self.max_tries, self.backoff, self.max_backoff = max(1, int(max_tries)), float(backoff), float(max_backoff)
        self.sleep = sleep
        self.requests = 0
        self.retries = 0
        self._http = httpx.Client(headers={"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"},
                                  timeout=timeout, follow_redirects=True, transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "EdgarClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _wait(self, attempt: int, response: Optional[httpx.Response]) -> float:
        if response is not None:
            try:
                return min(float(response.headers.get("Retry-After", "")), 60.0)
            except ValueError:
                pass
        return min(self.backoff * (2 ** attempt), self.max_backoff)

    def get(self, url: str) -> bytes:
        """The body of `url` (absolute), retrying 429/5xx and connection errors; EdgarError otherwise."""
        last = ""
        status: Optional[int] = None
        for attempt in range(self.max_tries):
            self.limiter.acquire()
            self.requests += 1
            response = None
            try:
                response = self._http.get(url)
            except httpx.HTTPError as exc:
                last, status = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no answer'}", None
            else:
                status = response.status_code
                if status == 200:
                    return response.content
                if status not in RETRY_STATUSES:
                    hint = " (not found)" if status == 404 else \
                        " (forbidden: SEC refuses requests without a proper User-Agent)" if status == 403 else ""
                    raise EdgarError(f"HTTP {status}{hint} for {url}", status)
                last = f"HTTP {status}"
            if attempt + 1 < self.max_tries:
                self.retries += 1
                self.sleep(self._wait(attempt, response))
        raise EdgarError(f"{last} for {url} (gave up after {self.max_tries} tries)", status)

    def get_json(self, url: str):
        body = self.get(url)
        try:
            return json.loads(body.decode("utf-8", errors="replace"))
        except json.JSONDecodeError as exc:
            raise EdgarError(f"malformed JSON from {url}: {exc.msg} at line {exc.lineno} column {exc.colno}") \
                from None
