"""The form of a prose question's answer (issue 50): what kind of sentence answers it.

A question's words say what its answer is, whatever the company or the measure:

* `count` ("how many employees", "headcount", "number of stores", "total employees"): a number with its noun (past
  a company's name: "number of Acme Foods stores" counts stores);
* `date` ("when", "on what date", "in which year", "since what year", "how long has", also after a short opening
  phrase, "Acme FY2024 10-K: since when ...", or an event's date asked without a question word: "Acme merger closing
  date?"): a date;
* `name` ("who is the auditor", "which firm", "what city is ... headquartered in", "which exchange is ... listed
  on", "LMT's biggest customer", "Acme FY21 - which customer is over 10% of sales"): one name; `form_nouns` gives the kind of place asked (`PLACE_KINDS`: "city") or
  "customer" (the answer is the party a share of sales is from);
* `drivers` ("what drove", "why", "the primary reasons for", "due to what", "<measure> growth driver",
  "<measure> growth - drivers?"): the causes of a change, whatever the
  measure ("why did the employee count fall" asks the causes, not the count);
* `yesno` ("Does ...", "Did ...", "At the time of its 10-K, was ...", "<topic> - yes or no?", "<topic> - improving
  in 2020?", not an either-or, not "Could you list"): Yes or No and the sentence that decides it;
* `list` ("what are the reportable segments", "list the major products", "which brands does it sell", "acme segments
  fy2020"): the items;
* `''`: another form (a figure, a ranking, an open question).

`answer_form(text, figure=...)` reads it once for `QuestionFacts.form`; `form_nouns(text, form)` the words the
asked noun may be written with (a count's or a list's: "employees" -> employees, people, associates, ...).
"""
from __future__ import annotations

import re

from finrag.state.question import AnswerForm
from finrag.tools.vocabulary.answer_shapes import PLACE_KINDS
from finrag.tools.vocabulary.synonyms import WORKFORCE, same_as

__all__ = ["answer_form", "form_nouns"]

# a workforce's or a store count's size is its count ("total workforce size", "the size of its workforce")
_COUNTED = "|".join(w for w in (*WORKFORCE, *same_as("stores"), "stores") if " " not in w)
# "total employees" is their count, not a cost of them ("total employee compensation" is a figure)
_TOTAL_COUNTED = rf"\btotal\s+(?:number\s+of\s+)?(?:{_COUNTED})\b(?!\s+(?:compensation|costs?|benefits?|expenses?|pay))"
_COUNT = re.compile(r"(?i)\bhow many\b|\bnumber of\b|\b[a-z]+ count\b|\bheadcount\b|"
                    rf"\b(?:{_COUNTED})\s+size\b|\bsize of (?:the |its |their |our |[\w.&'’-]+(?:'s|’s) )?(?:total )?(?:{_COUNTED})\b|"
                    rf"{_TOTAL_COUNTED}")
_OPENING = r"(?:[^,?]{3,60}(?:,|\s[-–—:]|:)\s*)?"  # a short opening phrase: "Acme FY2024 10-K: ", "Acme FY21 - "
_DATE = re.compile(r"(?i)^\s*" + _OPENING +  # "Acme FY2024 10-K: since when"
                   r"(?:when\b|on what date\b|what (?:date|day|year)\b|in (?:what|which) (?:month|year)\b|"
                   r"as of what date\b|since (?:when|what (?:date|year|month)|which year)\b|"
                   # a tenure asked by its length is asked by its start: "how long has X audited Acme" / "since 1921"
                   r"how long (?:has|have|had)\b)"
                   # an event's date asked without a question word: "<company> merger closing date?"
                   r"|^(?!\s*(?:what|which|how|who|why|where|is|are|was|were|does|did|do)\b)[^?]*"
                   r"\b(?!(?:that|this|the|a|an|such|any|each)\s)[a-z]{3,}\s+(?:date|day)\s*\??\s*$")
