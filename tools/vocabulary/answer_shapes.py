"""What a sentence that answers a count, date or name question holds (issue 50): the shapes of the answer.

`answer_piece(form, unit, nouns, own)` returns the piece of `unit` that answers a question of `form`, or None:

* `count`: a number with the asked noun ("approximately 73,300 employees", "815 warehouses") or the noun then
  the number ("headcount was 125,665"); `nouns` are the words the noun may be written with
  (`question.form.form_nouns`);
* `date`: a date as filings write it ("July 2, 2015", "November 2023", "in 2002"), or a calendar's ("the last
  Saturday of September", "the Friday closest to November 30"); `period_date` says when it is a period's end;
* `name`: a firm's name with its legal form ("PricewaterhouseCoopers LLP"), a titled person ("Mr. Jassy"), a
  person named before a verb or in an officers' table; not the asked company's own (`own`: its name's words, or
  its initials: "Advanced Micro Devices, Inc." is AMD's own). A
  place asked (`nouns` holds a kind of `PLACE_KINDS`: "What city ...", "Where is X headquartered") is a place, a
  town then its U.S. state ("Los Gatos, California", "Austin, TX") or its country, and nothing else; a customer
  asked (`nouns` holds "customer": "Who is PepsiCo's largest customer") is the party a sentence gives a share of
  sales to or from ("sales to Walmart Inc. ... represented approximately 14% of our consolidated net revenue"), or
  that is the subject of its share ("Walmart Inc. and its affiliates (Walmart) accounted for 21 percent of ...").

The prose answerer picks the sentence that leads the answer with it (`answering/prose.py`), and retrieval looks for
such sentences in the routed filing (`retrieval/form_evidence.py`).
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.vocabulary.dates import MONTH_WORDS

__all__ = ["ANSWER_FORMS", "CUSTOMER_SHAPE_WORDS", "PLACE_KINDS", "answer_piece", "asks_since", "period_date", "since_date",
           "whole_count"]

ANSWER_FORMS = ("count", "date", "name")
# the kinds of a place a name question asks ("what city", "where ... headquartered"): its answer is a place
PLACE_KINDS = frozenset(("city", "town", "state", "country", "location", "headquarters", "place"))
_STATES = ("Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Hawaii|Idaho|"
           "Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|"
           "Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|"
           "North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|"
           "Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming|District of Columbia|D\\.C\\.|"
           "A[LKZR]|C[AOT]|DE|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[TA]|W[AVIY]|"
           "Ireland|Switzerland|United Kingdom|England|Canada|Netherlands|Germany|France|Japan|Bermuda|Israel")
# a town (one to three capitalised words) then its state or country: "Cupertino, California", "Los Gatos, CA"
_STREET = re.compile(r"\b(?:Way|Street|Avenue|Road|Drive|Circle|Boulevard|Parkway|Plaza|Lane|Court|Suite|Floor|Center) ")
_A_PLACE = re.compile(rf"\b(?:[A-Z][a-z]+(?:[ -][A-Z][a-z]+){{0,2}}), (?:{_STATES})\b")

# a count; a year is none ("2019 Sales by Channel Stores": a count of a thousand or more is written with its comma)
_NUMBER = (r"(?:approximately |about |over |more than |nearly |roughly |some |a total of )?(?!(?:19|20)\d\d\b)\d[\d,]*"
           r"(?:\.\d+)?(?: (?:thousand|million))?")
_MONTH = MONTH_WORDS + r"\.?"
_WEEKDAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_A_DATE = re.compile(rf"\b{_MONTH} \d{{1,2}}, (?:19|20)\d\d\b|\b{_MONTH} (?:19|20)\d\d\b|\b(?:in|since|during) (?:19|20)\d\d\b|"
                     # a calendar's date: "the last Saturday of September", "the Friday closest to November 30"
                     rf"\b(?:first|last) {_WEEKDAY} (?:of|in) {_MONTH}|\b{_WEEKDAY} (?:closest|nearest) to {_MONTH} \d{{1,2}}\b")
_PERIOD_DATE = re.compile(r"(?i)\b(?:ended|ending|as of|through|until|to|at)\s*$")  # a span's end, a snapshot
_A_NAME = re.compile(r"\b(?:[A-Z][A-Za-z&.'-]+ ){0,3}[A-Z][A-Za-z&.'-]+,? (?:LLP|LLC|Inc\.|Corporation|Company|& Co\.|"
                     r"L\.P\.)|"
                     r"\b(?:Mr\.|Ms\.|Dr\.) [A-Z][a-z]+|\b[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]+(?=,? (?:our|the Company's|who|has served|serves|is|was) )|"
                     r"\b[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]+(?= (?:\| )?\d\d (?:\| )?(?:[A-Z][a-z]+ )*(?:President|Chief|Executive|Senior|Vice|"
                     r"Chair|Director|Treasurer|Controller|General|Secretary)\b)|"  # an officers' table: name, age, title ("|" cells)
                     # a person, then an appositive that holds an officer's title: "Elon Musk, Technoking of Tesla and
                     # our Chief Executive Officer", "Andrew R. Jassy, President and Chief Executive Officer"
                     r"\b[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]+(?=, [^.;]{0,50}?\b(?:Chief [A-Z][a-z]+ Officer|President|Chair(?:man|woman)?)\b)")
# a customer named where the sentence gives its share of sales: "sales to Walmart Inc. (Walmart) ... represented
# approximately 14% of our consolidated net revenue", "71% of our $67.0 billion in net sales were from the U.S. Government"
# the words that ask for that shape itself (its rank among customers, its share), not a topic a sentence must write
CUSTOMER_SHAPE_WORDS = frozenset(("largest", "biggest", "principal", "main", "major", "top", "primary", "single", "share",
                                  "percentage", "percent", "portion", "proportion", "account", "accounted", "accounts"))
# (sales are made "to" the customer, or are "from" it: "Revenues from the U.S. Government ... represented 42%"; a
# possessive is a seller's own line, not a customer: "Net sales from Aeronautics' combat aircraft represented 32%")
_A_CUSTOMER = re.compile(r"(?:\b(?i:sales|revenues?) (?:to|from)|%[^;]{0,80}?\bfrom) (?:the )?((?:[A-Z][\w.&'’-]*)(?: [A-Z][\w.&'’-]*){0,3})")
_PCT = r"\d+(?:\.\d+)?\s?(?:%|percent\b)"
_A_SHARE = re.compile(rf"{_PCT}[^.;]{{0,80}}?\b(?:sales|revenues?)\b|\b(?:sales|revenues?)\b[^.;]{{0,80}}?{_PCT}")
# or the customer as the subject of its share: "Walmart Inc. and its affiliates (Walmart) accounted for 21 percent",
# also in apposition to the customer: "Our largest customer, Walmart Inc., represented approximately 22% of our net sales"
_CUSTOMER_SUBJECT = re.compile(r"((?:[A-Z][\w.&'’-]*)(?: [A-Z][\w.&'’-]*){0,3})(?: and its (?:affiliates|subsidiaries)"
                               r"[^,;]{0,30}?)?,? (?:accounted for|represented|comprised) (?:approximately |about )?\d")


_LEGAL = frozenset(("the", "llp", "llc", "inc", "corporation", "company"))
# words that with a legal form name a kind of company, no one ("Public Company" of the PCAOB's name, "Parent Company")
_GENERIC = frozenset(("public", "private", "parent", "holding", "operating", "registrant", "reporting", "subsidiary"))


_WHOLE = re.compile(r"(?i)\btotal\b|\bworldwide\b|\bglobal\b|\bin all\b|"
                    r"\b(?:we|company\)?|it|inc\.|corporation)\s+(?:had|have|has|employ\w*|operat(?:ed|es|e))\b")


def whole_count(unit: str, nouns: tuple[str, ...]) -> bool:
    """Does the count that `unit` states (`answer_piece`) count the whole ("we had approximately 73,300 employees",
    "we operated 2,858 ... stores",
    "Boeing's total workforce was approximately 172,000", "152,700 employees worldwide"), not a part of it
    ("14,000 Boeing employees leveraged our tuition assistance program")? Read in the 80 characters before the count
    (a clause: "we had a highly skilled workforce made up of approximately 116,000") and the 20 after it."""
    unit = " ".join(unit.split())
    piece = answer_piece("count", unit, nouns)
    if piece is None:
        return False
    at = unit.find(piece)
    # after the last count before it: a cue before another count is that count's ("we had 9 unions in the U.S.
    # with 27 independent agreements and 18 employee representative bodies": the 18 counts no whole)
    before = re.split(r"\b\d(?:[\d,.]*\d)?\s+(?=[a-z])", unit[max(0, at - 80): at])[-1]
    return bool(_WHOLE.search(before + unit[at: at + len(piece) + 20]))


def period_date(form: str, unit: str) -> float:
    """0.15 when the first date of a date question's answer `unit` is a period's end or a snapshot's date ("the year
    ended December 31, 2018", "as of June 30", "to December 31, 2018"), not an event's: a ranking's penalty; 0.0 otherwise."""
    if form != "date":
        return 0.0
    unit = " ".join(unit.split())
    m = _A_DATE.search(unit)
    return 0.15 if m and _PERIOD_DATE.search(unit[max(0, m.start() - 12): m.start()]) else 0.0


