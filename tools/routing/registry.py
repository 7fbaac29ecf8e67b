"""Document registry and deterministic question linker (the SFR/HDRR router).

Three layers, all deterministic and offline:

1. **What a filing is** – `parse_path` reads the file name (FinanceBench
   ``{COMPANY}_{PERIOD}_{TYPE}[_dated-{DATE}].pdf``, the paper's
   ``{year}/{TICKER}.pdf`` and a generic fallback), `parse_cover_page` reads the
   SEC cover page (registrant, trading symbols, fiscal year end, form, report
   date) and `build_document_info` combines both into a `DocumentInfo` with
   display name and name variants. None of them ever raises on bad input.
2. **What a question asks about** – `Registry.link` finds companies (names and
   aliases, longest match first, case-insensitive except for common words and
   very short names), tickers (case-sensitive, ambiguous ones only in a ticker
   context such as ``$IT`` or ``(NYSE: ALL)``), fiscal years, quarters, forms and
   dates, and returns an `ExtractedMetadata`.
3. **Which document(s) to read** – `Registry.resolve` picks one document per
   company the question names. Only ids of registered documents can come out;
   a path in a question is just text.

Resolution of one company, in order of precedence:

* **Date** – a non-period-end date ("May 26, 2023") selects the dated filing
  (8-K) filed on the date or up to 14 days after it (2 days before tolerated),
  closest first. Period-end dates ("December 31, 2022") only give a year.
* **Quarter** – "Q2 of FY2024", "2023 Q1", "Q2'2023"... select the filings of
  that fiscal quarter (the latest quarter that has filings). If there is none,
  the quarter's fiscal year is tried next (a 10-K covers its Q4 and the year).
* **Year** – the latest mentioned fiscal year that has filings ("FY2019 -
  FY2021" reads the FY2021 filing, which holds the comparatives). Years marked
  as fiscal ("FY2021", "fiscal 2021") outrank bare years, so "as of FY2021 ...
  expected payments in 2024" stays in 2021.
* **Default** – nothing time-like in the question: `default_year`, or the
  company's latest fiscal year if it has no filing in `default_year`.

Within the selected period the filings are scored::

    prior(form, level)            year level:    10K 3.0, ANNUALREPORT 2.9, Q4 EARNINGS 2.0,
                                                 10Q 1.0, EARNINGS 0.5, 8K 0.3  (+0.1 x quarter)
                                  quarter level: 10Q 3.0, EARNINGS 2.0, 10K 1.0, 8K 0.3
  + 5.0  the form is named ("10-K", "quarterly report", "8-K", "earnings release")
  + 4.5  the other annual form is named (10-K <-> annual report)
  + 2.0  EARNINGS filing and earnings-release vocabulary in the question
         (adjusted / non-GAAP / EBITDA(R) / guidance / outlook / organic /
         constant currency / excluding the impact of ... / sales growth ...)
  + 3.0  8-K and corporate-event vocabulary (new CEO, appointed, resigned,
         nominees, votes, credit agreement, Item 5.02 ...)

and the best one wins (ties: later quarter, later filing date, doc id).

Statuses: ``exact_path`` (company + period select exactly one filing),
``filename_fallback`` (several candidates, decided by the scoring above, or a
date match), ``default_year`` (no period in the question),
``fallback_no_tickers`` (no known company: empty ids, the caller searches the
whole corpus), ``fallback_no_files_on_disk`` (known company but no filing of
it, or none of the asked period: empty ids – we do not guess a neighbouring
year, a wrong year's filing would answer with wrong numbers), ``multi_doc``
(several companies: the best filing of each).
"""
from __future__ import annotations

import csv
import datetime as _dt
import functools
import io
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Iterable, Optional, Union

import yaml
from pydantic import BaseModel, Field

from finrag.state.schema import DocumentInfo, ExtractedMetadata

__all__ = [
    "FORMS", "STATUSES", "AliasBook", "AliasEntry", "Registry", "Resolution",
    "build_document_info", "clean_company_name", "detect_forms", "extract_periods",
    "load_alias_file", "builtin_aliases", "name_variants", "parse_cover_page", "parse_path",
    "question_cues", "read_cover_text",
]

FORMS = ("10K", "10Q", "8K", "EARNINGS", "ANNUALREPORT")
STATUSES = ("exact_path", "filename_fallback", "default_year", "fallback_no_tickers",
            "fallback_no_files_on_disk", "multi_doc")
BUILTIN_ALIAS_FILE = Path(__file__).resolve().parent / "data" / "aliases.yaml"
SUPPORTED_EXTENSIONS = (".pdf", ".txt", ".htm", ".html")
MAX_QUESTION_CHARS = 4000
MAX_COVER_CHARS = 60000

PathLike = Union[str, PurePath]

# --------------------------------------------------------------------------- #
# small helpers
# --------------------------------------------------------------------------- #

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], 1)}
_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
               "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH_RE = (r"(January|February|March|April|May|June|July|August|September|October|November|December"
             r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)")


def _month_num(name: str) -> int:
    n = name.lower().rstrip(".")
    return _MONTHS.get(n) or _MONTH_ABBR.get(n, 0)


def _iso(year: int, month: int, day: int) -> Optional[str]:
    try:
        return _dt.date(int(year), int(month), int(day)).isoformat()
    except (ValueError, TypeError):
        return None


def squash(text: str) -> str:
    """Upper-case letters and digits only: 'Coca-Cola' -> 'COCACOLA' (accents removed)."""
    return re.sub(r"[^A-Z0-9]", "", _strip_accents(str(text or "")).upper())


