"""A name written in lower case that is a common English word ("apple", "target", "visa", "block"): the company only
when the question is about that company's business (issue 48; a part of the linker).

"visa requirements for employees" names no company; "visa cross-border volume growth last qtr", "target comps q2",
"apple iphone rev fy24" and "H1 2025 free cash flow for tesla" name Visa, Target, Apple and Tesla. The principle: the
word is the **subject of a terse business question**:

* it opens the question, the rest is terse (no word that makes it an English sentence: articles, verbs, prepositions;
  `QUESTION_WORDS`, less the glue of a comparison: "vs", "and") and the rest asks for a line item or names a period ("comps q2", "rev fy24", "gross profit",
  "combined ratio 2024", "HVAC volumes");
* or it ends a phrase after "for"/"of"/"at" in a question that asks for a line item ("free cash flow for tesla");
* or a legal-form word follows it ("gap inc"), or a possessive before a line item ("target's revenue").

And the word must be the company's own name ("target" is Target Corporation's; "chemical" only begins a longer
name) and the company one of the largest registrants (`PROMINENT_RANK` in the SEC's list, ordered by market
value): a common word is the everyday name of Apple or Visa, not of a shell company called Forward or Global. The
linker reads the reason (`SUBJECT_MARK`) and checks the size (`prominent`).

Another company named in the question still wins (ranking sets the weaker reading aside): the rule only says that a
lower-case word may name a company, at the lowest accepted confidence.
"""
from __future__ import annotations

import re
from typing import Iterable

from finrag.tools.question.shorthand import expand_shorthand
from finrag.tools.routing.mentions import ACCEPT, Candidate
from finrag.tools.routing.size import PROMINENT_RANK, size_rank
from finrag.tools.routing.text import SUFFIX_WORDS
from finrag.tools.routing.words import QUESTION_WORDS, is_finance_abbreviation, zipf
from finrag.tools.vocabulary.line_items import item_in_question
from finrag.tools.vocabulary.metrics import metric_in_question

__all__ = ["AUXILIARY_OPENS", "asks_business", "GENERIC_SUBJECT", "after_opening_item", "LINE_ITEM", "LINE_ITEM_NEXT", "PROMINENT_RANK", "SUBJECT_MARK", "asks_its_line_item",
           "auxiliary_subject", "business_subject", "compared_lower_names", "legal_form_after", "lower_ticker_list", "lower_tickers",
           "owner_of_line_item", "prominent"]

METRIC = re.compile(r"(?i)\b(?:(?:total\s+|net\s+|operating\s+|gross\s+)?(?:revenues?|sales|income|profit|earnings|"
                    r"margins?|assets|liabilities|debt|equity|expenses?|loss(?:es)?)|cash\s+flows?|capex|"
                    r"capital\s+expenditures?|opex|eps|ebitda|dividends?|r\s*&\s*d|inventor(?:y|ies)|segments?|guidance|"
                    r"backlog|buybacks?|repurchases?|headcount|employees|comps|comparable\s+sales|volumes?|ratio|"
                    r"bookings|deliveries|subscribers|users|growth|store\s+count|cash)\b")
"""A line item or an operating metric of a company's business ('cash' by itself: the balance sheet's first line)."""
PERIOD = re.compile(r"(?i)(?:\b(?:q[1-4]|[1-4]q|h[12]|fy|cy|ytd|ttm|ltm|quarter|year)\w*|\b(?:19|20)\d{2}\b|['’]\d{2}\b)")
"""A fiscal period: a quarter, a half, a fiscal or calendar year, a year."""
SUBJECT_MARK = "the subject of a terse question"
"""Marks a reading made by `business_subject`'s rule, so the linker checks the company's size."""


LINE_ITEM = re.compile(r"(?i)\b(?:(?:total\s+|net\s+|operating\s+|gross\s+)?(?:revenues?|sales|income|profit|"
                        r"earnings|margin|assets|liabilities|debt|equity|expenses?|loss(?:es)?)|cash\s+flows?|capex|"
                        r"capital\s+expenditures?|free\s+cash\s+flow|eps|ebitda|dividends?|r\s*&\s*d|"
                        r"research\s+and\s+development|inventor(?:y|ies)|segments?|guidance|backlog|buybacks?|"
                        r"share\s+repurchases?|headcount|employees)\b")
