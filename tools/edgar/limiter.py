"""At most `rate` requests in any `period` seconds (SEC: 10 per second), with an injectable clock.

`RateLimiter(rate, period, clock, sleep)`: `acquire()` blocks (through `sleep`) until one more request
fits the window. Tests pass a fake clock whose `sleep` advances its time, so nothing really waits.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable

__all__ = ["RateLimiter"]


class RateLimiter:
    def __init__(self, rate: int = 10, period: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if rate < 1 or period <= 0:
            raise ValueError("rate must be >= 1 and period > 0")
        self.rate, self.period, self.clock, self.sleep = int(rate), float(period), clock, sleep
        self._times: deque[float] = deque()
        self._lock = threading.Lock()
        self.waited = 0.0

    def acquire(self) -> float:
        """Take one slot; returns the time it was granted (by `clock`)."""
        with self._lock:
            while True:
                now = self.clock()
                while self._times and now - self._times[0] >= self.period:
                    self._times.popleft()
                if len(self._times) < self.rate:
                    self._times.append(now)
                    return now
                wait = self.period - (now - self._times[0])
                self.waited += wait
                self.sleep(wait)
