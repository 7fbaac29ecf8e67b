"""What the prose answerers share (issue 50): a quoted unit cleaned, the asked company's words, the question's topic
words, and the closest passage shown when no sentence answers.

* `quote(unit, limit)`: a unit as quoted: whitespace collapsed, a heading line joined to its sentence removed
  ("EMPLOYEE BASE As of May 31, ..." -> "As of May 31, ..."), cut at `limit` characters.
* `company_words(question, contexts)`: the words of the company a question names and of the filings' own ids (a
  name answering a question is someone else's; a topic word is no company word, nor a title written by its letters,
  "CEO").
* `topic_words(question, contexts)`: what a sentence must speak of to answer the question: its content words,
  without the asked company's, the years and form numbers ("FY21", "YE2017"), and the words every question has ("fiscal", "year"), of
  its first sentence only (a second one, "If gross margin is not a useful metric, say so", instructs); a
  compound of frame words ("year-end", "fiscal-year") is frame too (a sentence says "As of December 31"); a phrase
  read in the filing's words first (`vocabulary.synonyms.filing_words`: "buy back" -> "repurchase");
  `named_words`: those the question writes as names ("Mexico", "737").
* `period_fit(unit, facts)`: a small preference for the unit that names the asked year, and against a quarter's
  unit when the question asks none.
* `repeats(unit, other)`: the same text quoted twice (a sentence and the table row that holds it).
* `closest(scored)`: "The closest passage (not an answer): ..." for a question no sentence answers.
"""
from __future__ import annotations

import itertools
import re

from finrag.state.question import QuestionFacts
from finrag.tools.answering.extractive import context_label
from finrag.tools.retrieval.form_evidence import SPELLED_OUT
from finrag.tools.retrieval.vocabulary import STOPWORDS
from finrag.tools.routing.words import zipf
from finrag.tools.vocabulary.dates import MONTH_TOKENS
from finrag.tools.vocabulary.synonyms import filing_words

__all__ = ["asked_company_docs", "own_contexts", "best_passage", "closest", "company_of_id", "company_words", "form_topic", "named_words", "period_fit", "quote", "repeats", "topic_words"]

NAME_ZIPF = 4.6  # a company's one-word name written in lower case names it when rarer in English than this (Zipf)
_HEADING = re.compile(r"^(?:[A-Z][A-Z&'-]+ ){1,6}(?=[A-Z][a-z])")  # a heading line joined to the sentence after it
# words of a question's frame, not of its topic: periods, filings, and how it asks
_FRAME = frozenset(("fiscal", "year", "years", "fy", "quarter", "quarters", "annual", "report", "form", "filing",
                    "10-k", "10-q", "10k", "10q", "time", "per", "according", "end", "ended", "period", "company",
                    "company's", "tell", "please", "list", "name", "identify", "still", "currently", "latest", "us",
                    "as", "of", "total")) | (MONTH_TOKENS - {"may"})
# a month, as the year, names the period asked ("as of Jan 29 2022"), not what a sentence speaks of ("may" is a verb)


def quote(unit: str, limit: int = 500) -> str:
    """`unit` as an answer quotes it (see the module docstring)."""
    return _HEADING.sub("", " ".join(unit.split()))[:limit]


def company_words(question: str, contexts: list[dict]) -> frozenset[str]:
    """The capitalised words of `question` after its first word (the company it names, and other proper names) and the
    words of the contexts' document ids' first part ('NIKE_2021_10K' -> 'nike'), lower-cased."""
    named = {w.lower() for w in re.findall(r"(?<!^)\b[A-Z][A-Za-z]{2,}", question.strip())}
    return frozenset((named - SPELLED_OUT.keys()) | _id_words(contexts))  # "CEO" is a title, not a name


def company_of_id(doc_id: str) -> str:
    """The company word of a filing's id, lower case ('americanexpress' of 'AMERICANEXPRESS_2022_10K', 'aapl' of
    'aapl-10-k-2024-11-01', 'johnsonjohnson' of 'JOHNSON_JOHNSON_2023Q2_EARNINGS': the parts before the period)."""
    parts = re.split(r"[_.-]", doc_id)
    words = list(itertools.takewhile(lambda p: not re.match(r"\d{2}", p), parts[1:]))
    return "".join([parts[0], *words]).lower()