# one name asked for: "who is/was/signed ...", "which firm ..." ("who are the customers" asks for a list)
# one name asked for after its topic set off by a dash or a colon ("Acme FY21 - which customer ...")
_WHO = re.compile(r"(?i)^\s*(?:[^,?]{3,60}(?:\s[-–—:]|:)\s*)?"
                  r"(?:who (?:is|was|signed|audits|audited|serves|served|leads|led|heads|headed|became|becomes|succeeded|"
                  r"replaced)\b|"
                  r"which (?:firm|accounting firm|audit(?:or|ing firm)|person|executive|company|entity|buyer|acquirer|"
                  r"purchaser|bank|director|officer|customer)\b(?!s)|"
                  r"what (?:is|was) the name of\b|name the (?:auditor|ceo|cfo|chief)\b)")
# one thing named by its kind: "What city is Apple headquartered in?", "Which exchange is META's stock listed on?",
# "Which foundry did AMD ...": a singular noun after "which"/"what", then a verb; not a figure's noun ("what
# percentage is ..."), not a period's ("what year": a date), not a plural (a list)
_KIND = re.compile(r"(?i)^\s*(?:which|what)\s+((?:[a-z-]+\s+)?[a-z-]+?)\s+(?:is|was|are|were|did|does|do|has|had)\b")
_FIGURE_KIND = re.compile(r"(?i)\b(?:percent\w*|amount|portion|proportion|share|value|ratio|number|rate|level|price|"
                          r"figure|total|sum|margin|growth|change|difference|return|cost|size|balance|impact|effect|"
                          r"trend|type|kind|way|part|role|purpose|nature|reason|basis|extent|method|status|"
                          r"date|day|year|month|quarter|period|time|age|float|worth|capitali[sz]ation|revenue|income|profit|loss|debt|"
                          r"cash|spend|expense|earnings|eps|dividend|yield|multiple|guidance|outlook)$")
# one customer asked by its rank ("LMT's biggest customer in 2022?"); "the primary customers" asks a list
_CUSTOMER = re.compile(r"(?i)\b(?:largest|biggest|principal|main|major|top|primary|single largest) customer\b(?!s)")
# a place asked by "where" ("Where is Nike headquartered?") or "in which city/state/country"
_WHERE = re.compile(r"(?i)^\s*(?:where\s+(?:is|are|was|were|does|did)\b[^?]*\b(?:headquarter\w*|located|based|"
                    r"incorporated|offices?)\b|in (?:which|what) (city|town|state|country)\b)")
# the auxiliary verb opens the question, or its main clause after a short opening phrase ("At the time of its 2019
# 10-K, was ...", "Per the 10-K, does ..."), or after its topic set off by a dash or a colon ("acme dividends - did
# they pay any?"); "Could you list ..." is a request, not a yes/no
# A question that asks "yes or no" outright is one whatever its words ("acme buybacks in 2021 - yes or no?"), and so is a
# topic set off by a dash or a colon and then a verbless predicate, a participle ("acme operating margin - improving
# in 2020?", "... - getting worse?"): the auxiliary is left out, not the question
_YESNO = re.compile(r"(?i)^\s*(?:[^,?]{3,60}(?:,|\s[-–—:]|:))?\s*(?:does|did|do|is|are|has|have|had|was|were|can|could|will|would|should)\b"
                    r"(?!\s+(?:you|we|i)\b)|"
                    r"^[^?]*\byes or no\b|^[^?]*\b(?:yes|y)/(?:no|n)\b|"
                    r"^[^?]{3,80}?\s[-–—:]\s*(?!(?:including|excluding|based|adjusted|related|reported|ended|ending|"
                    r"restated|expected|estimated|annualized)\b)(?:[a-z]{3,}(?:ing|ed)|still)\b[^?]*\?\s*$")
_EITHER_OR = re.compile(r"(?i)\b(?:improved|increased?|grown|grew|risen|higher|up) or (?:declined|decreased?|fallen|lower|"
                        r"worsened|down)\b")