def _strip_accents(text: str) -> str:
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _edit_distance(a: str, b: str, limit: int = 2) -> int:
    """Levenshtein distance, early exit once it exceeds `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def _two_digit_year(text: str) -> int:
    y = int(text)
    if len(text) == 2:
        y += 2000 if y < 70 else 1900
    return y


def _uniq(items: Iterable) -> list:
    return list(dict.fromkeys(i for i in items if i not in (None, "")))


# --------------------------------------------------------------------------- #
# alias knowledge (built-in YAML + user YAML/CSV)
# --------------------------------------------------------------------------- #

_TICKER_SHAPE = re.compile(r"[A-Z]{1,5}(?:\.[A-Z])?")


@dataclass
class AliasEntry:
    """What is known about one company's names: canonical name, file key, tickers, aliases."""

    name: str = ""
    key: str = ""
    tickers: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return _uniq([self.name, *self.aliases])

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
    is_ticker = bool(_TICKER_SHAPE.fullmatch(ref))
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


# --------------------------------------------------------------------------- #
# 1. file names
# --------------------------------------------------------------------------- #

_FORM_WORDS = {
    "10K": "10K", "10-K": "10K", "10KA": "10K", "10K405": "10K",
    "10Q": "10Q", "10-Q": "10Q", "10QA": "10Q",
    "8K": "8K", "8-K": "8K", "8KA": "8K",
    "EARNINGS": "EARNINGS", "EARNING": "EARNINGS", "EARNINGSRELEASE": "EARNINGS",
    "PRESSRELEASE": "EARNINGS", "ER": "EARNINGS",
    "ANNUALREPORT": "ANNUALREPORT", "AR": "ANNUALREPORT",
}
_FB_NAME = re.compile(
    r"^(?P<company>[A-Za-z0-9&.\-]+(?:_[A-Za-z0-9&.\-]+)*?)_(?P<year>(?:19|20)\d{2})"
    r"(?:Q(?P<quarter>[1-4]))?_(?P<type>[A-Za-z0-9\-]+?)"
    r"(?:_dated[-_](?P<date>\d{4}-\d{2}-\d{2}))?$", re.IGNORECASE)
_PAPER_TICKER = re.compile(r"[A-Za-z]{1,5}(?:[.\-][A-Za-z]{1,2})?")


def _empty_path_info(doc_id: str = "") -> dict:
    return {"doc_id": doc_id, "layout": "", "company_key": "", "ticker": "", "fiscal_year": None,
            "quarter": None, "period": "", "form": "", "filed_date": None}


def _form_of(word: str) -> str:
    return _FORM_WORDS.get(re.sub(r"[_\s]", "", word.upper()), "")


def canonical_company_key(raw: str, book: Optional[AliasBook] = None) -> str:
    """Normalise a file-name company part; fix a one-letter typo of a known company key.

    'Pfizer' -> 'PFIZER'; 'ACTIVSIONBLIZZARD' -> 'ACTIVISIONBLIZZARD' (known from the
    alias file); 'JOHNSON_JOHNSON' stays as written.
    """
    key = re.sub(r"[^A-Z0-9_]", "", str(raw or "").upper().replace("-", "_").replace(" ", "_"))
    key = re.sub(r"_+", "_", key).strip("_")
    if not key:
        return ""
    known = (book or builtin_aliases()).known_keys()
    sq = squash(key)
    if sq in known:
        return key
    if len(sq) >= 6:
        best = [(_edit_distance(sq, k, 1), v) for k, v in known.items() if abs(len(k) - len(sq)) <= 1]
        best = sorted(b for b in best if b[0] <= 1)
        if best and (len(best) == 1 or best[0][1] == best[1][1] or best[0][0] < best[1][0]):
            return best[0][1]
    return key


def parse_path(path: PathLike) -> dict:
    """What a file name says about a filing; never raises, unknown fields are empty.

    Returns ``doc_id`` (file name without extension), ``layout`` ('financebench',
    'paper', 'generic' or ''), ``company_key``, ``ticker``, ``fiscal_year``,
    ``quarter``, ``period`` ('2022' or '2023Q2'), ``form`` (one of FORMS or '')
    and ``filed_date`` (ISO, for dated filings).
    """
    if not isinstance(path, (str, PurePath)):
        return _empty_path_info()
    try:
        p = PurePath(str(path))
    except Exception:
        return _empty_path_info()
    stem = p.stem  # same as tools.parsing.doc_id_for
    info = _empty_path_info(stem)
    if not stem:
        return info
    try:
        return _parse_financebench(stem, info) or _parse_paper(p, stem, info) or _parse_generic(stem, info)
    except Exception:  # defensive: a file name must never break indexing
        return info


def _parse_financebench(stem: str, info: dict) -> Optional[dict]:
    m = _FB_NAME.match(stem)
    if not m or not _form_of(m.group("type")):
        return None
    year, quarter = int(m.group("year")), m.group("quarter")
    info.update(layout="financebench", company_key=canonical_company_key(m.group("company")),
                fiscal_year=year, quarter=int(quarter) if quarter else None,
                period=f"{year}Q{quarter}" if quarter else str(year), form=_form_of(m.group("type")))
    if m.group("date"):
        y, mo, d = m.group("date").split("-")
        info["filed_date"] = _iso(int(y), int(mo), int(d))
    return info


def _parse_paper(p: PurePath, stem: str, info: dict) -> Optional[dict]:
    parent = p.parent.name
    if not re.fullmatch(r"(?:19|20)\d{2}", parent or "") or not _PAPER_TICKER.fullmatch(stem):
        return None
    ticker = stem.upper().replace("-", ".")
    entry = builtin_aliases().entry_for(tickers=[ticker])
    key = (entry.key or squash(entry.name)) if entry else ticker
    info.update(layout="paper", company_key=key.upper(), ticker=ticker, fiscal_year=int(parent),
                period=parent, form="10K")
    return info


_GENERIC_FORM = re.compile(r"(?<![A-Za-z0-9])(10-?K|10-?Q|8-?K|earnings|annual[-_ ]?report)(?![A-Za-z])",
                           re.IGNORECASE)