"""Words of a question asking for a company's line item or metric: evidence that a lone ticker-shaped word
next to them names a company."""

LINE_ITEM_NEXT = re.compile(r"(?i)(?:['’]s)?\s+(?:(?!(?:the|a|an|of|for|in|on|at|to|and|or|its|their|all)\b)"
                             r"[\w\-]+\s+)?" + LINE_ITEM.pattern.replace("(?i)", ""))
"""A line item right after a word, or after one more word of its own ("GM EV capex", "NOW subscription revenue")."""
GENERIC_SUBJECT = re.compile(r"(?i)\b(?:companies|corporates|corporations|firms|peers|sectors?|industry|industries|banks|retailers|reits|"
                              r"insurers|hyperscalers|issuers|lenders|utilities|automakers|airlines|s&p\s*500|"
                              r"(?:mega|large|mid|small|micro)[\s\-]?caps)\b")
"""Words of a question about many companies: a lone abbreviation there is not one company's ticker."""
_ITEM_SUBJECT_BEFORE = re.compile(r"(?i)\b(?:for|of|at)\s+$")
_PHRASE_END_AFTER = re.compile(r"(?i)(?:['’]s\b|\s+(?:in|during)\b|\s*[,?.]|\s*$)")


def asks_its_line_item(before: str, after: str) -> bool:
    """Whether a word is the subject of a line item: right before it ("CRM total revenue", "T's net income") or
    after "for"/"of" at the end of a phrase ("total revenue for V in fiscal 2024"); not "Which of ALL the
    segments"."""
    if LINE_ITEM_NEXT.match(after):
        return True
    return bool(_ITEM_SUBJECT_BEFORE.search(before) and _PHRASE_END_AFTER.match(after))


def prominent(tickers: Iterable[str]) -> bool:
    """Whether a company (by its tickers) is among the `PROMINENT_RANK` largest SEC registrants (`size.py`)."""
    rank = size_rank(tickers)
    return rank is not None and rank < PROMINENT_RANK


_GLUE = frozenset({"vs", "versus", "and", "or"})
"""Words that join the companies of a terse comparison ("ford vs tesla deliveries"), not words of a sentence."""
_LINE_ITEM_WORDS = frozenset({"total", "net"})
"""Words of a line item ("net adds", "total revenue"), not words that make the rest an English sentence."""
_WORD = re.compile(r"[A-Za-z][\w\-]*")
_LEGAL_AFTER = re.compile(rf"(?i)^\s*,?\s*(?:{SUFFIX_WORDS})\b\.?")
_POSSESSIVE = re.compile(r"^['’]s?(?=\s|$)")
_ARTICLE_BEFORE = re.compile(r"(?i)\b(?:the|a|an|this|that|my|our|your|its|their)\s+$")
_SUBJECT_END = re.compile(r"(?i)\b(?:for|of|at)\s+$")
_PHRASE_END = re.compile(r"(?i)^\s*(?:[,?.!]|$|in\b|during\b|(?:fy|cy|q[1-4]|[1-4]q|h[12])?\s*['’]?\d{2,4}\b)")
"""The end of the phrase "<line item> for|of|at <name>": punctuation, the end, 'in'/'during', or the period asked
("capex guide for meta 2025", "margins at intel FY24")."""
_ITEM_OF = re.compile(r"(?i)(?<=[a-z])\s+of\s+(?=[a-z])|(?<=\breturn)\s+on\s+(?=[a-z])")
_PERIOD_PREPOSITION = re.compile(r"(?i)\b(?:at|as\s+of|in|for|on|during)\s+(?:the\s+)?(?=\d|fy|q[1-4]|[1-4]q|h[12]|"
                                 r"fiscal|year|quarter)")
AUXILIARY_OPENS = re.compile(r"(?i)(?:^\s*|[,;:?!.]\s*|\b(?:how|why|when|where|what|which|who)\b[^,;:?!.]*?\s)"
                             r"(?:did|does|do|is|was|are|were|has|have|had|will|can|could|should)\s+$")