# a tenure asked: since when, since what year, how long has/have (an auditor, an officer, a dividend paid)
# or the start of a role: "When did X become CEO", "when did Y join the company" ("CEO since April 2005")
_ASKS_SINCE = re.compile(r"(?i)\bsince (?:when|what|which)\b|\bhow long (?:has|have|had)\b|"
                         r"\bwhen (?:did|has|had)\b[^?]{0,60}?\b(?:become|join|start|begin|take over|assume)\b")
# a tenure stated: "We have served as the Company's auditor since 2002", "has paid dividends since March 1987"
_SINCE = re.compile(rf"(?i)\bsince (?:(?:{MONTH_WORDS})\.? (?:\d{{1,2}},? )?)?(?:19|20)\d\d\b")


def asks_since(question: str) -> bool:
    """Does the question ask when a tenure began ("Since what year has X been ...", "how long has X audited ...",
    "When did X become CEO")?"""
    return _ASKS_SINCE.search(question) is not None


def since_date(unit: str) -> bool:
    """Does `unit` state when a tenure began ("... auditor since 2002", "since March 1987")?"""
    return _SINCE.search(" ".join(unit.split())) is not None


def answer_piece(form: str, unit: str, nouns: tuple[str, ...], own: frozenset[str] = frozenset(),
                 asked: frozenset[str] = frozenset()) -> Optional[str]:
    """The piece of `unit` that answers a question of `form` (see the module docstring), or None. Any run of
    white space counts as one space (PDF text writes no-break spaces between words: "audited\xa0by"). `asked`: the
    question's own words, lower-cased: a name made only of them and of legal forms echoes the question ("The Foundry
    Company" for "Which foundry ..."), it does not answer it."""
    unit = " ".join(unit.split())
    if form == "count":
        for noun in nouns:
            stem = re.escape(noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun)
            m = (re.search(rf"(?i)\b{_NUMBER}(?: [a-z-]+){{0,3}} {stem}(?:s|es)?\b", unit)  # "73,300 employees"
                 or re.search(rf"(?i)\b{stem}(?:s|es)?(?: [a-z-]+){{0,3}} (?:was|were|totaled|of)(?: approximately| about)? "
                              rf"\d[\d,]*(?:\.\d+)?\b", unit))                                # "headcount was 125,665"
            if m:
                return m.group(0)
        return None
    if form == "date":
        m = _A_DATE.search(unit)
        return m.group(0) if m else None
    if form != "name":
        return None
    if "customer" in nouns:  # a customer asked: the party a share of sales is from
        if not _A_SHARE.search(unit):
            return None
        for m in [*_A_CUSTOMER.finditer(unit), *_CUSTOMER_SUBJECT.finditer(unit)]:
            if re.search(r"['’]", m.group(1)) or m.group(1) in ("In", "During", "The", "We", "Our"):  # a seller's line
                continue
            if not (own and set(re.findall(r"[a-z]{3,}", m.group(1).lower())) & own):
                return m.group(1)
        return None
    if PLACE_KINDS & set(nouns):  # a place asked: a town and its state or country
        m = _A_PLACE.search(unit)
        return _STREET.split(m.group(0))[-1] if m else None  # "Park Way Cupertino, California": the town after the street
    for m in _A_NAME.finditer(unit):  # a name, not the asked company's own ("Pfizer Inc." in its auditor's report)
        words = set(re.findall(r"[a-z]{3,}", m.group(0).lower()))
        initials = "".join(w[0] for w in re.findall(r"[A-Za-z]+", m.group(0)) if w.lower() not in _LEGAL).lower()
        if own and (words & own or initials in own) or asked and words <= asked | _LEGAL or words <= _LEGAL | _GENERIC:
            continue  # the asked company, an echo of the question, or no one's name ("Public Company", "The Company")
        return m.group(0)
    return None