def _parse_generic(stem: str, info: dict) -> dict:
    text = stem
    form_m = _GENERIC_FORM.search(text)
    date_m = re.search(r"(?<!\d)((?:19|20)\d{2})-?(\d{2})-?(\d{2})(?!\d)", text)
    q_m = re.search(r"(?<![A-Za-z0-9])(?:FY)?((?:19|20)\d{2})[-_ ]?Q([1-4])(?![0-9])|"
                    r"(?<![A-Za-z0-9])Q([1-4])[-_ ]?((?:19|20)\d{2})(?!\d)", text, re.IGNORECASE)
    y_m = re.search(r"(?<!\d)((?:19|20)\d{2})(?!\d)", text)
    form = _form_of(form_m.group(1)) if form_m else ""
    date = _iso(*map(int, date_m.groups())) if date_m else None
    year = quarter = None
    if q_m:
        year = int(q_m.group(1) or q_m.group(4))
        quarter = int(q_m.group(2) or q_m.group(3))
    elif date:
        year = int(date[:4])
    elif y_m:
        year = int(y_m.group(1))
    cut = min([m.start() for m in (form_m, date_m, q_m, y_m) if m] or [len(text)])
    words = [w for w in re.split(r"[^A-Za-z0-9&]+", text[:cut]) if w and not w.isdigit()]
    company = "_".join(words)
    entry = builtin_aliases().entry_for(tickers=[company.upper()]) if _PAPER_TICKER.fullmatch(company) else None
    if entry is not None and squash(company) not in builtin_aliases().known_keys():  # 'aapl-20230930.htm'
        info["ticker"] = company.upper()
        company = entry.key or squash(entry.name)
    info.update(layout="generic" if (company or year or form) else "",
                company_key=canonical_company_key(company) if company else "",
                fiscal_year=year, quarter=quarter,
                period=(f"{year}Q{quarter}" if quarter else str(year)) if year else "",
                form=form, filed_date=date if form in ("8K", "") and date else None)
    return info


# --------------------------------------------------------------------------- #
# 2. cover pages
# --------------------------------------------------------------------------- #

_SUFFIX_WORDS = (r"inc|incorporated|corp|corporation|company|co|plc|p\.l\.c|ltd|limited|llc|l\.l\.c|"
                 r"lp|l\.p|n\.v|s\.a|ag|se|sa|nv")
_SUFFIX_TAIL = re.compile(rf"(?:[\s,]+(?:&\s*(?:company|co)|{_SUFFIX_WORDS})\.?)+\s*$", re.IGNORECASE)
_BOILERPLATE = re.compile(
    r"commission|file\s+n|transition\s+period|fiscal\s+year|quarterly\s+period|date\s+of\s+report|"
    r"earliest\s+event|mark\s+one|pursuant|exchange\s+act|securities|identification|telephone|"
    r"\(state|incorporation|^form\s|annual\s+report|quarterly\s+report|current\s+report|washington|"
    r"^table\s+of\s+contents|^or$|^\W*$", re.IGNORECASE)
_EXACT_NAME = re.compile(r"\(\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.IGNORECASE)
_COMPANYISH = re.compile(rf"\b(?:{_SUFFIX_WORDS}|international|group|holdings|trust|bancorp)\b\.?",
                         re.IGNORECASE)
_EXCHANGE_TAG = re.compile(r"[(\[]\s*(?:NYSE|NASDAQ|Nasdaq|NasdaqGS|Nasdaq\s+GS|NYSE\s+American)\s*:\s*"
                           r"([A-Z]{1,5}(?:\.[A-Z])?)\s*[)\]]")
_FYE = re.compile(r"for\s+the\s+(fiscal\s+)?(year|quarterly\s+period|quarter)\s+ended\b(.{0,80}?)\b"
                  + _MONTH_RE + r"\.?\s+(\d{1,2})\s*,?\s*((?:19|20)\d{2})", re.IGNORECASE | re.DOTALL)
_REPORT_DATE = re.compile(r"date\s+of\s+report.{0,80}?\b" + _MONTH_RE + r"\.?\s+(\d{1,2})\s*,?\s*((?:19|20)\d{2})",
                          re.IGNORECASE | re.DOTALL)
_SECTION_12B = re.compile(r"registered\s+pursuant\s+to\s+section\s+12\s*\(\s*b\s*\)", re.IGNORECASE)
_SECTION_END = re.compile(r"section\s+12\s*\(\s*g\s*\)|indicate\s+by\s+check\s+mark", re.IGNORECASE)
_TRADING_SYMBOL = re.compile(r"trading\s+symbol", re.IGNORECASE)
_NOT_TICKERS = {"NYSE", "NONE", "LLC", "INC", "THE", "NASDAQ", "CBOE", "AND", "OR", "PAR", "USD",
                "EUR", "N", "A", "NA", "LSE", "ASX", "SIX", "CHX", "YES", "NO", "X", "R"}


def _normalise_text(text: str) -> str:
    text = text[:MAX_COVER_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"[\u00a0\u2000-\u200b\u202f\u205f\u3000\t]", " ", text)
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "", text)


def _fix_spaced_caps(name: str) -> str:
    """'MGM R ESORTS I NTERNATIONAL' -> 'MGM RESORTS INTERNATIONAL' (small-caps extraction).

    A lone capital is glued to the following all-caps word unless the word before
    it is a lone letter too ('J P MORGAN' stays)."""
    words, out, i = name.split(" "), [], 0
    while i < len(words):
        w = words[i]
        if (len(w) == 1 and w.isupper() and i + 1 < len(words) and len(words[i + 1]) >= 2
                and words[i + 1].isupper() and not (out and len(out[-1]) == 1)):
            out.append(w + words[i + 1])
            i += 2
        else:
            out.append(w)
            i += 1
    return " ".join(out)


def _clean_registrant(name: str) -> str:
    name = _fix_spaced_caps(re.sub(r"\s+", " ", name)).strip(" ,;:-_*")
    name = re.sub(r"\s+([.,])", r"\1", name)
    return name if 2 <= len(name) <= 100 and re.search(r"[A-Za-z]", name) else ""


