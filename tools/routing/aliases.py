"""Alias knowledge: company names, file keys, tickers, ticker history and the words that need care.

The built-in knowledge is `data/aliases.yaml` (`builtin_aliases`); a user alias file (YAML in the
same layout, or CSV rows ``company_key_or_ticker,alias`` / ``old_ticker,new_ticker``) is read by
`load_alias_file` and merged on top by the registry. A missing or broken file gives an empty book.
"""
from __future__ import annotations

import csv
import functools
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

import yaml

from finrag.tools.routing.text import TICKER_SHAPE, PathLike, squash
from finrag.tools.sequences import uniq

__all__ = ["BUILTIN_ALIAS_FILE", "AliasBook", "AliasEntry", "builtin_aliases", "load_alias_file"]

BUILTIN_ALIAS_FILE = Path(__file__).resolve().parent / "data" / "aliases.yaml"


@dataclass
class AliasEntry:
    """What is known about one company's names: canonical name, file key, tickers, aliases."""

    name: str = ""
    key: str = ""
    tickers: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return uniq([self.name, *self.aliases])

    def squashed_keys(self) -> set[str]:
        out = {squash(self.key)} if self.key else set()
        out |= {squash(n) for n in self.names()}
        return {k for k in out if k}


@dataclass
class AliasBook:
    """A set of alias entries, ticker history and the words that need care."""

    entries: list[AliasEntry] = field(default_factory=list)
    history: list[tuple[str, str]] = field(default_factory=list)
    common_words: set[str] = field(default_factory=set)
    ambiguous_tickers: set[str] = field(default_factory=set)

    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def merged(self, other: "AliasBook") -> "AliasBook":
        return AliasBook(self.entries + other.entries, self.history + other.history,
                         self.common_words | other.common_words,
                         self.ambiguous_tickers | other.ambiguous_tickers)

    def _indexes(self) -> tuple[dict[str, str], dict[str, AliasEntry], dict[str, AliasEntry]]:
        if "idx" not in self._cache:
            keys: dict[str, str] = {}
            by_name: dict[str, AliasEntry] = {}
            by_ticker: dict[str, AliasEntry] = {}
            for e in self.entries:
                canon = (e.key or squash(e.name)).upper()
                for k in sorted(e.squashed_keys()):
                    keys.setdefault(k, canon)
                    by_name.setdefault(k, e)
                for t in e.tickers:
                    by_ticker.setdefault(t.upper(), e)
            self._cache["idx"] = (keys, by_name, by_ticker)
        return self._cache["idx"]

    def known_keys(self) -> dict[str, str]:
        """squashed name or key -> file key (the explicit `key`, else the squashed name)."""
        return self._indexes()[0]

    def entry_for(self, company_key: str = "", names: Iterable[str] = (), tickers: Iterable[str] = ()):
        """The entry describing a company, by key, name or ticker (or None)."""
        _, by_name, by_ticker = self._indexes()
        for n in [company_key, *names]:
            e = by_name.get(squash(n)) if n else None
            if e is not None:
                return e
        for t in tickers:
            e = by_ticker.get(str(t).upper()) if t else None
            if e is not None:
                return e
        return None


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple, set)):
        return [str(v).strip() for v in value if str(v).strip()]
    return [s.strip() for s in str(value).split("|") if s.strip()]


def _book_from_yaml(data) -> AliasBook:
    book = AliasBook()
    if not isinstance(data, dict):
        return book
    for item in data.get("companies") or []:
        if isinstance(item, dict) and (item.get("name") or item.get("key")):
            book.entries.append(AliasEntry(
                name=str(item.get("name") or ""), key=str(item.get("key") or ""),
                tickers=[t.upper() for t in _as_list(item.get("tickers"))],
                aliases=_as_list(item.get("aliases"))))
    simple = data.get("aliases") or {}
    if isinstance(simple, dict):  # {company_key_or_ticker: [alias, ...]}
        for ref, aliases in simple.items():
            book.entries.append(_entry_for_ref(str(ref), _as_list(aliases)))
    hist = data.get("ticker_history") or []
    pairs = hist.items() if isinstance(hist, dict) else hist
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            book.history.append((str(pair[0]).upper().strip(), str(pair[1]).upper().strip()))
    book.common_words = {str(w).lower() for w in data.get("common_words") or []}
    book.ambiguous_tickers = {str(t).upper() for t in data.get("ambiguous_tickers") or []}
    return book


def _entry_for_ref(ref: str, aliases: list[str]) -> AliasEntry:
    ref = ref.strip()
    is_ticker = bool(TICKER_SHAPE.fullmatch(ref))
    return AliasEntry(key=ref.upper(), tickers=[ref.upper()] if is_ticker else [], aliases=aliases)


_CSV_ALIAS_HEADERS = {"company", "company_key", "key", "ticker", "company_key_or_ticker", "alias"}
_CSV_HISTORY_HEADERS = {"old_ticker", "new_ticker", "old", "new"}


def _book_from_csv(text: str) -> AliasBook:
    """CSV rows `company_key_or_ticker,alias`; ticker history as `old_ticker,new_ticker`.

    A header row switches the mode (`company_key_or_ticker,alias` or
    `old_ticker,new_ticker`); a third column `alias` / `history` (or `ticker`)
    sets it for one row. Lines starting with '#' are comments.
    """
    book = AliasBook()
    mode = "alias"
    for row in csv.reader(io.StringIO(text)):
        cells = [c.strip() for c in row]
        if not cells or not cells[0] or cells[0].startswith("#") or len(cells) < 2:
            continue
        low = {c.lower() for c in cells[:2]}
        if low <= _CSV_HISTORY_HEADERS:
            mode = "history"
            continue
        if low <= _CSV_ALIAS_HEADERS:
            mode = "alias"
            continue
        kind = cells[2].lower() if len(cells) > 2 and cells[2] else mode
        if kind in ("history", "ticker_history", "ticker"):
            book.history.append((cells[0].upper(), cells[1].upper()))
        elif cells[1]:
            book.entries.append(_entry_for_ref(cells[0], [cells[1]]))
    return book


def _yaml_loader():
    """A safe loader where only true/false are booleans: tickers ON, YES, NO stay strings."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _Loader(base):  # type: ignore[misc, valid-type]
        pass

    _Loader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
        for k, v in base.yaml_implicit_resolvers.items()}
    _Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                  list("tTfF"))
    return _Loader


def load_alias_file(path: Optional[PathLike]) -> AliasBook:
    """Read a YAML or CSV alias file; a missing or unreadable file gives an empty book."""
    if not path:
        return AliasBook()
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return AliasBook()
    if Path(path).suffix.lower() == ".csv":
        return _book_from_csv(text)
    try:
        data = yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError:
        return _book_from_csv(text)
    if isinstance(data, dict):
        return _book_from_yaml(data)
    return _book_from_csv(text)


@functools.lru_cache(maxsize=1)
def builtin_aliases() -> AliasBook:
    """The alias knowledge shipped in tools/routing/data/aliases.yaml (cached)."""
    return load_alias_file(BUILTIN_ALIAS_FILE)
