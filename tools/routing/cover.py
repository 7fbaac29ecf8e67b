"""What the SEC cover page of a filing says: registrant, trading symbols, fiscal year end, form, dates.

`parse_cover_page` reads the text of a filing's first ~3 pages: the registrant from the "(Exact name
of registrant ...)" marker or the line after "Commission File Number" (else the issuer named in a
press release), the symbols of the Section 12(b) table or a press release's "(NYSE: XYZ)", the
fiscal year end and period end, the form and the 8-K "Date of Report". `read_cover_text` gets that
text from a file on disk. Neither ever raises.
"""
from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any, Optional

from finrag.tools.documents.parsing import read_pages
from finrag.tools.routing.text import SUFFIX_WORDS, TICKER_SHAPE, PathLike
from finrag.tools.sequences import uniq
from finrag.tools.vocabulary.dates import MONTH_RE, iso_date, month_num

__all__ = ["MAX_COVER_CHARS", "parse_cover_page", "read_cover_text"]

MAX_COVER_CHARS = 60000

_BOILERPLATE = re.compile(
    r"commission|file\s+n|transition\s+period|fiscal\s+year|quarterly\s+period|date\s+of\s+report|"
    r"earliest\s+event|mark\s+one|pursuant|exchange\s+act|securities|identification|telephone|"
    r"\(state|incorporation|^form\s|annual\s+report|quarterly\s+report|current\s+report|washington,?\s+d\.?\s?c\b|"
    r"^table\s+of\s+contents|^or$|^\W*$", re.IGNORECASE)
_EXACT_NAME = re.compile(r"\(\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.IGNORECASE)
_COMPANYISH = re.compile(rf"\b(?:{SUFFIX_WORDS}|international|group|holdings|trust|bancorp)\b\.?",
                         re.IGNORECASE)
_EXCHANGE_TAG = re.compile(r"[(\[]\s*(?:NYSE|NASDAQ|Nasdaq|NasdaqGS|Nasdaq\s+GS|NYSE\s+American)\s*:\s*"
                           r"([A-Z]{1,5}(?:\.[A-Z])?)\s*[)\]]")
_FYE = re.compile(r"for\s+the\s+(fiscal\s+)?(year|quarterly\s+period|quarter)\s+ended\b(.{0,80}?)\b"
                  + MONTH_RE + r"\.?\s+(\d{1,2})\s*,?\s*((?:19|20)\d{2})", re.IGNORECASE | re.DOTALL)
_REPORT_DATE = re.compile(r"date\s+of\s+report.{0,80}?\b" + MONTH_RE + r"\.?\s+(\d{1,2})\s*,?\s*((?:19|20)\d{2})",
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
    out: list[str]
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
    if (len(line) <= 5 or re.fullmatch(rf"(?:{SUFFIX_WORDS})\.?", line, re.IGNORECASE)) and len(cand) > 1 \
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
            if TICKER_SHAPE.fullmatch(cell) and cell not in _NOT_TICKERS:
                out.append(cell)
        if not any(TICKER_SHAPE.fullmatch(c.strip()) for c in re.split(r"\s{2,}", line)):
            m = re.search(r"(?:par\s+value[^A-Z]*|[Ss]tock|[Ss]hares?)\s+([A-Z]{1,5})\s+(?:The\s+)?"
                          r"(?:New\s+York|NYSE|Nasdaq|NASDAQ)", line)
            if m and m.group(1) not in _NOT_TICKERS:
                out.append(m.group(1))
    return uniq(out)


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
    year or quarter covered), ``form`` (from the cover), ``quarter`` (a 10-Q's fiscal quarter: `_quarter_of`),
    ``report_date`` (ISO
    "Date of Report" of an 8-K) and ``items`` (the 8-K items it reports, e.g. ['5.02', '9.01']). Never raises; garbage gives empty fields.
    """
    out: dict[str, Any] = {"registrant": "", "registrant_source": "", "tickers": [], "fiscal_year_end": None,
           "fiscal_year": None, "period_end": None, "form": "", "report_date": None, "items": [], "quarter": None}
    if not isinstance(text, str) or not text.strip():
        return out
    try:
        _fill_cover(_normalise_text(text), out)
    except Exception:  # defensive: never let a strange PDF break indexing
        pass
    return out


_QUARTER_FOOTER = re.compile(r"(?i)\bQ([1-4])\s+(?:FY\s*)?(?:19|20)\d{2}\s+Form\s+10-Q\b")
_MONTHS_ENDED = re.compile(r"(?i)\b(three|six|nine)[\s-]+months\s+ended\b")


def _quarter_of(text: str) -> Optional[int]:
    """A 10-Q's fiscal quarter from its first pages: a "Q3 2024 Form 10-Q" footer, else its statements' longest
    "Nine / Six Months Ended" column (3, 2), else 1 when every column is "Three Months Ended"; None when unsaid."""
    m = _QUARTER_FOOTER.search(text)
    if m:
        return int(m.group(1))
    spans = {w.lower() for w in _MONTHS_ENDED.findall(text)}
    return 3 if "nine" in spans else 2 if "six" in spans else 1 if spans == {"three"} else None


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
        month, day, year = month_num(fye.group(4)), int(fye.group(5)), int(fye.group(6))
        out["period_end"] = iso_date(year, month, day)
        if "year" in fye.group(2).lower() and out["period_end"]:
            out["fiscal_year_end"] = f"{_dt.date(2000, month, 1).strftime('%B')} {day}"
            # 52/53-week years ending in the first days of January belong to the previous year
            out["fiscal_year"] = year - 1 if (month == 1 and day <= 7) else year
    out["form"] = _cover_form(text)
    if out["form"] == "10Q":
        out["quarter"] = _quarter_of(text[:60000])
    if out["form"] == "8K":
        out["items"] = sorted(set(re.findall(r"\bItem\s+(\d\.\d{2})\b", text[:20000], re.IGNORECASE)))
    rd = _REPORT_DATE.search(text[:6000])
    if rd:
        out["report_date"] = iso_date(int(rd.group(3)), month_num(rd.group(1)), int(rd.group(2)))


def read_cover_text(path: PathLike, pages: int = 3) -> str:
    """Text of a filing's first `pages` pages, read by the indexer's parser; '' on any error.

    The indexer derives cover pages the same way from the pages it stores ("\n".join(pages[:3]))."""

    try:
        return "\n".join(read_pages(Path(path), max_pages=pages))
    except Exception:
        return ""
