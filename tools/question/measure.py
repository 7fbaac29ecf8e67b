"""The measure a question asks for: a metric of the reader's registry (a ratio, a margin, a turnover: computed
from line items) or, without one, the line item it names first."""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.question import CoverFact, MemberCue
from finrag.tools.vocabulary.dates import MONTH_WORDS
from finrag.tools.vocabulary.line_items import item_in_question
from finrag.tools.vocabulary.metrics import metric_in_question

_COVER: tuple[tuple[CoverFact, re.Pattern[str]], ...] = (
    ("auditor", re.compile(r"(?i)\bwho\s+(?:audited|audits)\b|\bwho\s+(?:is|was)\b[^?]*\b(?:auditor|audit\s+firm|accounting\s+firm)\b|"
                           r"\b(?:name\s+of|name|which|what\s+is|what\s+was)\s+(?:the\s+)?[\w'’\s]{0,40}?(?:independent\s+)?"
                           r"(?:auditor|audit\s+firm|(?:registered\s+public\s+)?accounting\s+firm)\b(?!'s|’s)|"
                           r"\b(?:who|which\s+(?:firm|company))\s+(?:signed|issued|gave|wrote)\b[^?]*\baudit(?:or'?s)?\s+"
                           r"(?:opinion|report)\b|\b(?:auditor|audit\s+firm|(?:registered\s+public\s+)?accounting\s+firm)"
                           r"\s+(?:for|of|on)\b|\bsign(?:ed|s)?\s+off\s+on\b[^?]*\b(?:financial\s+statements|accounts|audit)\b|"
                           r"\bbig\s+(?:four|4)\b|(?:^|\s)(?:auditors?|audit\s+firm|accounting\s+firm)\s*\??\s*$|"
                           r"^(?![^?]*\b(?:say|said|says|opinion|fees?|paid|chang\w*|resign\w*|dismiss\w*|concern|weakness|"
                           r"matters?|why|how)\b)[^?]{0,40}\b(?:auditor|audit\s+firm|accounting\s+firm)\b[^?]{0,30}\??$")),
    ("public_float", re.compile(r"(?i)\bpublic\s+float\b|\baggregate\s+market\s+value\b[^?]*\bnon-?affiliates\b")),
    ("shares_outstanding", re.compile(r"(?i)^(?!.*\b(?:weighted|average|diluted|basic|repurchas\w*|buybacks?)\b)"
                                      r".*\b(?:shares\b[^?]{0,60}\boutstanding|outstanding\s+shares|share\s+count)\b")),
    ("cik", re.compile(r"\bCIK\b|(?i:\bcentral\s+index\s+key\b)")),
    ("tax_id", re.compile(r"(?i)\b(?:irs\s+)?employer\s+identification\s+(?:number|no)\b|\btax\s+(?:identification|id)\s+"
                          r"(?:number|no)\b|(?-i:\bEIN\b)")),
    ("incorporation", re.compile(r"(?i)\b(?:state|jurisdiction|country|place)\s+of\s+(?:incorporation|organization)\b|"
                                 r"\bwhere\b[^?]*\bincorporated\b|\bincorporated\s+in\s+(?:which|what)\b|"
                                 r"\b(?:which|what)\s+(?:state|country|jurisdiction)\b[^?]*\b(?:incorporated|organized)\b")),
    ("phone", re.compile(r"(?i)\b(?:tele)?phone\s+(?:number|no)\b")),
    ("address", re.compile(r"(?i)\b(?:the|its|their|an?|mailing|street|office|business|[\w.&-]+(?:'s|’s|s'))\s+address\b|"
                           r"\baddress\s+of\b|\bheadquarters?\b|"
                           r"\bhead\s+office\b|\bprincipal\s+executive\s+offices?\b|\bwhere\s+(?:is|are)\b[^?]*\b"
                           r"(?:headquartered|located|based)\b")),
    ("exchange", re.compile(r"(?i)\b(?:which|what)\s+(?:stock\s+)?exchanges?\b|\b(?:listed|traded|trades|trade)\s+on\b|"
                            r"\b(?:ticker|trading)\s+symbols?\b")),
    ("fiscal_year_end", re.compile(r"(?i)\b(?:when|what\s+date|which\s+date|on\s+what\s+date|what\s+day)\b[^?]*"
                                   r"\bfiscal\s+(?:year|(?:19|20)\d{2})\b[^?]*\bend(?:s|ed)?\b|\bfiscal[\s-]+(?:(?:19|20)\d{2}\s+)?year[\s-]+end"
                                   r"(?:ing)?\s+(?:date|day)\b|\b(?:last|final)\s+day\s+of\s+(?:its\s+|the\s+)?fiscal\s+year\b")),
)