"""An auxiliary that opens the question or its clause, right before the place of its subject ("did |", "how much
cash did |", "what is |"): the one test of that place, read with `.search(text[:start])` by every rule about a word
standing there (a lower-case name: `auxiliary_subject`, `business_subject`; a ticker in capitals: `ticker_score`)."""
_VERB_AFTER = re.compile(r"^\s+[a-z]{3,}\b")
_IMPERATIVE_OPENS = re.compile(r"(?i)^\s*(?:compare|show(?:\s+me)?|give\s+me|list|get|pull|chart|plot)\s+$")
"""A request's imperative opening the question ("compare apple and microsoft capex"): no part of its subject, which
opens the rest as it would open a terse question."""
_COMMA_BEFORE = re.compile(r",\s*$")
_CLAUSE_ALONE_AFTER = re.compile(r"^\s*(?:[,;?!]|\.?\s*$)")
_CLAUSE_END = re.compile(r"[,;?!:]|\.(?:\s|$)")
_COMPARISON_GLUE = re.compile(r"(?i)\b(?:compared\s+(?:to|with)|relative\s+to|against)\b")


def _abbreviation(word: str) -> bool:
    """A finance abbreviation written in capitals ('ARPU', 'GMV'): a metric asked, as a line item is."""
    return word.isupper() and len(word) >= 2 and is_finance_abbreviation(word)


def legal_form_after(text: str, end: int) -> bool:
    """Whether a legal-form word follows the word that ends at `end` ("gap inc", "Visa, Inc.")."""
    return bool(_LEGAL_AFTER.match(text[end:end + 16]))


_OPENING_ITEM = re.compile(r"(?i)^\s*(?:(?:total|net|operating|gross|free|quarterly|annual)\s+)?(?:[a-z&]+\s+){0,2}$")


def after_opening_item(text: str, start: int) -> str:
    """Why a lower-case word is the company an opening line item is asked of ('' when it is not): everything before
    it is one line item, in lower case, a few words long ("revenue adobe ...", "net income tesla ...", "free cash
    flow nike ..."): a terse question names its measure, then its company, as "apple cost of sales" names them the
    other way round."""
    head = text[:start]
    if head != head.lower() or not _OPENING_ITEM.match(head):
        return ""
    item = expand_shorthand(head.strip())
    return "it follows the line item that opens a terse question" if LINE_ITEM.fullmatch(item) or (
        METRIC.fullmatch(item)) else ""


_AFTER_SUBJECT = re.compile(r"^(?:\s+[a-z][\w\-]*|\s+\d|\s+[A-Z][\w\-]*|\s*(?:[,?.!]|$))")
"""What may follow the bare subject of an auxiliary: a word (its verb: "did boeing pay"), a model number or a
product ("was boeing 737 MAX production halted", "is apple Vision Pro ..."), or the end of its clause: whatever
follows, the name stands where the auxiliary's subject stands."""


def asks_business(text: str) -> bool:
    """Does the question ask of a company's business: a line item or metric, or a fiscal period, anywhere in it?"""
    return bool(METRIC.search(expand_shorthand(text)) or PERIOD.search(text))


def auxiliary_subject(text: str, start: int, end: int) -> str:
    """Why the lower-case word at text[start:end] is the subject of a question's auxiliary ('' when it is not): right
    after an auxiliary that opens the question or its clause ("did boeing pay ...", "how much did verizon spend
    ...", "how capital intensive is adobe?"), with no article or determiner between: a common noun there takes one
    ("did the company pay"), a bare singular word in that place is a name."""
    if not AUXILIARY_OPENS.search(text[:start]) or not _AFTER_SUBJECT.match(text[end:]):
        return ""
    return "the bare subject of the question's auxiliary"


_HEAD_WORDS = 4
"""How many words after a name make the head of the rest of the question: a line item is a few words long."""
_HEAD_TOKEN = re.compile(r"\s*(?:([A-Za-z][\w\-'’&]*(?:/[A-Za-z][\w\-]*)*|\d[\d,.]*[a-z%]?)|(\S))")
_HEAD_GLUE = frozenset({"&", "/"})
EVENT = re.compile(r"(?i)\b(?:acquisitions?|merger|deal|takeover|buyout|spin-?off|divestitures?|ipo|lawsuits?|"
                   r"litigation|settlement|layoffs?|recalls?)\b")
