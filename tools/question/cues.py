"""The forms and the soft cues a question names: 10-K / 10-Q / 8-K / earnings release, earnings-release and
corporate-event vocabulary, 8-K items, and years asked about as expected (guidance)."""
from __future__ import annotations

import re

from finrag.state.configuration import MAX_QUESTION_CHARS  # the one question-length limit
from finrag.tools.vocabulary.dates import two_digit_year

__all__ = ["detect_forms", "event_items", "forward_years", "question_cues"]

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
