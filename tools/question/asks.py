"""What a question asks of the values it names: one value, an average, a change or a CAGR; yes/no and the
direction it asks about; drivers; the scale and the rounding of the answer.

Read from the question's words alone (`finrag.tools.question.read_question`); the statement reader turns
them, with the routed filing, into its `Plan` (`finrag.tools.answering.questions.plan_question`).
"""
from __future__ import annotations

import re
from typing import Optional, cast

from finrag.state.question import Aggregate, Direction, Scale

__all__ = ["asks_applicability", "asks_percent", "asks_share_of_total", "aggregate_of", "average_years", "series_years", "decimals_asked", "definition_head", "direction_of", "is_yesno",
           "asks_drivers", "names_average", "scale_asked"]

_DEFINITION = re.compile(r"(?i)\b(?:is defined as|defined as|calculate (?:unadjusted )?\w+ using)\b|(?<=[\w,)])\s+where\b(?=[^?]*\b(?:is|are|equals?|means|represents?|defined|denotes?)\b|[^?]*=)")
_NUMWORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_AVG = re.compile(r"(?i)\b(two|three|four|five|[2-5])[- ]year average\b|\baverage of\b.*\bfrom\b")
_CAGR = re.compile(r"(?i)\bcagr\b|compound annual growth")
_MOVE = (r"(?:rise|rose|risen|fall|fell|fallen|increase[ds]?|decrease[ds]?|drop(?:ped|s)?|declin(?:e|ed|es)|grow|grew|move[ds]?|"
         r"grown|jump(?:ed|s)?|climb(?:ed|s)?|shr[iu]nk|sank|slid|expand(?:ed)?|contract(?:ed)?)")
_GROWTH = re.compile(r"(?i)\bgrowth rate\b|year[- ]over[- ]year (?:change|growth)|\byoy\b|\b% change\b|"
                     r"\bchange in\b|\bgrowth in\b|\bhow much has\b.*\bchanged\b|\bchanged? between\b|\bgrow\b|\bgrew\b|"
                     r"\bincreased?\b.*\bbetween\b|\bdecreased?\b.*\bbetween\b|\bimprov(?:e|ed|ing)\b|\bdeclin(?:e|ed|ing)\b|"
                     r"\bchange[ds]?\s+from\b|\b(?:by )?how much did\b.*\bchange\b|\bchange[ds]?\s+year[- ]over[- ]year\b|"
                     # "By what percentage did ... rise", "How much did ... fall in 2024, in percent?", "How many
                     # dollars did ... drop by", "... increase from 2023 to 2024", "revenue growth", "y/y"
                     rf"\bby what (?:percent(?:age)?|%|amount)\b|\bhow (?:much|many dollars|fast)\b[^?]*?\b{_MOVE}\b|"
                     rf"\b{_MOVE}\b[^?]*?(?:\bin percent(?:age terms)?|\bin dollar(?:s| terms)|\bin (?:us)?\$|\bpercent(?:age)?|%)|"
                     r"\b(?:the|a|any|what)\s+change\b|\bchange\b[^?]*?\b(?:vs\.?|versus|compared|against|over)\b|"
                     rf"\b{_MOVE}\b[^?]*?\bfrom\b[^?]*?\bto\b|\b{_MOVE}\b[^?]*?\b(?:over|versus|vs\.?|compared (?:with|to))\b|"
                     r"\b(?:revenues?|sales|income|earnings|eps|profits?|ocf|cash flows?|top[- ]line|bottom[- ]line)\s+"
                     r"growth\b|\bgrowth\s+(?:yoy|y/y|year[- ]over[- ]year)\b|\by/y\b|\byear[- ]ago (?:quarter|period)\b|"
                     r"\b(?:higher|lower|more|less|bigger|smaller|larger|greater|wider|narrower|deeper)\b[^?]*\bthan\b[^?]*"
                     r"(?:\b(?:19|20)\d{2}\b|\bFY\s?['’]?\d{2}\b|\b(?:prior|previous|preceding) (?:fiscal )?(?:year|quarter)\b|"
                     r"\ba year (?:earlier|before|ago)\b|\byear[- ]ago\b)|"
                     r"\brelative to\s+(?:the\s+)?(?:(?:fiscal\s+|FY\s?)?(?:19|20)\d{2}\b|(?:prior|previous|year[- ]ago)\b)|"
                     r"\b(?:vs\.?|versus|compared (?:with|to)|against)\s+(?:the\s+)?(?:year[- ]ago|prior[- ]year|a year "
                     r"(?:earlier|before)|(?:fiscal\s+|FY\s?)?(?:19|20)\d{2}\b|Q[1-4]\b|[1-4]Q\s*['’]?\d{2}\b|"
                     r"(?:first|second|third|fourth) quarter|the (?:same|corresponding|comparable) (?:period|quarter))|"
                     r"\b(?:vs\.?|versus|compared (?:with|to))\s+the (?:three|six|nine|twelve) months\b")