# the causes of a change asked: "what drove", "why did", "the primary reasons for", "what factors contributed to"
_DRIVERS = re.compile(
    r"(?i)\bwhat (?:drove|drives|driven|caused|causes|led to|leads to|explains?|accounts? for|contributed to)\b|\bwhy\b|"
    r"\b(?:drivers?|reasons?|causes?|factors?)\b[^?]{0,30}\b(?:for|of|behind|that (?:drove|caused|led to)|"
    r"contribut\w+ to|driving)\b|\bdue to what\b|\bwhat (?:was|were|is|are) (?:the )?(?:main |primary |key |major )?"
    r"(?:drivers?|reasons?|causes?)\b|\bwhat was (?:it|this|that) due to\b|\battribut\w+ to what\b|"
    # asked without a question word: "<measure> growth driver", "<measure> growth - drivers?"
    r"\b(?:growth|increase|decline|decrease|change|rise|fall|drop|improvement)\s+(?:drivers?|reasons?|causes?)\b|"
    r"[-–—:]\s*(?:the )?(?:main |key |primary )?(?:drivers?|reasons?|causes?)\s*\??\s*$")
# several items asked: "what are the reportable segments", "list ...", "name the ...", "which brands does X sell"; the
# plural is the object of "list/name/identify" itself ("identify the accounting firm that audited ... statements"
# asks for one firm)
_NOUN = r"((?:[a-z&'’-]+ ){0,3}?[a-z-]+(?:ies|[^s\W]s|ches|shes|xes))\b(?!['’])"  # not an owner ("MGM Resorts'")
_LIST = re.compile(
    rf"(?i)^\s*(?:(?:could|can) you |please )?(?:list|name|enumerate|identify)\s+(?:(?:the|all|its|their|each|any|"
    rf"of)\s+)*(?:[\w.&'’-]+(?:'s|’s|s'|s’)\s+)?{_NOUN}|"
    rf"\bwhat (?:are|were)\b[^?]*?\b{_NOUN}|"
    rf"^\s*(?:which|what)\s+(?:(?:of\s+)?[\w.&'’-]+(?:'s|’s)\s+)?{_NOUN}\s+(?:did|does|do|has|have|had|are|were|was|is|"
    rf"make up|comprise)\b|"
    rf"^\s*(?:who|what|which)\s+(?:are|were)\s+(?:the\s+)?(?:(?:[\w.&-]+\s+){{0,3}}[\w.&-]+(?:'s|’s|s'|s’)\s+)?{_NOUN}|"
    # a noun phrase that names the list and its period: "Acme reportable segments in the 2020 10-K", "acme segments fy2020"
    rf"^[^?]*?\b(?:(?:reportable|operating|business) {_NOUN}|(segments|divisions))\s*"
    rf"(?:\?|\b(?:fy|cy)?\s*'?(?:19|20)?\d\d\b|\(|$|(?:in|of|for|per|as of)\s+(?:the\s+|its\s+|fiscal\s+|fy\s*)?(?:19|20)\d\d\b)")
# a list's noun is a thing, not the figure of a measure ("what were the total revenues": one figure)
_MEASURE_NOUN = re.compile(r"(?i)(?:revenues|sales|earnings|expenses|costs|assets|liabilities|margins|rates|ratios|"
                           r"flows|amounts|figures|totals|values|numbers|years|periods|days|months|quarters|"
                           r"dollars|percentages|shares)$")
# the nouns of a workforce, of a store count: a count of any is written with any ("how many people work for" /
# "152,700 employees"; "store count" / "2,858 stores"): `vocabulary.synonyms`
_NOUN_AFTER = re.compile(r"(?i)\b(?:how many|number of)\s+(?:(?:full|part)-time\s+(?:and\s+(?:full|part)-time\s+)?|total\s+|"
                         r"retail\s+|active\s+)?([a-z][a-z-]+)")
_NOUN_BEFORE = re.compile(rf"(?i)\b([a-z]+)\s+count\b|\b({_COUNTED})\s+size\b|\btotal\s+({_COUNTED})\b")
# the words after "how many" / "number of" up to the counted noun: a company's name may come first ("the number
# of Acme Foods stores"): the noun is the first word of a class the filings count in (`vocabulary.synonyms`)
_AFTER_WORDS = re.compile(r"(?i)\b(?:how many|number of)\s+((?:[\w.&'’-]+\s+){0,4}[\w.&'’-]+)")
# the size of a workforce is its count ("Lockheed's total workforce size", "the size of its workforce")
_SIZE_OF = re.compile(rf"(?i)\bsize of (?:the |its |their |our |[\w.&'’-]+(?:'s|’s) )?(?:total )?({_COUNTED})\b()")


