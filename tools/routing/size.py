"""A prior from how large a registrant is, to break ties between companies one word could name (issue 48).

The SEC's list of registrants with tickers (`registrants.py`) is ordered by market value, largest first; a
company's `size_rank` is the row of its best ticker there (None for a company the list does not hold). "Unity",
"Intuitive" or "Toyota" begin the names of several registrants; a question is far more likely about Unity Software
(row 901) than about Unity Bancorp (row 3,230), about Intuitive Surgical than Intuitive Machines. `far_larger` says
when one company is so much larger than the others that one word names it: it is among the largest registrants
(`PROMINENT_RANK`) and every other one is not, or ranks at least `RATIO` times further down the list. Without that
margin (or without a rank) the tie stays a tie: the linker then keeps no reading or splits the evidence, as before.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Optional, Sequence

from finrag.tools.routing.registrants import load_registrants

__all__ = ["PROMINENT_RANK", "RATIO", "far_larger", "size_rank"]

PROMINENT_RANK = 1500
"""The largest registrants: rows of the SEC's list (market-value order) below this."""
RATIO = 5
"""Among the largest registrants, one is far larger than another when the other's row is this many times further
down the list."""


@lru_cache(maxsize=1)
def _ranks() -> dict[str, int]:
    out: dict[str, int] = {}
    for r in load_registrants():
        for t in r.tickers:
            key = t.replace("-", "").replace(".", "")
            out[key] = min(out.get(key, r.rank), r.rank)
    return out


def size_rank(tickers: Iterable[str]) -> Optional[int]:
    """The row of the company's best-ranked ticker in the SEC's list (0 = the largest), None when none is listed."""
    ranks = _ranks()
    found = [ranks[k] for t in tickers if (k := t.replace("-", "").replace(".", "")) in ranks]
    return min(found) if found else None


def far_larger(winner: Optional[int], others: Sequence[Optional[int]]) -> bool:
    """Whether a company at row `winner` is far larger than every company at rows `others` (None: not listed, read
    as small): it is among the `PROMINENT_RANK` largest, and each other is not, or ranks `RATIO` times further down."""
    if winner is None or winner >= PROMINENT_RANK or not others:
        return False
    return all(o is None or o >= PROMINENT_RANK or o >= RATIO * max(winner, 1) for o in others)
