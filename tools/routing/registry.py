"""The document registry: the filings of an index, their companies, and the question linker/resolver.

`Registry(docs, alias_file)` takes the `DocumentInfo` of every indexed filing (see
`finrag.tools.routing.documents.build_document_info`), merges the spellings of one company,
attaches the alias book (`aliases.py`, plus an optional user alias file) and indexes the names
and tickers. Then, deterministic and offline:

* **What a question asks about** – `Registry.link` finds companies (names and
  aliases, longest match first, case-insensitive except for common words and
  very short names), tickers (case-sensitive, ambiguous ones only in a ticker
  context such as ``$IT`` or ``(NYSE: ALL)``), fiscal years, quarters, forms and
  dates (`questions.py`), and returns an `ExtractedMetadata`.
* **Which document(s) to read** – `Registry.resolve` picks one document per
  company the question names (`resolver.best_document`). Only ids of registered
  documents can come out; a path in a question is just text.

Statuses: ``exact_path`` (company + period select exactly one filing),
``filename_fallback`` (several candidates, decided by the scoring in `resolver`, or a
date match), ``default_year`` (no period in the question),
``fallback_no_tickers`` (no known company: empty ids, the caller searches the
whole corpus), ``fallback_no_files_on_disk`` (known company but no filing of
it, or none of the asked period: empty ids – we do not guess a neighbouring
year, a wrong year's filing would answer with wrong numbers), ``multi_doc``
(several companies: the best filing of each).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from pydantic import BaseModel, Field

from finrag.state.schema import DocumentInfo, ExtractedMetadata
from finrag.tools.routing.aliases import builtin_aliases, load_alias_file
from finrag.tools.routing.cover import read_cover_text
from finrag.tools.routing.documents import build_document_info, clean_company_name, name_variants, readable_key
from finrag.tools.routing.questions import MAX_QUESTION_CHARS, detect_forms, extract_periods, question_cues
from finrag.tools.routing.resolver import best_document
from finrag.tools.routing.text import PathLike, edit_distance, squash, strip_accents, uniq

__all__ = ["STATUSES", "Registry", "Resolution"]

STATUSES = ("exact_path", "filename_fallback", "default_year", "fallback_no_tickers",
            "fallback_no_files_on_disk", "multi_doc")


class Resolution(BaseModel):
    """Which documents to read: ids from the registry only, with a status and a reason."""

    doc_ids: list[str] = Field(default_factory=list)
    status: str = "fallback_no_tickers"
    reason: str = ""


@dataclass
class _Company:
    key: str
    name: str = ""
    in_registry: bool = True
    tickers: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)


_TOKEN = re.compile(r"[^\W_]+|&")
_TICKER_TOKEN = re.compile(r"(?<![\w&.\-])(\$)?([A-Z]{2,5}(?:\.[A-Z])?)(?![\w&\-]|\.[A-Za-z])")
_TICKER_CONTEXT = re.compile(r"(?:\$|\(|\[|(?:NYSE|NASDAQ|Nasdaq|ticker|symbol)\s*:?\s*)$", re.I)
_NEVER_TICKERS = {
    "CEO", "CFO", "COO", "CTO", "EPS", "GAAP", "USD", "EUR", "GBP", "JPY", "FY", "YOY", "QOQ", "TTM", "LTM",
    "YTD", "EBIT", "EBITDA", "ROA", "ROE", "ROI", "ROIC", "DPO", "DSO", "DIO", "CCC", "FCF", "COGS",
    "CAPEX", "OPEX", "PPE", "PPNE", "CAGR", "SGA", "USA", "US", "UK", "EU", "SEC", "IPO", "ESG", "HR", "RD",
    "FX", "NYSE", "LLC", "INC", "LP", "ETF", "REIT", "GDP", "CPI", "AND", "THE", "FOR", "NA", "OK", "IRS",
    "FDA", "DOJ", "FTC", "EPA", "AI", "API", "ASC", "IFRS", "FASB", "NAV", "AUM", "NII", "NIM", "BPS",
    "LIFO", "FIFO", "RSU", "PSU", "SBC", "DTA", "DTL", "NOL", "OCI", "AOCI", "WACC", "DCF", "EV",
}


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end) – lower case, accents removed, '&' kept as a token."""
    return [(strip_accents(m.group(0)).casefold(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _alias_tokens(alias: str) -> tuple[str, ...]:
    return tuple(t for t, _, _ in _tokens(alias))


class Registry:
    """The documents of an index, their companies, and the question linker/resolver."""

    def __init__(self, docs: Iterable[DocumentInfo], alias_file: Optional[PathLike] = None):
        self._docs: dict[str, DocumentInfo] = {}
        for d in docs or []:
            if isinstance(d, DocumentInfo) and d.doc_id and d.doc_id not in self._docs:
                self._docs[d.doc_id] = d
        self._book = builtin_aliases()
        if alias_file:
            self._book = self._book.merged(load_alias_file(alias_file))
        self._ticker_class = self._ticker_classes(self._book.history)
        self._doc_key: dict[str, str] = self._merge_company_keys()
        self._companies: dict[str, _Company] = {}
        self._build_companies()
        self._attach_alias_entries()
        self._build_indexes()

    # ----- construction ---------------------------------------------------
    @staticmethod
    def _ticker_classes(history: list[tuple[str, str]]) -> dict[str, set[str]]:
        parent: dict[str, str] = {}

        def find(t: str) -> str:
            while parent.setdefault(t, t) != t:
                t = parent[t]
            return t

        for old, new in history:
            if old and new:
                parent[find(old)] = find(new)
        groups: dict[str, set[str]] = {}
        for t in list(parent):
            groups.setdefault(find(t), set()).add(t)
        return {t: groups[find(t)] for t in parent}

    def _equivalent_tickers(self, tickers: Iterable[str]) -> list[str]:
        out = []
        for t in tickers:
            t = str(t).upper().strip()
            if t:
                out.append(t)
                out.extend(sorted(self._ticker_class.get(t, ())))
        return uniq(out)

    def _merge_company_keys(self) -> dict[str, str]:
        """doc_id -> company key, merging spellings of one company ('JOHNSON_JOHNSON' ~ 'JOHNSONJOHNSON',
        a one-letter typo of a key with more filings, a ticker used as key)."""
        count: dict[str, int] = {}
        for d in self._docs.values():
            k = d.company_key or squash(d.company) or d.doc_id.upper()
            count[k] = count.get(k, 0) + 1
        ranked = sorted(count, key=lambda k: (-count[k], k))
        canon: dict[str, str] = {}
        ticker_owner: dict[str, str] = {}
        for d in self._docs.values():
            for t in d.tickers:
                ticker_owner.setdefault(t.upper(), d.company_key)
        for k in ranked:
            sq = squash(k)
            target = next((c for c in canon.values() if squash(c) == sq), None)
            if target is None and len(sq) >= 6:
                target = next((c for c in dict.fromkeys(canon.values())
                               if len(squash(c)) >= 6 and edit_distance(sq, squash(c), 1) <= 1), None)
            if target is None and k in ticker_owner and ticker_owner[k] != k and ticker_owner[k] in canon:
                target = canon[ticker_owner[k]]
            canon[k] = target or k
        return {d.doc_id: canon[d.company_key or squash(d.company) or d.doc_id.upper()] for d in self._docs.values()}

    def _build_companies(self) -> None:
        for doc_id, d in sorted(self._docs.items(), key=lambda kv: (kv[1].fiscal_year or 0, kv[0])):
            key = self._doc_key[doc_id]
            comp = self._companies.setdefault(key, _Company(key=key))
            comp.doc_ids.append(doc_id)
            comp.name = d.company or comp.name or readable_key(key)  # latest filing's name wins
            comp.tickers = uniq([*comp.tickers, *d.tickers])
            comp.names = uniq([*comp.names, key, d.company, clean_company_name(d.registrant), *d.aliases])

    def _attach_alias_entries(self) -> None:
        """Give registry companies the alias knowledge that matches them (by file key, name or
        ticker, ticker history included); the other entries become companies without documents."""
        by_name: dict[str, str] = {}
        by_ticker: dict[str, str] = {}

        def register(ckey: str) -> None:
            comp = self._companies[ckey]
            for n in [comp.key, *comp.names]:
                if squash(n):
                    by_name.setdefault(squash(n), ckey)
            for t in self._equivalent_tickers(comp.tickers):
                by_ticker.setdefault(t, ckey)

        for ckey in list(self._companies):
            register(ckey)
        for entry in self._book.entries:
            ckey = next((by_name[k] for k in sorted(entry.squashed_keys()) if k in by_name), None) \
                or next((by_ticker[t] for t in self._equivalent_tickers(entry.tickers) if t in by_ticker), None)
            if ckey is None:
                key = (entry.key or squash(entry.name)).upper()
                if not key:
                    continue
                ckey = f"~{key}"
                self._companies[ckey] = _Company(key=key, name=entry.name or readable_key(key), in_registry=False)
            comp = self._companies[ckey]
            if entry.name and (comp.in_registry or not comp.name):
                comp.name = entry.name
            comp.tickers = uniq([*comp.tickers, *entry.tickers])
            comp.names = uniq([*comp.names, *(v for n in entry.names() for v in name_variants(n))])
            register(ckey)
        for comp in self._companies.values():
            comp.tickers = self._equivalent_tickers(comp.tickers)

    def _build_indexes(self) -> None:
        self._alias_index: dict[tuple[str, ...], set[str]] = {}
        self._ticker_index: dict[str, set[str]] = {}
        for ckey, comp in self._companies.items():
            for n in comp.names:
                toks = _alias_tokens(n)
                if toks and not (len(toks) == 1 and toks[0].isdigit()):
                    self._alias_index.setdefault(toks, set()).add(ckey)
            for t in comp.tickers:
                self._ticker_index.setdefault(t.upper(), set()).add(ckey)
        self._max_alias_len = max((len(t) for t in self._alias_index), default=1)
        self._docs_by_company = {k: [self._docs[i] for i in c.doc_ids] for k, c in self._companies.items()}

    @classmethod
    def from_paths(cls, paths: Iterable[PathLike], alias_file: Optional[PathLike] = None) -> "Registry":
        """Build from files on disk (reads the first 3 pages of each)."""
        return cls([build_document_info(p, read_cover_text(p)) for p in paths], alias_file=alias_file)

    # ----- simple accessors -----------------------------------------------
    def get(self, doc_id: str) -> Optional[DocumentInfo]:
        return self._docs.get(doc_id) if isinstance(doc_id, str) else None

    def doc_ids(self) -> list[str]:
        return sorted(self._docs)

    def companies(self) -> dict[str, str]:
        """company_key -> display name, for companies that have documents."""
        return {k: c.name for k, c in sorted(self._companies.items()) if c.in_registry}

    def company_of(self, doc_id: str) -> str:
        """The (merged) company key of a document, '' if unknown."""
        return self._doc_key.get(doc_id, "")

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    # ----- linking ----------------------------------------------------------
    def _alias_ok(self, alias: tuple[str, ...], text: str, start: int, end: int) -> bool:
        original = text[start:end]
        if len(alias) == 1:
            tok = alias[0]
            if tok in self._book.common_words and not original[:1].isupper():
                return False
            if len(tok) <= 3 and original.islower():
                return False
            if tok[:1].isdigit() and start > 0 and re.match(r"[$.,\d]", text[start - 1]):
                return False
        return True

    def _find_companies(self, text: str) -> list[str]:
        toks = _tokens(text)
        found, i = [], 0
        while i < len(toks):
            hit = None
            for n in range(min(self._max_alias_len, len(toks) - i), 0, -1):
                key = tuple(t for t, _, _ in toks[i:i + n])
                if key in self._alias_index and self._alias_ok(key, text, toks[i][1], toks[i + n - 1][2]):
                    hit = (n, self._alias_index[key])
                    break
            if hit:
                found.extend(sorted(hit[1], key=lambda k: (not self._companies[k].in_registry, k)))
                i += hit[0]
            else:
                i += 1
        return uniq(found)

    def _find_tickers(self, text: str) -> list[tuple[str, list[str]]]:
        letters = [c for c in text if c.isalpha()]
        shouting = len(letters) > 20 and sum(c.isupper() for c in letters) > 0.6 * len(letters)
        out = []
        for m in _TICKER_TOKEN.finditer(text):
            tick = m.group(2)
            keys = self._ticker_index.get(tick)
            if not keys or (tick in _NEVER_TICKERS and not m.group(1)):
                continue
            ambiguous = tick in self._book.ambiguous_tickers or tick.lower() in self._book.common_words
            context = bool(m.group(1)) or bool(_TICKER_CONTEXT.search(text[max(0, m.start() - 12):m.start()])) \
                or text[m.end():m.end() + 1] == ")"
            if (ambiguous or shouting) and not context:
                continue
            out.append((tick, sorted(keys, key=lambda k: (not self._companies[k].in_registry, k))))
        return out

    def link(self, question: str) -> ExtractedMetadata:
        """Deterministic entity linking: companies, tickers, years, periods, forms, dates."""
        text = question[:MAX_QUESTION_CHARS] if isinstance(question, str) else ""
        if not text.strip():
            return ExtractedMetadata()
        keys = self._find_companies(text)
        explicit = []
        for tick, tkeys in self._find_tickers(text):
            explicit.append(tick)
            keys.extend(tkeys)
        keys = uniq(keys)
        tickers = uniq([*explicit, *(self._companies[k].tickers[0] for k in keys if self._companies[k].tickers)])
        years, periods, dates = extract_periods(text)
        return ExtractedMetadata(companies=[self._companies[k].name for k in keys], tickers=tickers,
                                 years=years, periods=periods, forms=detect_forms(text), dates=dates)

    # ----- resolving ----------------------------------------------------------
    def _keys_of(self, extracted: ExtractedMetadata) -> list[str]:
        keys: list[str] = []
        for name in extracted.companies or []:
            toks = _alias_tokens(str(name))
            if toks in self._alias_index:
                keys.extend(sorted(self._alias_index[toks]))
            else:
                keys.extend(self._find_companies(str(name)))
        for tick in extracted.tickers or []:
            for t in self._equivalent_tickers([str(tick).upper().lstrip("$")]):
                keys.extend(sorted(self._ticker_index.get(t, ())))
        return uniq(keys)

    def resolve(self, extracted: Optional[ExtractedMetadata], question: str = "",
                default_year: int = 2023) -> Resolution:
        """Pick the document(s) a question is about: the best filing of each company it names (the rules
        are in `finrag.tools.routing.resolver`; statuses in the module docstring)."""
        ex = extracted if isinstance(extracted, ExtractedMetadata) else ExtractedMetadata()
        keys = self._keys_of(ex)
        in_reg = [k for k in keys if self._companies[k].in_registry and self._docs_by_company.get(k)]
        if not in_reg:
            if keys:
                names = ", ".join(self._companies[k].name for k in keys)
                return Resolution(status="fallback_no_files_on_disk",
                                  reason=f"recognised {names}, but the registry has no document of it")
            return Resolution(status="fallback_no_tickers", reason="no known company or ticker in the question")
        cues = question_cues(question)
        picks = [(k, *best_document(self._docs_by_company[k], self._companies[k].name, ex, cues, default_year))
                 for k in in_reg]
        if len(picks) == 1:
            _, doc_id, status, why = picks[0]
            return Resolution(doc_ids=[doc_id] if doc_id else [], status=status, reason=why)
        doc_ids = uniq(d for _, d, _, _ in picks)
        reason = "; ".join(f"{self._companies[k].name}: {d or '-'} ({s}: {w})" for k, d, s, w in picks)
        if not doc_ids:
            return Resolution(status="fallback_no_files_on_disk", reason=reason)
        return Resolution(doc_ids=doc_ids, status="multi_doc", reason=reason)