_INITIALISM = re.compile(r"\b(?:[A-Z]{2,5}|(?=\w*[A-Z]\w*[A-Z])[A-Z][A-Za-z]{1,4})\b")
"""A ticker or initialism the question writes: in capitals ("AMEX", "LMT"), or with two capitals in mixed case
("JnJ", "AmEx"); it names a filing's company when it shortens the id's name (`_shortens`)."""


def _id_words(contexts: list[dict]) -> set[str]:
    return {w for c in contexts for w in re.findall(r"[a-z0-9]{2,}", company_of_id(str(c.get("doc_id") or "")))}


def _asked_company(question: str, contexts: list[dict]) -> set[str]:
    """The words naming the asked company: a possessive's ("Coca-Cola's", "3M's") and the capitalised words that a
    context's document id holds ('Best', 'Buy' of 'BESTBUY_2023_10K'); not other proper names ("Mexico")."""
    ids = _id_words(contexts)
    out = {w.lower() for m in re.finditer(r"\b([A-Z0-9][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})(?:'s|’s|s')", question)
           for w in [m.group(1), *re.split(r"[\s-]+", m.group(1))]}
    out |= {w.lower() for w in re.findall(r"\b[A-Z][A-Za-z]{1,}", question) if any(w.lower() in i for i in ids)}
    out |= {w.lower() for w in _INITIALISM.findall(question) if any(_shortens(w.lower(), i) for i in ids)}
    return out | ids


def asked_company_docs(question: str, contexts: list[dict]) -> set[str]:
    """The contexts' filings of the company the question names: a capitalised word of the question (four letters or
    more, no stopword) opens the filing's id ('AMCOR' of 'AMCOR_2023_10K') or, five or more, is inside it ('Express'),
    or a word in capitals is a ticker or initialism of it ("AMEX" of 'AMERICANEXPRESS_2022_10K'), or a word of any
    case is the whole one-word id ("boeing", "3M") and no common English word (Zipf below `NAME_ZIPF`: "target",
    "apple" are words); empty when the question names none of the contexts' companies."""
    caps = [w for w in (m.lower() for m in re.findall(r"\b[A-Z][A-Za-z&]{3,}", question)) if w not in STOPWORDS]
    initials = [w.lower() for w in _INITIALISM.findall(question)]
    # the whole one-word name however written ("boeing", "3M"), unless a common English word ("target", "apple")
    whole = {w.lower() for w in re.findall(r"[A-Za-z0-9&]{2,}", question)} - STOPWORDS
    out = set()
    for c in contexts:
        doc = str(c.get("doc_id") or "")
        name = company_of_id(doc)
        # a name word opens the id ('Pfizer' of 'PFIZER'), or a longer one is inside it ('Express' of 'AMERICANEXPRESS')
        if len(name) >= 3 and (any(name.startswith(w) or len(w) >= 5 and w in name for w in caps)
                               or any(_shortens(w, name) for w in initials)) or (
                name in whole and (any(ch.isdigit() for ch in name) or zipf(name) < NAME_ZIPF)):
            out.add(doc)
    return out


def own_contexts(question: str, contexts: list[dict]) -> list[dict]:
    """The contexts of the company the question names (`asked_company_docs`) where some are, else all of them: a
    corpus-wide search (CBR and its variants) brings other companies' passages, and a sentence of another company's
    filing answers nothing for the asked one, whatever the question's form (a count, a date, a yes/no, a driver)."""
    own = asked_company_docs(question, contexts)
    return [c for c in contexts if str(c.get("doc_id") or "") in own] if own else contexts


def _shortens(short: str, name: str) -> bool:
    """Is `short` a ticker or initialism of the one-word `name` ("fl" of 'footlocker', "lmt" of 'lockheedmartin'):
    its first letter then its others, in order, in a name at least two letters longer ("amzn" of 'amazon')?"""
    letters = iter(name[1:])
    return name[:1] == short[:1] and len(name) >= len(short) + 2 and all(c in letters for c in short[1:])