_YESNO = re.compile(r"(?i)^\s*(?:does|did|is|are|has|have|was|were|can|could|will|would|should)\b")
_ALTERNATIVES = re.compile(r"(?i)\b(?:improved|increased?|grown|grew|risen|higher) or (?:declined|decreased?|fallen|lower|"
                           r"worsened)\b")
_DRIVERS = re.compile(r"(?i)\bwhat (?:drove|drives|caused|led to|explains?|were the (?:main |primary )?(?:drivers|reasons))\b|"
                      r"\bwhy did\b|\bwhat (?:is|was|were) the (?:main |primary )?(?:driver|reason)s?\b|\bwhy\b")
_SCALE = re.compile(r"(?i)\b(?:in|usd|\$)\s*(?:usd\s*)?(thousands|millions|billions)\b|\bunits of (?:usd )?(millions|billions|thousands)")
_DECIMALS = re.compile(r"(?i)\b(one|two|three|four|zero|no|\d)\s?(?:decimal(?:s|\s+(?:places?|points?|digits?))?\b|dp\b|"
                       r"d\.p\.)")
"""The decimals asked however written: "round to two decimal places", "to 3 decimals", "One decimal.", "4 dp", "2dp"."""
_WORDNUM = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4}


_SERIES_LAST = re.compile(r"(?i)\b(?:each of|for) the (?:last|past|previous|prior|three|two|four|five) "
                          r"(?:(two|three|four|five|[2-5]) )?(?:fiscal |full |reported )?years\b")
_SERIES_EACH = re.compile(r"(?i)\byear[- ]by[- ]year\b|\bby (?:fiscal )?year\b|\bfor each (?:fiscal )?year\b|"
                          r"\beach (?:fiscal )?year\b|\brespectively\b")


def series_years(head: str, years: list[int]) -> Optional[int]:
    """N when the question asks one value per fiscal year ("for each of the last three fiscal years", "in fiscal
    2022, 2023 and 2024", "FY2022 through FY2024, year by year"), else None; never with a change, an average or
    a CAGR (`aggregate_of` reads those). `years`: the years written in `head`."""
    if aggregate_of(head) != "single":
        return None
    m = _SERIES_LAST.search(head)
    if m:
        word = m.group(1) or re.search(r"(?i)\b(two|three|four|five)\b", m.group(0))
        n = _NUMWORDS.get((word if isinstance(word, str) else word.group(1) if word else "").lower(), 0)
        return n or None
    if len(set(years)) >= 3 or (len(set(years)) == 2 and _SERIES_EACH.search(head)):
        return max(years) - min(years) + 1 if max(years) - min(years) < 6 else None
    return None


_APPLICABILITY = re.compile(r"(?i)\bif\b[^?]{0,120}?\bis not (?:a |an )?(?:useful|relevant|meaningful|appropriate)\b|"
                            r"\bif\b[^?]{0,120}?\bis not something (?:that )?(?:a |an )?(?:financial )?analysts? would")


def asks_applicability(text: str) -> bool:
    """Does the question ask to say so when its measure does not fit the company ("If gross margin is not a useful
    metric for a company like this, then state that")?"""
    return bool(_APPLICABILITY.search(text))