def _registrant_from_marker(lines_before: list[str]) -> str:
    cand = [ln.strip() for ln in lines_before if ln.strip() and not re.fullmatch(r"[_\-=*\s]+", ln.strip())]
    if not cand:
        return ""
    line = cand[-1]
    if _BOILERPLATE.search(line) or line.startswith("("):
        return ""
    if (len(line) <= 5 or re.fullmatch(rf"(?:{_SUFFIX_WORDS})\.?", line, re.IGNORECASE)) and len(cand) > 1 \
            and not _BOILERPLATE.search(cand[-2]):
        line = f"{cand[-2]} {line}"
    return _clean_registrant(line)


def _registrant_after_commission_line(lines: list[str]) -> str:
    for i, ln in enumerate(lines[:80]):
        if not re.search(r"commission\s+file", ln, re.IGNORECASE):
            continue
        for nxt in lines[i + 1:i + 5]:
            s = nxt.strip()
            if not s or re.fullmatch(r"[_\-=*\s]+", s):
                continue
            letters = re.sub(r"[^A-Za-z]", "", s)
            if (s.startswith("(") or _BOILERPLATE.search(s) or len(s) > 80 or not letters
                    or re.search(r"\d{3}", s)):
                return ""
            if _COMPANYISH.search(s) or letters.isupper():
                return _clean_registrant(s)
            return ""
    return ""


def _press_release_name(text: str) -> tuple[str, list[str]]:
    """'... -- Best Buy Co., Inc. (NYSE: BBY) today announced' -> ('Best Buy Co., Inc.', ['BBY'])."""
    flat = re.sub(r"\s+", " ", text[:8000])
    m = _EXCHANGE_TAG.search(flat)
    if not m:
        return "", []
    before = flat[max(0, m.start() - 160):m.start()].rstrip()
    before = re.sub(r"\([^()]{0,60}\)$", "", before).rstrip()  # ("Costco" or the "Company")
    chunk = re.split(r"\s(?:--|–|—|-)\s|--|[()\[\]]|\s[–—]\s?", before)[-1].strip(" ,")
    words = chunk.split()
    if not words or len(words) > 8 or not words[0][:1].isupper():
        return "", [m.group(1)]
    return _clean_registrant(chunk), [m.group(1)]


def _tickers_from_table(text: str) -> list[str]:
    """Symbols listed in the Section 12(b) table (the block up to Section 12(g) / "Indicate by check mark")."""
    start = _SECTION_12B.search(text) or re.search(r"title\s+of\s+each\s+class", text, re.IGNORECASE) \
        or _TRADING_SYMBOL.search(text)
    if not start:
        return []
    end = _SECTION_END.search(text, start.end())
    stop = end.start() if end else start.end() + 3000
    block = text[start.end():min(stop, start.end() + 4000)]
    if not _TRADING_SYMBOL.search(text, max(0, start.start() - 10), min(stop, start.end() + 4000)):
        return []
    out = []
    for line in block.split("\n"):
        for cell in re.split(r"\s{2,}|\|", line):
            cell = cell.strip().rstrip(",;")
            if _TICKER_SHAPE.fullmatch(cell) and cell not in _NOT_TICKERS:
                out.append(cell)
        if not any(_TICKER_SHAPE.fullmatch(c.strip()) for c in re.split(r"\s{2,}", line)):
            m = re.search(r"(?:par\s+value[^A-Z]*|[Ss]tock|[Ss]hares?)\s+([A-Z]{1,5})\s+(?:The\s+)?"
                          r"(?:New\s+York|NYSE|Nasdaq|NASDAQ)", line)
            if m and m.group(1) not in _NOT_TICKERS:
                out.append(m.group(1))
    return _uniq(out)


def _cover_form(text: str) -> str:
    head = text[:3000]
    hits = []
    for pat, form in ((r"\bform\s+10-?k\b", "10K"), (r"\bform\s+10-?q\b", "10Q"), (r"\bform\s+8-?k\b", "8K"),
                      (r"news\s+release|for\s+immediate\s+release|press\s+release|business\s+wire|"
                       r"globe\s+newswire|pr\s+newswire|reports?\s+(?:\w+[\s-]+){0,4}results", "EARNINGS")):
        m = re.search(pat, head, re.IGNORECASE)
        if m:
            hits.append((m.start(), form))
    return min(hits)[1] if hits else ""


def parse_cover_page(text: str) -> dict:
    """Read the cover page(s) of a filing (the text of its first ~3 pages).

    Returns ``registrant`` (exact name from the cover, else the issuer named in a
    press release, else ''), ``registrant_source``, ``tickers`` (the "Trading
    Symbol(s)" column of the Section 12(b) table – old covers without it give none
    – or the "(NYSE: XYZ)" of a press release), ``fiscal_year_end`` ('December 31'),
    ``fiscal_year`` (year of a fiscal-year end), ``period_end`` (ISO end of the
    year or quarter covered), ``form`` (from the cover) and ``report_date`` (ISO
    "Date of Report" of an 8-K). Never raises; garbage gives empty fields.
    """
    out = {"registrant": "", "registrant_source": "", "tickers": [], "fiscal_year_end": None,
           "fiscal_year": None, "period_end": None, "form": "", "report_date": None}
    if not isinstance(text, str) or not text.strip():
        return out
    try:
        _fill_cover(_normalise_text(text), out)
    except Exception:  # defensive: never let a strange PDF break indexing
        pass
    return out