def cover_fact(text: str) -> Optional[CoverFact]:
    """The cover-page fact a question asks for ('auditor', 'shares_outstanding', 'public_float', 'cik', 'tax_id',
    'incorporation', 'phone', 'address', 'exchange', 'fiscal_year_end'), or None."""
    return next((name for name, rx in _COVER if rx.search(text)), None)

__all__ = ["cover_fact", "measure", "measure_qualifier", "member_cue", "part_qualifier", "word_forms"]

_MEMBER_CUES: tuple[tuple[MemberCue, re.Pattern[str]], ...] = (
    ("segment", re.compile(r"(?i)\b(?:reportable |operating |business )?segments?\b")),
    ("region", re.compile(r"(?i)\b(?:geograph\w*|regions?|countr(?:y|ies))\b|"
                          r"\b(?:(?:revenues?|sales)\s+(?:(?:generated|earned|derived)\s+)?|generat\w*\s+)(?:from|in)\s+(?:the\s+)?"
                          rf"(?!FY|Q[1-4]|H[12]|(?:Fiscal|Calendar|Operations|Continuing|Contracts?|Customers?|{MONTH_WORDS})\b)"
                          r"(?-i:[A-Z][A-Za-z]+)")),
    ("product", re.compile(r"(?i)\bproduct (?:lines?|categor(?:y|ies)|groups?)\b|\bby product\b")),
)
_WORD = re.compile(r"[a-z0-9]+(?:[&'][a-z0-9]+)*")
_QUALIFIED = re.compile(r"(?i)(?:'s|\u2019s|s'|\u2019)\s+(?P<q>(?:[\w&.\-]+\s+){1,4}?)(?:net\s+)?(?:revenues?|sales)\b")
_PLAIN_QUALIFIER = re.compile(r"(?i)^(?:total|net|annual|annualized|quarterly|consolidated|gross|reported|overall|"
                              r"full|year|yearly|fiscal|the|its|company|gaap|end|year-end|fy\d*|q[1-4]|first|second|"
                              r"third|fourth|quarter|half|trailing|twelve|month|months|ttm|ltm|\d{2,4}|in|of|for|and|"
                              r"aggregate|combined|whole|entire|calendar|cy\d*|approximate|approximately)$")


def measure_qualifier(text: str) -> Optional[str]:
    """The words between a possessive and "revenue"/"sales" that name a part of it, as a name is written (a
    capital: "Widgetco's Subscription revenue" -> 'Subscription', "Apple's iPhone revenue" -> 'iPhone'; "Apple's
    total net sales", "Amazon's year-over-year change in revenue" -> None): a product or service line is asked."""
    for m in _QUALIFIED.finditer(text):
        words = m.group("q").split()
        if words and words[-1].lower() in ("of", "cost", "deferred", "unearned", "recognized"):
            continue
        if any(w.lower() in ("cost", "deferred", "unearned") for w in words):
            continue
        kept = [w for w in words if not _PLAIN_QUALIFIER.match(w.strip(".,")) and re.search(r"[A-Z]", w)]
        if kept:
            return " ".join(kept)
    return None


def member_cue(text: str) -> Optional[MemberCue]:
    """The breakdown a question names outright ('segment', 'region', 'product'), or None; a qualified revenue
    ("Widgetco's Subscription revenue": `measure_qualifier`; "financing revenue", "revenues from concentrate
    operations": `part_qualifier`) is a product line."""
    named = next((name for name, rx in _MEMBER_CUES if rx.search(text)), None)
    return named or ("product" if measure_qualifier(text) or part_qualifier(text) else None)


_BEFORE_REVENUE = re.compile(r"(?i)\b([a-z][a-z&\-]+)\s+(?:revenues?|sales)\b")
_FROM_PART = re.compile(r"(?i)\b(?:revenues?|sales)\s+(?:(?:generated|earned|derived)\s+)?from\s+(?:the\s+|its\s+)?"
                        r"([a-z][a-z&\-]+)\b")