def _list_noun(text: str) -> str:
    """The plural noun a list question asks for ("What are 3M's business segments" -> 'business segments'), or ''."""
    for m in _LIST.finditer(text):
        noun = next((g for g in m.groups() if g), "")
        words = noun.lower().split()
        while words and words[0] in ("the", "its", "their", "our", "all", "of", "any", "main", "primary", "major",
                                     "key", "principal", "top", "two", "three", "four", "five", "current"):
            words = words[1:]
        noun = " ".join(words)
        if noun and not _MEASURE_NOUN.search(noun):
            return noun
    return ""


def answer_form(text: str, *, figure: bool = False, ranking: bool = False) -> AnswerForm:
    """The form of the answer `text` asks for (see the module docstring). `figure`: the question names a metric or a
    line item (a list noun is then a figure's, "what were the revenues"); `ranking`: it asks which part ranks first
    (answered from the breakdown, not a list). Read from the question's first sentence: a second one instructs ("If
    the quick ratio is not useful, state that and explain why" asks no causes)."""
    text = re.split(r"\?\s+(?=\S)", text.strip())[0]
    if _DRIVERS.search(text) and not _YESNO.match(text):  # "why did the employee count fall": the causes
        return "drivers"
    if _COUNT.search(text):
        return "count"
    if _DATE.search(text):
        return "date"
    if _WHO.search(text):
        return "name"
    if _YESNO.match(text) and not _EITHER_OR.search(text):
        return "yesno"
    if _DRIVERS.search(text):
        return "drivers"
    if not figure and not ranking and _list_noun(text):
        return "list"
    if not figure and not ranking and (_kind_noun(text) or _CUSTOMER.search(text)):
        return "name"
    return ""


def _kind_noun(text: str) -> str:
    """The kind of one thing a "which/what <noun> <verb>" question names ("What city is ..." -> 'city'), or ''."""
    where = _WHERE.match(text)
    if where:
        return (where.group(1) or "headquarters").lower()
    m = _KIND.match(text)
    if not m:
        return ""
    noun = m.group(1).lower().split()[-1]
    if (_FIGURE_KIND.search(noun) or _MEASURE_NOUN.search(noun) or noun.endswith("s") and not noun.endswith("ss")
            or noun in ("of", "the", "a", "an", "kind", "sort")):
        return ""
    return noun


def form_nouns(text: str, form: str) -> tuple[str, ...]:
    """The words the asked noun may be written with: a count's ("how many employees" -> employees, people,
    associates...), a list's, plural as a list writes it ("reportable segments" -> segments); () for other forms."""
    text = re.split(r"\?\s+(?=\S)", text.strip())[0]
    if form == "list":
        return tuple(_list_noun(text).split()[-1:])
    if form == "name":  # the kind of place asked ("city"): a place, not a firm's or a person's name, answers it
        kind = _kind_noun(text)
        if kind in PLACE_KINDS:
            return (kind,)
        return ("customer",) if re.search(r"(?i)\bcustomer\b(?!s)", text) else ()
    if form != "count":
        return ()
    m = _NOUN_AFTER.search(text) or _NOUN_BEFORE.search(text) or _SIZE_OF.search(text)
    noun = (next(g for g in m.groups() if g).lower() if m else "headcount" if re.search(r"(?i)headcount", text) else "")
    if m is not None and m.re is _NOUN_AFTER:
        noun = _counted_noun(text) or noun
    if noun == "employee":
        noun = "employees"
    if not noun:
        return ()
    return tuple(dict.fromkeys((noun, noun.rstrip("s"), *same_as(noun))))


def _counted_noun(text: str) -> str:
    """The noun "how many" / "number of" counts, past a company's name before it ("number of Acme Foods stores" ->
    'stores', "number of full time employees" -> 'employees'): the first of the next five words that is a word
    filings count a workforce or stores in (`_COUNTED`), else '' (the first word is then the noun: a product's or
    a brand's name, "how many Zeta Cloud subscribers", must be written by the answer's sentence)."""
    m = _AFTER_WORDS.search(text)
    if not m:
        return ""
    words = [w.lower().strip(".,;:?()'’") for w in m.group(1).split()]
    counted = set(_COUNTED.split("|"))
    return next((w for w in words if w in counted), "")