def _fill_cover(text: str, out: dict) -> None:
    lines = text.split("\n")
    m = _EXACT_NAME.search(text)
    if m:
        out["registrant"] = _registrant_from_marker(text[:m.start()].split("\n")[-8:])
        out["registrant_source"] = "cover" if out["registrant"] else ""
    if not out["registrant"]:
        out["registrant"] = _registrant_after_commission_line(lines)
        out["registrant_source"] = "cover" if out["registrant"] else ""
    press_name, press_tickers = _press_release_name(text)
    if not out["registrant"] and press_name:
        out["registrant"], out["registrant_source"] = press_name, "press_release"
    out["tickers"] = _tickers_from_table(text) or press_tickers
    fye = _FYE.search(text[:20000])
    if fye:
        month, day, year = _month_num(fye.group(4)), int(fye.group(5)), int(fye.group(6))
        out["period_end"] = _iso(year, month, day)
        if "year" in fye.group(2).lower() and out["period_end"]:
            out["fiscal_year_end"] = f"{_dt.date(2000, month, 1).strftime('%B')} {day}"
            # 52/53-week years ending in the first days of January belong to the previous year
            out["fiscal_year"] = year - 1 if (month == 1 and day <= 7) else year
    out["form"] = _cover_form(text)
    rd = _REPORT_DATE.search(text[:6000])
    if rd:
        out["report_date"] = _iso(int(rd.group(3)), _month_num(rd.group(1)), int(rd.group(2)))


def read_cover_text(path: PathLike, pages: int = 3) -> str:
    """Text of the first `pages` pages of a PDF (or the head of a text/HTML file); '' on any error."""
    try:
        p = Path(path)
        if p.suffix.lower() == ".pdf":
            try:
                import pymupdf as fitz
            except ImportError:  # older PyMuPDF
                import fitz  # type: ignore

            with fitz.open(str(p)) as doc:
                return "\n".join(doc[i].get_text() for i in range(min(pages, len(doc))))
        raw = p.read_text(encoding="utf-8", errors="replace")[:MAX_COVER_CHARS * 4]
        if p.suffix.lower() in (".htm", ".html"):
            raw = re.sub(r"(?is)<(script|style).*?</\1>", " ", raw)
            raw = re.sub(r"(?i)<br\s*/?>|</(p|div|tr|li|h\d)>", "\n", raw)
            raw = re.sub(r"<[^>]+>", " ", raw)
            raw = re.sub(r"&nbsp;|&#160;", " ", raw).replace("&amp;", "&")
        return raw[:MAX_COVER_CHARS]
    except Exception:
        return ""


# --------------------------------------------------------------------------- #
# 3. DocumentInfo
# --------------------------------------------------------------------------- #

_GENERIC_TAIL = re.compile(r"\s+(?:international|worldwide|global|holdings|group|systems|communications|"
                           r"stores|wholesale|companies|technologies|enterprises|industries)$", re.IGNORECASE)


def _smart_case(name: str) -> str:
    """Title-case an ALL-CAPS name, keeping acronyms like CVS, MGM, 3M."""
    if not name or any(c.islower() for c in name):
        return name

    def word(w: str) -> str:
        core = re.sub(r"[^A-Za-z]", "", w)
        if any(c.isdigit() for c in w) or (len(core) <= 3 and not re.search(r"[AEIOUY]", core)):
            return w
        return "-".join(p[:1] + p[1:].lower() for p in w.split("-"))

    return " ".join(word(w) for w in name.split())


def clean_company_name(name: str) -> str:
    """'THE COCA-COLA COMPANY' -> 'Coca-Cola'; 'JPMorgan Chase & Co.' -> 'JPMorgan Chase'."""
    name = re.sub(r"\s+", " ", str(name or "")).strip(" ,.")
    name = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
    prev = None
    while prev != name:
        prev, name = name, _SUFFIX_TAIL.sub("", name).strip(" ,")
    return _smart_case(name)


def name_variants(name: str) -> list[str]:
    """Ways to write a company name: '&'/'and', hyphens, squashed, generic tail removed."""
    base = clean_company_name(name)
    if not base:
        return []
    out = [base]
    if base.lower().endswith(".com"):
        out.append(base[:-4])
    for v in list(out):
        short = _GENERIC_TAIL.sub("", v)
        if short != v and len(squash(short)) >= 3:
            out.append(short)
    for v in list(out):
        out += [v.replace("&", " and "), v.replace("&", " "), v.replace("-", " "), v.replace(".", "")]
        tokens = re.findall(r"[A-Za-z0-9]+", v)
        if len(tokens) > 1 and len("".join(tokens)) >= 5:
            out.append("".join(tokens))
    return _uniq(re.sub(r"\s+", " ", v).strip() for v in out)


def _readable_key(key: str) -> str:
    return " ".join(w.capitalize() if not any(c.isdigit() for c in w) else w for w in key.split("_") if w)


def build_document_info(path: PathLike, cover_text: str = "", book: Optional[AliasBook] = None) -> DocumentInfo:
    """Combine what the path and the cover page say about a filing (never raises)."""
    book = book or builtin_aliases()
    p = parse_path(path)
    c = parse_cover_page(cover_text if isinstance(cover_text, str) else "")
    registrant = c["registrant"]
    cleaned = clean_company_name(registrant)
    key = p["company_key"]
    if not key or (squash(key) not in book.known_keys() and cleaned
                   and 0 < _edit_distance(squash(key), squash(cleaned), 2) <= 2):
        key = canonical_company_key(cleaned, book) if cleaned else (p["ticker"] or key)
    entry = book.entry_for(key, [cleaned] if cleaned else [], [p["ticker"], *c["tickers"]])
    company = entry.name if entry else (cleaned or _readable_key(key))
    tickers = _uniq([*c["tickers"], p["ticker"]]) or (list(entry.tickers[:1]) if entry else [])
    form = p["form"] or c["form"]
    fiscal_year = p["fiscal_year"] or c["fiscal_year"]
    filed = p["filed_date"] or (c["report_date"] if form == "8K" else None)
    aliases = _uniq([*name_variants(company), *(name_variants(cleaned) if cleaned else []),
                     *name_variants(_readable_key(key)),
                     *((a for n in entry.names() for a in name_variants(n)) if entry else ())])
    return DocumentInfo(
        doc_id=p["doc_id"] or PurePath(str(path)).stem, path=str(path), company=company, company_key=key,
        registrant=registrant, tickers=tickers, fiscal_year=fiscal_year, quarter=p["quarter"],
        period=p["period"] or (str(fiscal_year) if fiscal_year else ""), form=form, filed_date=filed,
        fiscal_year_end=c["fiscal_year_end"], aliases=aliases)