"""A corporate event of a company's business ("<name> tracfone deal", "<name> layoffs 2023"): asked of the company
as a line item is."""


def _head_of_rest(rest: str) -> str:
    """Why the name before `rest` opens a business question by its head ('' when it does not): the few words right
    after it, up to the first word of a sentence (a preposition, a verb, a question word) or a punctuation mark,
    name a line item, a metric, a period, a finance abbreviation or a corporate event (the linker's own words, or
    a line item or catalog metric finrag's vocabulary reads: "accounts receivable turnover") ("<name> net cash position at
    end of FY2024, defined as ...", "<name> worldwide headcount as of ..."). What decides is the head, not the whole
    clause: a question goes on after its head in whatever words it likes. The head's first word must be in lower
    case, a period, a number or a finance abbreviation: a word in capitals there is another company's name or
    ticker ("<word> XYZ revenue"), the name before it its adjective."""
    words: list[str] = []
    pos = 0
    while len(words) < _HEAD_WORDS:
        m = _HEAD_TOKEN.match(rest, pos)
        if not m:
            break
        pos = m.end()
        if m.group(2) is not None:
            if m.group(2) in _HEAD_GLUE:
                continue
            break
        w = m.group(1)
        if w.lower() in QUESTION_WORDS - _LINE_ITEM_WORDS:
            break
        words.append(w)
    if not words:
        return ""
    first = words[0]
    if first != first.lower() and not (_abbreviation(first) or PERIOD.fullmatch(first)):
        return ""
    head = " ".join(words)
    if METRIC.search(expand_shorthand(head)) or PERIOD.search(head) or EVENT.search(head) or any(
            _abbreviation(w) for w in words) or item_in_question(head) or metric_in_question(head):
        return "the head of the rest names a line item, a metric, a period or an event"
    return ""


def business_subject(text: str, start: int, end: int, opening: bool = True) -> str:
    """Why the lower-case word at text[start:end] is the subject of a business question ('' when it is not);
    `opening=False` leaves out the word that opens a terse question (a head word there, "analog", "royalty", is as
    often the adjective it is)."""
    after = text[end:]
    if legal_form_after(text, end):
        return "a legal-form word after it"
    if _POSSESSIVE.match(after) and not _ARTICLE_BEFORE.search(text[:start]) and METRIC.search(expand_shorthand(after)):
        return "a possessive after it, before a line item"
    rest = expand_shorthand(after)
    if opening and (not text[:start].strip() or _IMPERATIVE_OPENS.match(text[:start])):
        # the question's first clause ("nike Dec qtr gross margin, how many bps down?"), a comparison's glue
        # ("netflix compared to disney ...") taken as the glue it is
        clause = _COMPARISON_GLUE.sub(" vs ", _CLAUSE_END.split(rest, 1)[0])
        # a preposition that only dates the line item is the period's ("net debt at 12/31/2024", "capex in FY24")
        clause = _PERIOD_PREPOSITION.sub(" ", clause)
        # "of" between two words of a line item is the item's own ("family of apps", "cost of revenue"), as "on"
        # is a return's ("return on assets")
        words = _WORD.findall(_ITEM_OF.sub(" ", clause))
        if words and not any(w.lower() in QUESTION_WORDS - _GLUE - _LINE_ITEM_WORDS for w in words) and (
                METRIC.search(clause) or PERIOD.search(clause) or any(_abbreviation(w) for w in words)):
            return "it opens a terse question about a line item or a period"
        return _head_of_rest(rest)
    if AUXILIARY_OPENS.search(text[:start]) and _VERB_AFTER.match(after) and (
            asks_business(text)):
        # "how much cash did nike return", "does visa expect": a singular common noun as a sentence's subject takes
        # an article ("did the apple ..."); bare, it is a name
        return "the bare subject of the question's verb"
    if _SUBJECT_END.search(text[:start]) and _PHRASE_END.match(after) and (
            METRIC.search(expand_shorthand(text[:start])) or any(_abbreviation(w) for w in _WORD.findall(text[:start]))):
        # a line item or a finance abbreviation in capitals asked "for"/"at" the name ("CF conversion at nike 2023")
        return "the subject of the line item the question asks for"
    if _COMMA_BEFORE.search(text[:start]) and _CLAUSE_ALONE_AFTER.match(after) \
            and METRIC.search(expand_shorthand(text[:start])):
        # "iphone rev vs june quarter, apple, HY basis too": a name that is a clause by itself after a line item
        return "a clause of its own after the line item the question asks for"
    return ""


