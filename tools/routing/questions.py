"""Reading a question: the years, fiscal periods and dates it names, the forms, and soft cues.

`extract_periods` finds dates ("May 26, 2023", "2023-05-26"), fiscal quarters ("Q2 of FY2024",
"2023 Q1", "Q2'23", "second quarter of fiscal 2022"), fiscal years ("FY2019", "FY 22", "fiscal
2022") and bare years, masking each match so that it is read once. `detect_forms` lists the
forms a question names (10-K, annual report, 10-Q, 8-K, earnings release); `question_cues` adds
hints for the document choice: earnings-release vocabulary and corporate-event vocabulary.
"""
from __future__ import annotations

import re

from finrag.state.configuration import MAX_QUESTION_CHARS  # the one question-length limit
from finrag.tools.routing.text import MONTH_RE, iso_date, month_num, two_digit_year, uniq

__all__ = ["MAX_QUESTION_CHARS", "detect_forms", "extract_periods", "event_items", "forward_years", "question_cues"]

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


_FORWARD_CUE = (r"(?:guidance|outlook|forecasts?|forecasted|projections?|projected|expects?|expected|expectations?|"
                r"anticipates?|anticipated|plans?|planned|targets?|targeted|budget(?:ed)?|estimates?|estimated|"
                r"intends?|will)")
_PERIOD_REF = r"(?:(?:the\s+)?(?:fiscal\s+(?:year\s+)?|FY\s*['’]?|calendar\s+(?:year\s+)?|CY\s*)?)((?:19|20)\d{2}|\d{2})"
_FORWARD_PATTERNS = [
    re.compile(_FORWARD_CUE + r"\b[^.?!;]{0,60}?\b(?:for|in|during|of|through|by)\s+" + _PERIOD_REF + r"\b", re.I),
    re.compile(r"\b(?:FY\s*['’]?|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2}|\d{2})E?\s+(?:[A-Za-z&\-]+\s+){0,2}"
               r"(?:guidance|outlook|forecasts?|projections?|estimates?|targets?|budget|expectations?|plan)\b", re.I),
    re.compile(r"\bFY\s*['’]?((?:19|20)\d{2}|\d{2})E\b", re.I),
]


_FORWARD_ANY = re.compile(_FORWARD_CUE + r"|\d{2}E\b", re.I)


def forward_years(text: str) -> list[int]:
    """Years a question asks about as *expected* ("guidance for FY2023", "2025 outlook", "expected capex in
    2024", "FY24E"): what a company expects for a period is in the filings published before it."""
    if not isinstance(text, str):
        return []
    text = text[:MAX_QUESTION_CHARS]
    if not _FORWARD_ANY.search(text):
        return []
    out = []
    for rx in _FORWARD_PATTERNS:
        for m in rx.finditer(text):
            raw = m.group(1)
            if raw and (len(raw) == 4 or re.search(r"FY\s*['’]?$|fiscal\s+(?:year\s+)?$", text[:m.start(1)], re.I)):
                out.append(two_digit_year(raw))
    return sorted(set(out))


_ITEM_CUES = [  # 8-K items (SEC Form 8-K) and the words that ask about them
    ("5.02", r"\bnew\s+(?:ceo|cfo|coo|chief\s+\w+\s+officer|president|chair\w*)|\bappoint\w*|\bresign\w*|"
             r"\bdepart\w*|\bsuccessor|\bretire\w*\s+as\b|\bnamed\s+(?:ceo|cfo|chief)|\bstep(?:s|ped)?\s+down"),
    ("5.07", r"\bnominees?\b|\bvotes?\b|\bvoting\b|\bannual\s+(?:general\s+)?meeting|\bshareholder\s+proposal|"
             r"\bsay[\s\-]on[\s\-]pay"),
    ("1.01", r"\bcredit\s+(?:agreement|facility)|\brevolving\b|\bmerger\s+agreement|\bdefinitive\s+agreement|"
             r"\bterm\s+loan|\bindenture"),
    ("2.03", r"\bcredit\s+(?:agreement|facility)|\brevolving\b|\bborrow\w*|\bterm\s+loan|\bnotes?\s+offering"),
    ("2.01", r"\bcompleted?\s+(?:the\s+)?(?:acquisition|sale|separation|disposition)|\bsplit[\s\-]off|"
             r"\bexchange\s+offer|\bdivest\w*"),
    ("2.02", r"\bresults\s+of\s+operations|\bquarterly\s+results|\bearnings\s+release"),
    ("5.03", r"\bby[\s\-]?laws?\b|\bcertificate\s+of\s+incorporation|\barticles\s+of\s+incorporation"),
    ("2.05", r"\brestructuring\s+plan|\bexit\s+costs?|\blayoffs?\b"),
    ("4.01", r"\bauditor\b|\baccounting\s+firm"),
]


_ITEM_CUES_RX = [(item, re.compile(rx, re.I)) for item, rx in _ITEM_CUES]


def event_items(text: str) -> set[str]:
    """8-K items a question asks about: '5.02' (officers), '5.07' (shareholder votes), '1.01'/'2.03'
    (agreements, borrowings), '2.01' (completed deals), '2.02' (results), '5.03' (bylaws) ..."""
    if not isinstance(text, str) or not text:
        return set()
    text = text[:MAX_QUESTION_CHARS]
    return {item for item, rx in _ITEM_CUES_RX if rx.search(text)}


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