# --------------------------------------------------------------------------- #
# 4. reading a question: periods, forms, cues
# --------------------------------------------------------------------------- #

_QWORD = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_Y4 = r"((?:19|20)\d{2})"
_Y42 = r"((?:19|20)\d{2}|\d{2})"
_QUARTER_PATTERNS = [  # (regex, group of year, group of quarter)
    (re.compile(r"\bFY\s*['’]?\s*" + _Y42 + r"\s*-?\s*Q([1-4])\b", re.I), 1, 2),
    (re.compile(r"\bQ([1-4])\s*(?:of\s+|in\s+)?(?:the\s+)?(?:FY|fiscal(?:\s+year)?)\s*['’]?\s*" + _Y42 + r"\b",
                re.I), 2, 1),
    (re.compile(r"\bQ([1-4])\s*['’]\s*" + _Y42 + r"\b", re.I), 2, 1),
    (re.compile(r"\bQ([1-4])[\s,\-]*" + _Y4 + r"\b", re.I), 2, 1),
    (re.compile(r"\b" + _Y4 + r"\s*-?\s*Q([1-4])\b", re.I), 1, 2),
    (re.compile(r"\b([1-4])Q\s*['’]?\s*" + _Y42 + r"\b", re.I), 2, 1),
    (re.compile(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)[\s\-]+quarter\s+(?:of\s+)?(?:the\s+)?"
                r"(?:fiscal(?:\s+year)?\s*|FY\s*)?['’]?" + _Y4 + r"\b", re.I), 2, 1),
    (re.compile(r"\b" + _Y4 + r"\s+(first|second|third|fourth)[\s\-]+quarter\b", re.I), 1, 2),
]
_FY_PATTERNS = [
    re.compile(r"\bFY\s*['’]?\s*" + _Y42 + r"\b", re.I),
    re.compile(r"\bfiscal\s+(?:year\s+)?" + _Y4 + r"\b", re.I),
]
_BARE_YEAR = re.compile(r"(?<![\w$.,/])" + _Y4 + r"(?![\w%]|[.,]\d)")
_BARE_QUARTER = re.compile(r"\bQ([1-4])\b|\b(first|second|third|fourth)[\s\-]+quarter\b", re.I)
_DATE_PATTERNS = [  # (regex, order of (year, month, day) groups)
    (re.compile(r"\b" + _MONTH_RE + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*" + _Y4 + r"\b", re.I), (3, 1, 2)),
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE + r"\.?\s*,?\s*" + _Y4 + r"\b", re.I),
     (3, 2, 1)),
    (re.compile(r"\b" + _Y4 + r"-(\d{1,2})-(\d{1,2})\b"), (1, 2, 3)),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})/" + _Y4 + r"\b"), (3, 1, 2)),
]


def _mask(text: str, m: re.Match) -> str:
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


def _quarter_num(token: str) -> int:
    return int(token) if token.isdigit() else _QWORD.get(token.lower(), 0)


def extract_periods(text: str) -> tuple[list[int], list[str], list[str]]:
    """(years, periods, dates) in a question.

    periods: '2023Q2' for a fiscal quarter, 'FY2022' for a year marked as fiscal
    ("FY2022", "FY 22", "fiscal 2022"); bare years ("as of 2022") go to years
    only. A bare "Q4" is attached to the latest year mentioned.
    """
    if not isinstance(text, str):
        return [], [], []
    work = text[:MAX_QUESTION_CHARS]
    dates, quarters, fy, bare = [], [], [], []
    for rx, (gy, gm, gd) in _DATE_PATTERNS:
        for m in list(rx.finditer(work)):
            month = m.group(gm)
            iso = _iso(int(m.group(gy)), _month_num(month) if not month.isdigit() else int(month), int(m.group(gd)))
            if iso:
                dates.append((m.start(), iso))
                work = _mask(work, m)
    for rx, gy, gq in _QUARTER_PATTERNS:
        for m in list(rx.finditer(work)):
            quarters.append((m.start(), _two_digit_year(m.group(gy)), _quarter_num(m.group(gq))))
            work = _mask(work, m)
    for rx in _FY_PATTERNS:
        for m in list(rx.finditer(work)):
            fy.append((m.start(), _two_digit_year(m.group(1))))
            work = _mask(work, m)
    for m in _BARE_YEAR.finditer(work):
        bare.append((m.start(), int(m.group(1))))
    year_pool = [y for _, y in fy] or [y for _, y in bare]
    if year_pool:
        for m in _BARE_QUARTER.finditer(work):
            quarters.append((m.start(), max(year_pool), _quarter_num(m.group(1) or m.group(2))))
    periods = [(pos, f"{y}Q{q}") for pos, y, q in quarters] + [(pos, f"FY{y}") for pos, y in fy]
    years = sorted({y for _, y, _ in quarters} | {y for _, y in fy} | {y for _, y in bare})
    return years, _uniq(p for _, p in sorted(periods)), _uniq(d for _, d in sorted(dates))