_LOWER_TOKEN = re.compile(r"(?<![\w$.\-])([a-z]{1,5})(?![\w\-])")
_LIST_GAP = re.compile(r"^(?:\s+|\s*[,/&]\s*|\s+(?:and|or|vs\.?|versus)\s+)$")


def lower_ticker_list(text: str, is_ticker, rare) -> list[tuple[str, int, int]]:
    """Tickers written in lower case as a list ("jpm bac c wfc NII"): a run of three or more lower-case words, side by
    side or joined by commas, each a known ticker (`is_ticker`), at least two of them no English word (`rare`). Lower-case
    words are no tickers by themselves; in such a run, each is one. Returns (TICKER, start, end) for each."""
    out: list[tuple[str, int, int]] = []
    run: list[tuple[str, int, int]] = []

    def close() -> None:
        if len(run) >= 3 and sum(1 for w, _, _ in run if rare(w)) >= 2:
            out.extend((w.upper(), s, e) for w, s, e in run)
        run.clear()

    for m in _LOWER_TOKEN.finditer(text):
        w = m.group(1)
        if w in _GLUE:
            continue  # 'msft vs googl': the glue of a list or comparison, not a ticker in it
        if not is_ticker(w.upper()):
            close()
            continue
        if run and not _LIST_GAP.match(text[run[-1][2]:m.start()]):
            close()
        run.append((w, m.start(), m.end()))
    close()
    return out


_COMPARED_GAP = re.compile(r"^\s*(?:vs\.?|versus|and|&|/|,)\s*$", re.I)
_LIST_GLUE = re.compile(r"^\s*(?:and|&|,|/)\s*$", re.I)
_LISTED_LOWER = 4.5
_RARE_LOWER = 2.5
"""A lower-case word rarer than this in English (Zipf) is no word people write ('msft', 'nflx', 'lly')."""


