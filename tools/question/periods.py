"""The periods a question names, read once: fiscal years and quarters, dates, year-to-date words.

`extract_periods` finds dates ("May 26, 2023", "2023-05-26"), fiscal quarters ("Q2 of FY2024", "2023 Q1",
"Q2'23", "second quarter of fiscal 2022"), fiscal years ("FY2019", "FY 22", "fiscal 2022") and bare years,
masking each match so that it is read once (routing reads these). `years_written`, `quarters_written`, the
`YTD` / `QTR` / `ANNUAL` words, `ytd_months_named`, `as_of_date` and `year_range` are the readings the
statement reader and the inline-XBRL fact answerer take (which column of a statement, which fact's period).
Month names and dates: `finrag.tools.routing.text` (`MONTH_RE`, `month_num`, `iso_date`).
"""
from __future__ import annotations

import calendar
import re
from typing import Optional

from finrag.state.configuration import MAX_QUESTION_CHARS  # the one question-length limit
from finrag.tools.sequences import uniq
from finrag.tools.vocabulary.dates import MONTH_RE, dei_date, iso_date, month_num, two_digit_year

__all__ = ["ANNUAL", "QTR", "YTD", "as_of_date", "extract_periods", "month_quarters", "quarters_written", "year_range",
           "years_written", "ytd_months_named"]


_QWORD = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_Y4 = r"((?:19|20)\d{2})"
_Y42 = r"((?:19|20)\d{2}|\d{2})"
_YFY = r"([1-9]\d{3}|\d{2})"  # a year marked as fiscal ("FY1850", "fiscal 2150"): any four digits, so a year no filing
# can have is kept (and routed `period_not_in_index`) instead of dropped and answered for the default year
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
_FY_RANGE = re.compile(r"\bFY\s*['’]?\s*" + _Y42 + r"[EA]?\s*(?:-|–|—|to|through|thru|/)\s*(?:FY\s*)?['’]?"
                       + _Y42 + r"[EA]?\b", re.I)
_BARE_RANGE = re.compile(r"(?<![\w$.,/\-])" + _Y4 + r"\s*(?:-|–|—|/)\s*['’]?(\d{2})(?![\w%/\-]|[.,]\d)")
_FY_PATTERNS = [
    re.compile(r"\b(?:FY|FYE|YE)\s*['’]?\s*" + _YFY + r"[EA]?\b", re.I),
    re.compile(r"\bfiscal\s+(?:year\s+)?['’]?" + _YFY + r"\b", re.I),
    re.compile(r"\b" + _Y4 + r"\s+fiscal\s+year\b", re.I),
]
_CALENDAR_YEAR = re.compile(r"\bCY\s*['’]?\s*" + _Y42 + r"\b", re.I)
_APOSTROPHE_YEAR = re.compile(r"(?<![\w'’])['’](\d{2})(?![\d\w%])")
_HALF = re.compile(r"\b(?:H([12])|([12])H)\s*['’]?\s*(?:FY\s*)?" + _Y42 + r"\b|"
                   r"\b(first|second)\s+half\s+(?:of\s+)?(?:the\s+)?(?:fiscal\s+(?:year\s+)?|FY\s*)?" + _Y4 + r"\b",
                   re.I)