_FORM_PATTERNS = [
    (re.compile(r"\b10-[Kk]\b|\b10K\b|(?i:\bform\s+10\s?k\b)"), "10K"),
    (re.compile(r"\bannual\s+report\b|\bannual\s+filing\b", re.I), "ANNUALREPORT"),
    (re.compile(r"\b10-[Qq]\b|\b10Q\b|(?i:\bform\s+10\s?q\b|\bquarterly\s+(?:report|filing)\b)"), "10Q"),
    (re.compile(r"\b8-[Kk]\b|\b8K\b|(?i:\bform\s+8\s?k\b|\bcurrent\s+report\b)"), "8K"),
    (re.compile(r"\bearnings\s+(?:release|report|call|results|announcement|press\s+release)\b|"
                r"\bpress\s+release\b|\bresults\s+release\b", re.I), "EARNINGS"),
]
_EARNINGS_CUES = re.compile(
    r"\badjusted\b|\bnon[\s\-]?gaap\b|\bebitdar?\b|\bguidance\b|\boutlook\b|\bconstant[\s\-]currency\b|"
    r"\borganic\b|\bone[\s\-]off\b|\bone[\s\-]time\s+items?\b|"
    r"\bexclud\w*\s+(?:the\s+)?(?:impact|effect)s?\s+of\b|"
    r"\b(?:fx|foreign\s+exchange|currency)\s+(?:impacts?|movements?|effects?|headwinds?|tailwinds?)\b|"
    r"\b(?:sales|top[\s\-]?line|operational|organic|comparable(?:[\s\-]store)?\s+sales)\s+(?:growth|performance)\b|"
    r"\bcomparable\s+sales\b|\bearnings\s+(?:release|call)\b", re.I)
_EVENT_CUES = re.compile(
    r"\bnew\s+(?:ceo|cfo|coo|chief\s+\w+\s+officer|president|chair(?:man|woman|person)?)\b|"
    r"\b(?:appoint(?:ed|s|ment)|resign(?:ed|s|ation)|departure)\b|"
    r"\b(?:nominees?|(?:shareholder|stockholder)s?\s+vote|votes?\s+(?:for|against|cast)|"
    r"annual\s+(?:general\s+)?meeting)\b|"
    r"\b(?:credit\s+agreement|credit\s+facility|merger\s+agreement|definitive\s+agreement)\b|"
    r"\bitem\s+[1-9]\.\d{2}\b", re.I)


def detect_forms(text: str) -> list[str]:
    """Form types named in a question: 10K, ANNUALREPORT, 10Q, 8K, EARNINGS."""
    if not isinstance(text, str):
        return []
    text = text[:MAX_QUESTION_CHARS]
    return [form for rx, form in _FORM_PATTERNS if rx.search(text)]


def question_cues(text: str) -> set[str]:
    """Soft hints: 'EARNINGS' (earnings-release vocabulary), '8K' (corporate events)."""
    if not isinstance(text, str) or not text:
        return set()
    text = text[:MAX_QUESTION_CHARS]
    cues = set()
    for m in _EARNINGS_CUES.finditer(text):
        if m.group(0).lower().startswith("ebitda") and re.search(r"\bunadjusted\b", text, re.I):
            continue
        cues.add("EARNINGS")
        break
    if _EVENT_CUES.search(text):
        cues.add("8K")
    return cues