_SHARE_OF_TOTAL = re.compile(
    r"(?i)\b(?:what|which)\s+(?:share|percent(?:age)?|portion|proportion|fraction|%)\b|"
    r"(?:%|\bpercent(?:age)?|\bshare|\bproportion) of\b[^?]{0,40}?\b(?:sales|revenues?)\b|"
    r"\bhow much of\b[^?]*(?:\bas a percent(?:age)?\b|\bin percent\b|%)|\bas a (?:%|percent(?:age)?)\s*\??\s*$|"
    r"\bas (?:a )?(?:%|percent(?:age)?|share|proportion|fraction) of\b|\bcontribution (?:to|of)\b[^?]*\b(?:sales|revenues?)\b|"
    r"\b(?:%|percent(?:age)?|share|proportion) of (?:[\w.&-]+(?:'s|’s|s')\s+)?(?:the\s+|its\s+)?(?:company's\s+)?"
    r"(?:(?:fiscal\s+)?(?:19|20)\d{2}\s+|FY\s?\d{2,4}\s+)?(?:total|overall|consolidated|net|company[- ]wide)?\s*"
    r"(?:net\s+)?(?:operating\s+)?(?:sales|revenues?)\b|\b(?:revenue|sales) (?:mix|share)\b|\bmix of (?:revenue|sales)\b")


_PERCENT = re.compile(r"(?i)%|\bpercent(?:age)?s?\b|\bpct\b")


def asks_percent(text: str) -> bool:
    """Does the question ask a percentage ("%", "percent", "percentage", "pct")?"""
    return bool(_PERCENT.search(text))


def asks_share_of_total(head: str) -> bool:
    """Does the question ask a part's share of the total ("What share of ... came from Services", "as a percent
    of total net sales", "What percentage of Tesla's 2024 total revenues was generated in China")? A line item
    over revenue ("R&D as a percent of revenue") is a metric of the registry, read before this."""
    return bool(_SHARE_OF_TOTAL.search(head))


def definition_head(text: str) -> str:
    """`text` whitespace-collapsed, before a definition clause ("... is defined as ...", "calculate X using")."""
    return _DEFINITION.split(" ".join(text.split()))[0]


def aggregate_of(head: str) -> Aggregate:
    """'cagr', 'average' ("three-year average", "average of ... from"), 'change' (growth words) or 'single'."""
    if _CAGR.search(head):
        return "cagr"
    if _AVG.search(head):
        return "average"
    if _GROWTH.search(head):
        return "change"
    return "single"


def average_years(head: str) -> Optional[int]:
    """N of an "N-year average" in `head`, else None."""
    m = _AVG.search(head)
    n = _NUMWORDS.get(m.group(1).lower(), 0) if m and m.group(1) else 0
    return n or None


def names_average(head: str) -> bool:
    """Does `head` say "average" (a span of years then means an average of yearly values)?"""
    return bool(re.search(r"(?i)\baverage\b", head))


def is_yesno(text: str) -> bool:
    """A yes/no question ("Does ...", "Is ...") that is not an either-or ("improved or declined")."""
    return bool(_YESNO.match(text)) and not _ALTERNATIVES.search(text)


def direction_of(text: str, yesno: bool) -> Direction:
    """What a yes/no question asks about the value ('positive', 'healthy', 'improve', 'increase', 'decrease'),
    or 'improve' for "improved or declined"; '' otherwise."""
    ql = text.lower()
    if yesno:
        if re.search(r"\bpositive\b", ql):
            return "positive"
        if re.search(r"\b(?:healthy|adequate|strong) liquidity|\bhealthy\b", ql):
            return "healthy"
        if re.search(r"\bimprov", ql):
            return "improve"
        if re.search(r"\b(?:increase|grow|grew|rise|rose|higher)", ql):
            return "increase"
        if re.search(r"\b(?:decrease|decline|drop|fall|fell|reduc|lower)", ql):
            return "decrease"
        return ""
    if re.search(r"\bimproved or declined\b|\bincreased? or decreased?\b", ql):
        return "improve"
    return ""


def asks_drivers(text: str) -> bool:
    """Does the question ask what drove a value ("what drove", "why")?"""
    return bool(_DRIVERS.search(text))


def scale_asked(text: str) -> Optional[Scale]:
    """'thousands', 'millions' or 'billions' when the answer is asked in that scale ("in millions")."""
    m = _SCALE.search(text)
    return cast(Scale, (m.group(1) or m.group(2)).lower()) if m else None


def decimals_asked(text: str) -> Optional[int]:
    """The decimals the answer is asked to be rounded to ("round to two decimal places"), else None."""
    m = _DECIMALS.search(text)
    if not m:
        return None
    w = m.group(1).lower()
    return _WORDNUM.get(w, int(w) if w.isdigit() else None)