_NOT_A_PART = re.compile(r"(?i)^(?:total|net|gross|operating|annual|annualized|quarterly|consolidated|reported|overall|"
                         r"full|year|yearly|fiscal|the|its|their|company|gaap|non-gaap|adjusted|organic|in|of|for|and|or|"
                         r"aggregate|combined|whole|entire|calendar|approximate|approximately|what|which|how|much|many|"
                         r"did|does|was|were|is|are|has|have|had|its|her|his|our|their|same|comparable|line|top|"
                         r"recognized|deferred|unearned|recurring|cost|costs|per|average|total|percent|percentage|"
                         r"share|growth|change|increase|decrease|generated|earned|derived|from|higher|lower|more|less|"
                         r"continuing|operations|customers?|contracts?|sale|sales|revenues?|products?|services?|"
                         r"segment|segments|region|regions|geographic|business|businesses|lines|categories|category|"
                         r"first|second|third|fourth|quarter|half|months|trailing|twelve|ttm|ltm|million|billion|"
                         r"dollars?|usd|us|u|s|s&p|era|period|prior|previous|last|next|current|this|that|these|"
                         r"those|all|every|each|any|some|other|such|about|roughly|around|nearly|record|highest|"
                         r"lowest|largest|smallest|biggest|most|least|give|show|pull|get|got|book|booked|make|made|"
                         r"bring|brought|take|took|earn|collect|receive|received|report|reporting|post|posted|"
                         r"to|by|with|at|on|as|into|than|via|vs|versus|over|relative|compared|against|yoy|"
                         r"sequential|implied|expected|estimated|projected|forecast|guided|budgeted|"
                         r"[a-z&-]*(?:year|quarter|month|week|day)[a-z&-]*)$")


def part_qualifier(text: str) -> Optional[str]:
    """A lower-case word that names a part of revenue: the word before "revenue"/"sales" ("financing revenue",
    "advertising sales") or after "revenue from" ("revenues from concentrate operations"), not a word every
    total takes ("total", "net", "quarterly", "operating") or a verb; None when there is none."""
    for rx in (_BEFORE_REVENUE, _FROM_PART):
        for m in rx.finditer(text):
            word = m.group(1)
            if not _NOT_A_PART.match(word) and not word[0].isupper():
                return word
    return None


def word_forms(text: str) -> list[str]:
    """Lower-cased words, a possessive dropped and a plural's "s" ("sales" -> 'sale', "services" -> 'service';
    not "ss" or a short word): the form both a question and a displayed label are compared in."""
    out = []
    for w in _WORD.findall(text.lower().replace("\u2019", "'")):
        w = w[:-2] if w.endswith("'s") else w
        if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.append(w)
    return out


def measure(text: str, head: str) -> tuple[Optional[str], Optional[str]]:
    """(metric name, line item) of a question (`text` whitespace-collapsed, `head` its part before a definition
    clause): the metric is read from `head` without parentheses, else `head`, else `text`; the line item from
    `head`, only when there is no metric."""
    bare = re.sub(r"\s*\([^)]*\)", "", head)
    metric = metric_in_question(bare) or metric_in_question(head) or metric_in_question(text)
    if metric is not None:
        return metric.name, None
    items = item_in_question(head)
    if _OF_SALES.search(head):  # "What percent of its sales did Apple put into R&D": a line item over revenue
        over = next((_OVER_REVENUE[i] for _p, i in items if i in _OVER_REVENUE), None)
        if over is not None:
            return over, None
    return None, (items[0][1] if items else None)


_OVER_REVENUE = {"rnd": "rnd_revenue", "sga": "sga_revenue", "sales_marketing": "sales_marketing_revenue", "operating_income": "operating_margin",
                 "net_income": "net_margin", "gross_profit": "gross_margin", "cogs": "cogs_revenue",
                 "capex": "capex_revenue", "depreciation_amortization": "da_margin"}
"""A line item asked as a share of revenue, and the registry's metric that computes it."""
_OF_SALES = re.compile(r"(?i)(?:%|\bpercent(?:age)?|\bshare|\bproportion|\bfraction|\bportion)\b[^?]{0,60}?\b"
                       r"(?:sales|revenues?)\b|\b(?:sales|revenues?)\b[^?]{0,60}?(?:%|\bpercent(?:age)?\b)|"
                       r"\bevery dollar of (?:sales|revenues?)\b")