_BARE_YEAR = re.compile(r"(?<![\w$.,/])" + _Y4 + r"(?![\w%]|[.,]\d)")
_BARE_QUARTER = re.compile(r"\bQ([1-4])\b|\b(first|second|third|fourth)[\s\-]+quarter\b", re.I)
_DATE_PATTERNS = [  # (regex, order of (year, month, day) groups)
    (re.compile(r"\b" + MONTH_RE + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*" + _Y4 + r"\b", re.I), (3, 1, 2)),
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + MONTH_RE + r"\.?\s*,?\s*" + _Y4 + r"\b", re.I),
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
            iso = iso_date(int(m.group(gy)), month_num(month) if not month.isdigit() else int(month),
                           int(m.group(gd)))
            if iso:
                dates.append((m.start(), iso))
                work = _mask(work, m)
    for rx, gy, gq in _QUARTER_PATTERNS:
        for m in list(rx.finditer(work)):
            quarters.append((m.start(), two_digit_year(m.group(gy)), _quarter_num(m.group(gq))))
            work = _mask(work, m)
    for m in list(_HALF.finditer(work)):  # H1 -> the second-quarter (six-month) report; H2 -> the year
        half = m.group(1) or m.group(2) or ("1" if (m.group(4) or "").lower() == "first" else "2")
        year = two_digit_year(m.group(3) or m.group(5))
        (quarters.append((m.start(), year, 2)) if half == "1" else fy.append((m.start(), year)))
        work = _mask(work, m)
    for m in list(_FY_RANGE.finditer(work)):
        a, b = two_digit_year(m.group(1)), two_digit_year(m.group(2))
        if a < b <= a + 30:
            fy += [(m.start(), a), (m.end() - 1, b)]
            work = _mask(work, m)
    for rx in _FY_PATTERNS:
        for m in list(rx.finditer(work)):
            fy.append((m.start(), two_digit_year(m.group(1))))
            work = _mask(work, m)
    for m in list(_BARE_RANGE.finditer(work)):
        a = int(m.group(1))
        b = a // 100 * 100 + int(m.group(2))
        if a < b <= a + 30:
            bare += [(m.start(), a), (m.end() - 1, b)]
            work = _mask(work, m)
    for rx in (_CALENDAR_YEAR, _APOSTROPHE_YEAR):
        for m in list(rx.finditer(work)):
            bare.append((m.start(), two_digit_year(m.group(1))))
            work = _mask(work, m)
    for m in _BARE_YEAR.finditer(work):
        bare.append((m.start(), int(m.group(1))))
    year_pool = [y for _, y in fy] or [y for _, y in bare]
    if year_pool:
        for m in _BARE_QUARTER.finditer(work):
            quarters.append((m.start(), max(year_pool), _quarter_num(m.group(1) or m.group(2))))
    periods = [(pos, f"{y}Q{q}") for pos, y, q in quarters] + [(pos, f"FY{y}") for pos, y in fy]
    years = sorted({y for _, y, _ in quarters} | {y for _, y in fy} | {y for _, y in bare})
    return years, uniq(p for _, p in sorted(periods)), uniq(d for _, d in sorted(dates))



# ----- the readers' readings ------------------------------------------------------------------------------------
_FY4 = re.compile(r"(?i)\b(?:fy\s*|fiscal(?: year)?\s*|year\s*)?((?:19|20)\d\d)\b")
_FY2 = re.compile(r"(?i)\bfy\s*'?(\d\d)\b")
_RANGE = re.compile(r"(?i)(?:from|between)?\s*(?:fy|fiscal(?: year)?)?\s*'?((?:19|20)?\d\d)\s*(?:-|–|to|and|through|until)\s*"
                    r"(?:the\s+)?(?:fy|fiscal(?: year)?)?\s*'?((?:19|20)?\d\d)\b")
_QUARTER = re.compile(r"(?i)\bq([1-4])\b|\b(first|second|third|fourth) quarter\b|\b([1-4])q\s*['’]?\d{2}(?:\d{2})?\b")
YTD = re.compile(r"(?i)\b(?:six|nine|[69])[ -]months?\b|\byear[- ]to[- ]date\b|\bytd\b|\bfirst[- ](?:half|six|nine)\b|"
                 r"\b(?:first|1st) (?:two|three) quarters\b|\bh1\b|\b1h(?=\s*['’]?\d\d\b|\b)|\b[69]m(?=\s*(?:fy\s*)?['’]?\d\d|\b)|\bthrough (?:the end of )?(?:q[23]\b|(?:the )?"
                 r"(?:second|third|2nd|3rd) (?:fiscal )?quarter\b)")
"""Words naming a year-to-date period of a 10-Q (a month count in words or digits: "six months", "6-month")."""
QTR = re.compile(r"(?i)\bq[1-4]\b|\bquarter\b|\b(?:three|3)[ -]months?\b|\b[1-4]q(?:\s*['’]?\d{2}(?:\d{2})?)?\b")
"""Words naming a quarter."""
ANNUAL = re.compile(r"(?i)\bfiscal(?: year)?\b|\bfy\s*'?\d|\bannual\b|\bfull[- ]year\b|\bfor (?:the )?(?:year|twelve months)\b|"
                    r"\bin (?:19|20)\d\d\b")
"""Words naming a (fiscal) year."""
_YTD_MONTHS = re.compile(r"(?i)\b(six|nine|[69])[ -]months?\b|\bfirst[- ](half|six|nine)\b|\b(?:first|1st) (two|three) quarters\b|\b(h1|1h)(?=\s*['’]?\d\d\b|\b)|"
                         r"\b([69])m(?=\s*(?:fy\s*)?['’]?\d\d|\b)|"
                         r"\bthrough (?:the end of )?(?:q([23])\b|(?:the )?(second|third|2nd|3rd) (?:fiscal )?quarter\b)")
_AS_OF = re.compile(r"(?i)\b(?:as of|as at|at|on|ended|ending)\s+((?:[A-Z][a-z]+\.? \d{1,2},? (?:19|20)\d{2})|"
                    r"(?:19|20)\d{2}-\d{2}-\d{2})")


def _full_year(tok: str) -> int:
    y = int(tok)
    return y if y >= 100 else 2000 + y


_MONTH_QUARTER = re.compile(
    rf"(?i)\b{MONTH_RE}\.?[\s-]+{_Y4}\s+quarter\b|\b{MONTH_RE}[\s-]+quarter\s+(?:of\s+)?{_Y4}\b|"
    rf"\bquarter\s+(?:ended|ending)\s+(?:in\s+)?{MONTH_RE}\.?,?\s+{_Y4}\b")


def month_quarters(text: str) -> list[str]:
    """The last day of each month a quarter is named by ("the June 2024 quarter", "the June-quarter 2025", "the
    quarter ended August 2024" -> '2024-08-31'), in order, as ISO dates: routing takes them as period ends
    (a 52/53-week quarter ends within days of the month's end)."""
    out = []
    for m in _MONTH_QUARTER.finditer(text):
        groups = [g for g in m.groups() if g]
        month, year = month_num(groups[0]), int(groups[1])
        if month:
            out.append(iso_date(year, month, calendar.monthrange(year, month)[1]) or "")
    return uniq(d for d in out if d)


def years_written(text: str) -> list[int]:
    """Four-digit years written in `text` ('FY2018', 'fiscal 2019', 'May 2, 2020') and 'FY20'-style ones, in
    order of appearance, without repeats."""
    out = [(m.start(), int(m.group(1))) for m in _FY4.finditer(text)]
    out += [(m.start(), 2000 + int(m.group(1))) for m in _FY2.finditer(text)]
    filing = [a for a, _y in out if any(m.start() <= a < m.end() for m in _FILING_YEAR.finditer(text))]
    if filing and len(filing) < len(out):  # "In Meta's FY2024 10-K, ... the prior year (2023)": the filing's year
        out = [(a, y) for a, y in out if a not in filing]  # dates the document, the other year is the one asked
    return uniq(y for _, y in sorted(out))


_FILING_YEAR = re.compile(r"(?i)\b(?:FY|fiscal(?:\s+year)?)?\s*['’]?(?:19|20)?\d\d\s+(?:form\s+)?(?:10-?[KQ]|annual report|"
                          r"quarterly report|proxy(?: statement)?)\b|\b(?:10-?[KQ]|annual report)\s+(?:for|of)\s+(?:the\s+)?"
                          r"(?:fiscal\s+(?:year\s+)?|FY\s*)?['’]?(?:19|20)?\d\d\b")
"""A year that names a filing ("FY2024 10-K", "the 10-K for fiscal 2024"), not a period asked of it."""


def year_mentions(text: str) -> int:
    """How many times a year is written in `text` (`years_written` with repeats)."""
    return len(_FY4.findall(text)) + len(_FY2.findall(text))


_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


def quarters_written(text: str) -> list[int]:
    """The quarter (1-4) of each "Q2" / "second quarter" written in `text`."""
    return [int(m.group(1) or m.group(3)) if (m.group(1) or m.group(3)) else _QUARTER_WORDS[m.group(2).lower()]
            for m in _QUARTER.finditer(text)]


def ytd_months_named(text: str) -> Optional[int]:
    """6 or 9 when the words say how long a year-to-date period is ('nine months', 'first half', 'through Q3'),
    else None."""
    m = _YTD_MONTHS.search(text)
    if not m:
        return None
    word = next(g for g in m.groups() if g).lower()
    return {"six": 6, "half": 6, "two": 6, "h1": 6, "1h": 6, "6": 6, "9": 9, "nine": 9, "three": 9, "2": 6, "3": 9, "second": 6, "2nd": 6,
            "third": 9, "3rd": 9}[word]


def as_of_date(text: str) -> Optional[str]:
    """The first valid date after 'as of' / 'at' / 'ended' ... in `text`, as an ISO date."""
    return next((iso for m in _AS_OF.finditer(text) if (iso := dei_date(m.group(1)))), None)


def year_range(text: str) -> list[int]:
    """[first, last] of a span of years written in `text` ('FY2019 - FY2021', 'from 2016 to 2018'), or []."""
    m = _RANGE.search(text)
    return [_full_year(m.group(1)), _full_year(m.group(2))] if m else []