def topic_words(question: str, contexts: list[dict], also_drop: frozenset[str] = frozenset()) -> list[str]:
    """The question's content words a sentence answering it speaks of (see the module docstring); `also_drop`: the
    words of the form itself ("why", "drove")."""
    company = _asked_company(question, contexts) - {"gross", "net", "operating"}
    # its first sentence ("If X is not useful, say so" is no topic), in the filing's words ("buy back": "repurchase")
    asked = filing_words(re.split(r"\?\s+(?=\S)", question.strip())[0])
    asked = re.sub(r"(?i)\b(full|part)\s+time\b", r"\1-time", asked)  # "full time" is written "full-time"
    # "in early 2022", "by mid-2021", "late FY2020": the period asked, as its year is
    asked = re.sub(r"(?i)\b(?:early|late|mid)[\s-]+(?=(?:fy|cy)?\s*'?(?:19|20)?\d\d\b)", " ", asked)
    out: list[str] = []
    for tok in re.findall(r"[a-z0-9][a-z0-9&-]*", asked.lower().replace("’", "'")):
        tok = tok.strip("-")
        if (len(tok) < 2 or tok in STOPWORDS or tok in _FRAME or tok in also_drop or tok in company
                or ("-" in tok and all(part in _FRAME for part in tok.split("-")))  # "year-end", "fiscal-year"
                or ("-" in tok and all(part in company or part in also_drop for part in tok.split("-")))  # "coca-cola"
                or re.fullmatch(r"(?:fy|q|ye|cy)?(?:19|20)\d\d|(?:fy|q|ye|cy)\d+|\d{1,2}|\d+-[kq]", tok)):
            continue
        if tok not in out:
            out.append(tok)
    return out


def form_topic(question: str, contexts: list[dict], company: frozenset[str] = frozenset()) -> list[str]:
    """A date question's topic when its content words are all of its frame ("When does Adobe's fiscal year end?"):
    the frame words it writes ("fiscal", "year", "end"; "FY2017" writes "fiscal year"), without the asked company's and the question words."""
    drop = _asked_company(question, contexts) | company | {"when", "what", "which", "date", "day", "does", "did", "do"}
    # "FY2017" names the fiscal year it asks the end of ("adobe FY2017 end date?")
    asked = re.sub(r"\bfy\s*'?\d{2,4}\b", "fiscal year", re.split(r"\?\s+(?=\S)", question.strip())[0].lower())
    return [w for w in dict.fromkeys(re.findall(r"[a-z][a-z-]+", asked)) if w in _FRAME and w not in drop
            and w not in ("of", "as", "per", "us", "company", "company's", "form", "report", "filing")]


def named_words(question: str, topic: list[str]) -> list[str]:
    """The topic words the question writes as names (capitalised, or with digits: "Mexico", "737", "Aerojet")."""
    written = {w.lower() for w in re.findall(r"\b(?:[A-Z][A-Za-z&-]*|\w*\d\w*)", question)}
    return [t for t in topic if t in written]


_QUARTER = re.compile(r"(?i)\b(?:first|second|third|fourth) quarter\b|\bthree months\b|\bQ[1-4]\b")


def period_fit(unit: str, facts: QuestionFacts) -> float:
    """How a unit's periods fit the question's: +0.1 when it names a year the question writes, -0.05 when it names a
    quarter and the question asks none (a quarter's figure is not the year's)."""
    fit = 0.1 if any(str(y) in unit for y in facts.years_written) else 0.0
    return fit - (0.05 if not facts.asks_quarter and _QUARTER.search(unit) else 0.0)


def repeats(unit: str, other: str) -> bool:
    """Does `other` quote the same text as `unit` (one inside the other, whatever heading or line joins either)?"""
    a, b = sorted((" ".join(unit.split()), " ".join(other.split())), key=len)
    probe = a[len(a) // 4: len(a) // 4 + 60] if len(a) > 80 else a
    return probe in b


def best_passage(scored: list[tuple[float, int, str, dict]]) -> str:
    """The best-scored (score, rank, unit, context) unit, quoted and cited."""
    best = sorted(scored, key=lambda t: (-t[0], t[1]))[0]
    return f"{quote(best[2], 400)} {context_label(best[3])}"


def closest(scored: list[tuple[float, int, str, dict]], what: str) -> str:
    """The answer when no sentence answers: says so, then the best-scored passage, marked as not an answer."""
    return (f"No sentence of the retrieved passages states {what} for this question. The closest passage "
            f"(not an answer): {best_passage(scored)}")