# --------------------------------------------------------------------------- #
# 5. the registry
# --------------------------------------------------------------------------- #

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
_FORM_ANNUAL = {"10K", "ANNUALREPORT"}
_YEAR_PRIOR = {"10K": 3.0, "ANNUALREPORT": 2.9, "10Q": 1.0, "EARNINGS": 0.5, "8K": 0.3, "": 0.2}
_QUARTER_PRIOR = {"10Q": 3.0, "EARNINGS": 2.0, "10K": 1.0, "ANNUALREPORT": 0.9, "8K": 0.3, "": 0.2}
_Q4_EARNINGS_PRIOR = 2.0
_NAMED_FORM, _ANNUAL_FAMILY, _EARNINGS_CUE, _EVENT_CUE = 5.0, 4.5, 2.0, 3.0
_DATE_WINDOW = (-2, 14)  # days the filing may be before / after the date in the question


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end) – lower case, accents removed, '&' kept as a token."""
    return [(_strip_accents(m.group(0)).casefold(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _alias_tokens(alias: str) -> tuple[str, ...]:
    return tuple(t for t, _, _ in _tokens(alias))


def _is_period_end(iso: str) -> bool:
    return iso[5:] in ("03-31", "06-30", "09-30", "12-31")


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
        return _uniq(out)

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
                               if len(squash(c)) >= 6 and _edit_distance(sq, squash(c), 1) <= 1), None)
            if target is None and k in ticker_owner and ticker_owner[k] != k and ticker_owner[k] in canon:
                target = canon[ticker_owner[k]]
            canon[k] = target or k
        return {d.doc_id: canon[d.company_key or squash(d.company) or d.doc_id.upper()] for d in self._docs.values()}

    def _build_companies(self) -> None:
        for doc_id, d in sorted(self._docs.items(), key=lambda kv: (kv[1].fiscal_year or 0, kv[0])):
            key = self._doc_key[doc_id]
            comp = self._companies.setdefault(key, _Company(key=key))
            comp.doc_ids.append(doc_id)
            comp.name = d.company or comp.name or _readable_key(key)  # latest filing's name wins
            comp.tickers = _uniq([*comp.tickers, *d.tickers])
            comp.names = _uniq([*comp.names, key, d.company, clean_company_name(d.registrant), *d.aliases])

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
                self._companies[ckey] = _Company(key=key, name=entry.name or _readable_key(key), in_registry=False)
            comp = self._companies[ckey]
            if entry.name and (comp.in_registry or not comp.name):
                comp.name = entry.name
            comp.tickers = _uniq([*comp.tickers, *entry.tickers])
            comp.names = _uniq([*comp.names, *(v for n in entry.names() for v in name_variants(n))])
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
        return _uniq(found)

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
        keys = _uniq(keys)
        tickers = _uniq([*explicit, *(self._companies[k].tickers[0] for k in keys if self._companies[k].tickers)])
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
        return _uniq(keys)

    def resolve(self, extracted: Optional[ExtractedMetadata], question: str = "",
                default_year: int = 2023) -> Resolution:
        """Pick the document(s) a question is about (see the module docstring for the rules)."""
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
        picks = [(k, *self._best_document(k, ex, cues, default_year)) for k in in_reg]
        if len(picks) == 1:
            _, doc_id, status, why = picks[0]
            return Resolution(doc_ids=[doc_id] if doc_id else [], status=status, reason=why)
        doc_ids = _uniq(d for _, d, _, _ in picks)
        reason = "; ".join(f"{self._companies[k].name}: {d or '-'} ({s}: {w})" for k, d, s, w in picks)
        if not doc_ids:
            return Resolution(status="fallback_no_files_on_disk", reason=reason)
        return Resolution(doc_ids=doc_ids, status="multi_doc", reason=reason)

    @staticmethod
    def _doc_year(d: DocumentInfo) -> Optional[int]:
        if d.fiscal_year:
            return d.fiscal_year
        return int(d.filed_date[:4]) if d.filed_date and d.filed_date[:4].isdigit() else None

    def _best_document(self, key: str, ex: ExtractedMetadata, cues: set[str],
                       default_year: int) -> tuple[Optional[str], str, str]:
        docs = self._docs_by_company[key]
        name = self._companies[key].name
        forms = {f for f in (ex.forms or []) if f in FORMS}
        quarters, fy_years = [], []
        for p in ex.periods or []:
            m = re.fullmatch(r"(\d{4})Q([1-4])", str(p).strip().upper())
            if m:
                quarters.append((int(m.group(1)), int(m.group(2))))
            m = re.fullmatch(r"FY\s*(\d{4})", str(p).strip().upper())
            if m:
                fy_years.append(int(m.group(1)))
        years = set(fy_years) | {y for y, _ in quarters} if (fy_years or quarters) \
            else {int(y) for y in ex.years or [] if str(y).isdigit()}
        dates = [d for d in (ex.dates or []) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(d))]

        dated = self._by_date(docs, dates)
        if dated:
            doc, delta = dated
            return doc.doc_id, "filename_fallback", f"{name}: filing dated {doc.filed_date}, {delta} day(s) " \
                                                    f"after the date in the question"
        if not years and dates:
            years = {int(d[:4]) for d in dates}
        for y, q in sorted(set(quarters), reverse=True):
            cands = [d for d in docs if self._doc_year(d) == y and d.quarter == q]
            if cands:
                return self._pick(cands, "quarter", forms, cues, f"{name} {y}Q{q}")
        for y in sorted(years, reverse=True):
            cands = [d for d in docs if self._doc_year(d) == y]
            if cands:
                return self._pick(cands, "year", forms, cues, f"{name} fiscal {y}")
        if years or quarters:
            asked = ", ".join([f"{y}Q{q}" for y, q in quarters] + [f"FY{y}" for y in sorted(years)])
            have = ", ".join(sorted({str(self._doc_year(d)) for d in docs}))
            return None, "fallback_no_files_on_disk", f"{name}: no filing for {asked} (have {have})"
        have_years = sorted({y for y in (self._doc_year(d) for d in docs) if y})
        year = default_year if default_year in have_years else (have_years[-1] if have_years else None)
        cands = [d for d in docs if self._doc_year(d) == year] or docs
        doc_id, _, why = self._pick(cands, "year", forms, cues, f"{name} fiscal {year}")
        how = "default year" if year == default_year else f"latest year (none in {default_year})"
        return doc_id, "default_year", f"no period in the question, {how}: {why}"

    @staticmethod
    def _by_date(docs: list[DocumentInfo], dates: list[str]) -> Optional[tuple[DocumentInfo, int]]:
        best = None
        for iso in dates:
            if _is_period_end(iso):
                continue
            asked = _dt.date.fromisoformat(iso)
            for d in docs:
                if not d.filed_date:
                    continue
                try:
                    delta = (_dt.date.fromisoformat(d.filed_date) - asked).days
                except ValueError:
                    continue
                if _DATE_WINDOW[0] <= delta <= _DATE_WINDOW[1]:
                    rank = (delta < 0, abs(delta), d.doc_id)
                    if best is None or rank < best[0]:
                        best = (rank, d, delta)
        return (best[1], best[2]) if best else None

    @staticmethod
    def _score(d: DocumentInfo, level: str, forms: set[str], cues: set[str]) -> float:
        if level == "year":
            s = _Q4_EARNINGS_PRIOR if (d.form == "EARNINGS" and d.quarter == 4) else _YEAR_PRIOR.get(d.form, 0.2)
            s += 0.1 * (d.quarter or 0)
        else:
            s = _QUARTER_PRIOR.get(d.form, 0.2)
        if d.form in forms:
            s += _NAMED_FORM
        elif d.form in _FORM_ANNUAL and forms & _FORM_ANNUAL:
            s += _ANNUAL_FAMILY
        if d.form == "EARNINGS" and "EARNINGS" in cues:
            s += _EARNINGS_CUE
        if d.form == "8K" and "8K" in cues:
            s += _EVENT_CUE
        return s

    def _pick(self, cands: list[DocumentInfo], level: str, forms: set[str], cues: set[str],
              what: str) -> tuple[str, str, str]:
        ranked = sorted(cands, key=lambda d: (self._score(d, level, forms, cues), d.quarter or 0,
                                              d.filed_date or "", d.doc_id), reverse=True)
        best = ranked[0]
        if len(cands) == 1:
            return best.doc_id, "exact_path", f"{what}: the only filing"
        runner = ranked[1]
        return best.doc_id, "filename_fallback", (
            f"{what}: {len(cands)} filings, {best.form or '?'} scored "
            f"{self._score(best, level, forms, cues):.1f} vs {runner.doc_id} "
            f"{self._score(runner, level, forms, cues):.1f}"
            + (f" (cues: {', '.join(sorted(cues))})" if cues else "")
            + (f" (forms: {', '.join(sorted(forms))})" if forms else ""))
