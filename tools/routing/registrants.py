"""The SEC's list of registrants with tickers (issue 35), as routing reads it (issue 48).

`data/sec_registrants.jsonl.gz` holds one registrant a line: `cik`, `tickers` (every ticker of the CIK in the
SEC's order), `name` (the SEC's conformed name), `exchange` and `rank` (the row of its first ticker in the list;
the SEC orders it by market value, largest first). The first line is a header. `finrag.eval.sec_registrants`
regenerates the file and says where it comes from.

The linker reads it for names that continue an indexed company's name into another registrant's longer one
("Apple Hospitality REIT", "Coca-Cola Consolidated"): every SEC registrant is known, whether the index holds it or
not (`continuation.py`).
"""
from __future__ import annotations

import functools
import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path

from finrag.tools.routing.text import strip_legal_suffix

__all__ = ["REGISTRANTS_FILE", "SecRegistrant", "load_registrants", "name_tails"]

REGISTRANTS_FILE = Path(__file__).resolve().parent / "data" / "sec_registrants.jsonl.gz"


@dataclass(frozen=True)
class SecRegistrant:
    """One SEC registrant: its CIK, every ticker (SEC order), conformed name, exchange and rank in the list."""

    cik: int
    tickers: tuple[str, ...]
    name: str
    exchange: str
    rank: int


def load_registrants(path: Path = REGISTRANTS_FILE) -> list[SecRegistrant]:
    """The registrants of the committed file, in the SEC's order (largest first)."""
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if "cik" not in row:
                continue  # the header
            out.append(SecRegistrant(int(row["cik"]), tuple(row["tickers"]), str(row["name"]),
                                     str(row.get("exchange") or ""), int(row["rank"])))
    return out


@functools.lru_cache(maxsize=1)
def name_tails() -> dict[str, int]:
    """How many registrants' names of two words or more end with each word, legal form left out ('bancorp',
    'holdings'): a word that ends many names is generic, not one company's name."""
    out: dict[str, int] = {}
    for r in load_registrants():
        words = re.findall(r"[a-z0-9&]+", strip_legal_suffix(r.name).casefold())
        if len(words) > 1:
            out[words[-1]] = out.get(words[-1], 0) + 1
    return out