def near_common_word(word: str, common: float = 4.0) -> bool:
    """Whether a lower-case word is one edit (a letter dropped, added, changed or two swapped) from an English word
    at least this common (Zipf): a typo of it as likely as a ticker ("unty" of "unity")."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1:] for a, b in splits if b} | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1} \
        | {a + c + b[1:] for a, b in splits if b for c in letters} | {a + c + b for a, b in splits for c in letters}
    return any(zipf(e) >= common for e in edits - {word} if len(e) >= 3)


def lower_tickers(text: str, is_ticker, large, excluded, opening=None,
                  named: Iterable[tuple[int, int]] = ()) -> list[tuple[str, int, int, str]]:
    """Tickers written alone in lower case ("msft azure growth", "lly q3 eps beat?", "inventory ... at amd"): a
    lower-case word that is a known ticker (`is_ticker`) of one of the largest registrants (`large`), no finance
    abbreviation or calendar word (`excluded`), and either no English word at all (Zipf below `_RARE_LOWER`) or a
    rare one (below 4) that is the subject of a business question (`business_subject`). Returns (TICKER, start, end,
    why) for each. A registrant of any size is read so when its ticker opens the question (`opening(start)`: "aple
    RevPAR 2024", "gsbd non-accruals") and is no English word at all: analysts open terse queries with the
    ticker; unless it is one letter from a common word, which it may be a typo of ("unty", "aple"). A rare word
    compared or listed with a lower-case ticker ("ko vs pep"), or with a company the question names in capitals
    (`named`: the spans of its names and of its tickers that are no word, "UNP vs csx"), is one too."""
    out, rare = [], []
    for m in _LOWER_TOKEN.finditer(text):
        w = m.group(1)
        if len(w) < 2 or excluded(w) or not is_ticker(w.upper()):
            continue
        z = zipf(w)
        if not large(w.upper()):
            if opening is not None and z < _RARE_LOWER and opening(m.start()) and not near_common_word(w):
                out.append((w.upper(), m.start(), m.end(), f"'{w}' in lower case is no English word and opens the "
                                                          "question"))
            continue
        if z < _RARE_LOWER:
            out.append((w.upper(), m.start(), m.end(), f"'{w}' in lower case is no English word"))
        elif z < 4.0 and ((why := business_subject(text, m.start(), m.end()))
                          or (why := after_opening_item(text, m.start()))):  # "free cash flow ibm 2023"
            out.append((w.upper(), m.start(), m.end(), f"'{w}' in lower case, a rare word: {why}"))
        elif z < 4.0:
            rare.append((w.upper(), m.start(), m.end(), f"'{w}' in lower case, a rare word"))
    anchors = [(s, e) for s, e in named]
    grown = True
    while grown and (out or anchors):  # "ko vs pep": a rare word compared or listed with a lower-case ticker is one too
        grown = False
        for r in list(rare):
            if any(_COMPARED_GAP.match(text[min(r[2], e):max(r[1], s)]) for s, e in [*((o[1], o[2]) for o in out),
                                                                                     *anchors]):
                out.append((*r[:3], r[3] + ", compared or listed with a lower-case ticker"))
                rare.remove(r)
                grown = True
    return sorted(out, key=lambda r: r[1])


def _joined(gap: str, glue: re.Pattern[str], listed: bool) -> bool:
    """Whether `gap` compares two companies (`glue`) or, when `listed`, lists them ("and", "&", ",")."""
    return bool(glue.match(gap) or (listed and _LIST_GLUE.match(gap)))


_COMPARING = re.compile(r"(?i)\bcompar(?:e|ed|ing|ison)\b")
"""A question that says it compares ("compare ...", "... compared"): the companies it lists are the ones compared."""


def compared_lower_names(text: str, names: list[Candidate], found: list[Candidate], glue: re.Pattern[str]) -> None:
    """'uber vs lyft': a company name in lower case compared with a company the question names is a company too
    (a word compared with a company is one); so is one listed with it ("amazon and walmart") when the word is
    rarer than `_LISTED_LOWER` in English ('walmart', not 'orange' in "apple and orange juice"), or, whatever its
    frequency, when the question says it compares and the name is one company's ("Toyota and ford EV losses
    compared")."""
    comparing = bool(_COMPARING.search(text))
    for c in names:
        if c.accepted or not c.key or c.kind not in ("name", "head") or "in lower case" not in c.reason \
                or c.alternative_to or len(c.text) < 4:
            continue
        rare = zipf(c.text) < _LISTED_LOWER or (comparing and "shared by" not in c.reason)  # one company's name
        if any(o.accepted and o.key and o.key != c.key and (
                (o.end <= c.start and _joined(text[o.end:c.start], glue, rare))
                or (c.end <= o.start and _joined(text[c.end:o.start], glue, rare))) for o in found):
            c.confidence = max(c.confidence, ACCEPT + 0.05)
            c.reason += ", compared with a company the question names"



def owner_of_line_item(text: str, unknown: list[Candidate], known: list[Candidate], line_item: re.Pattern[str]) -> None:
    """"What is Airbus's free cash flow, Boeing's main competitor?": the line item asked belongs to the company whose
    possessive it follows. When that company is one the index does not hold, and no company the index holds has a
    line item of its own in the question (no comparison either: the caller's), the known companies are context, set
    aside: the question is answered as about a company the index does not hold, never with the context's figures."""
    owners = [c for c in unknown if not c.key and c.accepted and _POSSESSIVE.match(text[c.end:c.end + 3])
              and line_item.match(text[c.end:c.end + 40])]
    context = [k for k in known if k.accepted and k.key]
    if not owners or not context or any(line_item.match(text[k.end:k.end + 40]) for k in context):
        return
    for k in context:
        k.set_aside(owners[0].name, f"the line item asked is {owners[0].text}'s; '{k.text}' is context")
    for c in owners:
        c.confidence = max(c.confidence, 0.9)
        c.reason += ", the owner of the line item asked"
