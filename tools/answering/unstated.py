"""A question the retrieved passages cannot answer, said first (issue 50).

Where neither the reader nor a form's answerer answers, the offline answer quotes the passages that cover the
question best. When the question asks about a thing it names ("the Optimus robot", "Geek Squad agents", "Azure's
revenue") and no retrieved passage mentions that name at all, no sentence of them can answer it: the answer then
says so in its first sentence, naming what is missing, and shows the passages as the closest ones, not as an answer.

The test is the absence of a name, not a weak match: a name is the one word a paraphrase cannot replace, so a
passage that never writes it does not speak of it. A candidate is a word of the question's topic
(`prose_units.topic_words`: not the asked company's, not a year or a frame word) that the question writes
capitalised or with digits (`prose_units.named_words`) and that is not a word of the routed companies' names. With
the index at hand (`index`) it is a name only where it is one:

* the contexts' filings write it on at most `RARE_PAGES` pages (Tesla's 10-K names "Optimus" on one page, not one of
  those retrieved): a word the filing writes on many pages is its common vocabulary, and the passages may bear on it;
* the corpus writes it in the filings of at least one and at most `NAME_SPREAD` companies (its BM25 hits): a
  capitalised common word ("the Real change in Sales", "the Highest EBITDAR Contribution") is written by most
  companies' filings, and an initialism no filing writes ("net PPNE", "FCF", "DPO") is the question's own
  abbreviation of what the filings write out (a name written as a name, "Optimus", may be written by none).

A common word of the topic (written in lower case: "the monthly churn rate", "the ketchup market share") is the
thing asked too when the routed filing writes it on no page at all (with the index at hand, and no retrieved passage
mentioning it, and no name of it missing already) and the corpus writes it in the filings of one to `NAME_SPREAD`
companies: a filing that never writes "churn" states no churn rate, whatever passage ranked. Not a candidate: a word
the filing writes even once (what was retrieved may paraphrase it), a word with synonyms a filing writes instead
(`vocabulary.synonyms`: "buyback", "employes"), a word no filing writes (a typo: "segmnets") or many companies'
filings write (common vocabulary: "intensive"), an everyday English word (as common as `prose_units.NAME_ZIPF` or
more: "worst", "bought" describe, they name no thing), a word a line item reads ("topline": the filing writes
"revenue"), a verb's or an adverb's form ("improving", "sharply": how it moved, not the thing asked).

An amount is no name ("the $40B buyback program", "$10bn": the filing writes "$40.0 billion"), so it is never a
candidate. Without an index the contexts alone decide. A context mentions a word when a word of its text starts with
it ("robot" in "robots"), case aside, writes out what it abbreviates ("R&D": "research and development"), or writes a
name the word is the initialism of (`initialism_of`: "PwC" for "PricewaterhouseCoopers LLP", "EY" for "Ernst & Young").

A question can also ask a thing written in common words ("Adobe's net promoter score", "the CEO's total
compensation", "the ketchup market share in Brazil"): no word of it is a name, yet the passages may never speak of
it. The second test (`unspoken`) reads the question's subject, its topic words (`prose_units.topic_words`, without
the words that ask a form, `form_evidence.topic_of`: "how much", "when"; nor those that ask a change's causes,
`drivers_answer.ASKING`: "what drove", "the decline"), and asks whether any one sentence or table row of the passages
(`extractive.covered_units`) speaks of at least half of them, or of two (`SPOKEN_WORDS`) where they are more than
four (a long question's scenario and instructions are words of its topic too) (`form_evidence.TopicCover`: a word, its inflections,
its letters written out, the filing's word for it; `form_evidence.MIN_COVER`, the share a count, date or name
question's answering sentence must speak of too). A sentence that answers speaks of what is asked; passages whose
best sentence speaks of less ("net" of "net promoter score", "compensation" of "the CEO's total compensation")
speak of something else, and the answer says so first, naming the asked words, and shows them as the
closest passages, not as an answer. It reads a routed filing's passages only (`unstated_answer`'s `company`, the
routed companies' words, given): a corpus-wide search's passages (CBR) are whatever ranked, and their silence says
nothing of what the asked company's filing states.
"""
from __future__ import annotations

import math
import re
from typing import Optional, Protocol, Sequence

from finrag.tools.answering.drivers_answer import ASKING
from finrag.tools.answering.extractive import covered_units
from finrag.tools.answering.furniture import without_furniture
from finrag.tools.answering.prose_units import NAME_ZIPF, company_of_id, named_words, topic_words
from finrag.tools.answering.yesno_answer import IRREGULAR_FORMS
from finrag.tools.question.measure import measure
from finrag.tools.retrieval.form_evidence import MIN_COVER, SPELLED_OUT, TopicCover, topic_of
from finrag.tools.routing.words import zipf
from finrag.tools.vocabulary.synonyms import same_as

__all__ = ["NAME_SPREAD", "RARE_PAGES", "SPOKEN_WORDS", "initialism_of", "unmentioned", "unspoken", "unstated_answer"]

SPOKEN_WORDS = 2  # a sentence speaking of this many of a long question's topic words speaks of its subject
RARE_PAGES = 2  # a named word the filing writes on more pages than this is its common vocabulary
NAME_SPREAD = 3  # a word the filings of more companies than this write is no name of one thing
_HITS = 100  # the corpus' BM25 hits a word's spread is read from
_VERB_FORM = re.compile(r"(?:ing|ed|ly)$")  # "improving", "declined", "sharply": how it moved, not the thing asked
_COMMON_MIN = 4  # a common word shorter than this is a particle or an abbreviation, never the thing asked


class _Hit(Protocol):
    doc_id: str


class Corpus(Protocol):
    """What the test reads of the index (`IndexReader` is one)."""

    def pages_of(self, doc_id: str) -> list[str]: ...

    def search_fts(self, query: str, k: int = 20, doc_ids: Sequence[str] | None = None,
                   variant: str = "base") -> Sequence[_Hit]: ...


# an amount, however its scale is written: "40b", "$10bn", "2.5m", "15%"
_AMOUNT = re.compile(r"(?i)\$?\d[\d,.]*(?:k|m|mm|mn|b|bn|t|tn|thousand|million|billion|trillion|%)")
# a name as a text writes it: capitalised words, "&" / "and" / "of" between them ("Ernst & Young", "Bank of America")
_NAME_RUN = re.compile(r"[A-Z][A-Za-z'’-]*(?:\s+(?:(?:&|and|of|the)\s+)?[A-Z][A-Za-z'’-]*)*")
_MAX_INITIALS = 5  # an initialism is short: "PwC", "EY", "KPMG", "IBM"


def _spells(abbr: str, words: list[str]) -> bool:
    """Is `abbr` (lower case) the initialism of `words`: each word gives its first letter and then, in order, none or
    more of its other letters ("pwc": "Pricewaterhouse" gives 'p', 'w'; "Coopers" gives 'c')?"""
    if not words:
        return not abbr
    word = words[0].lower()
    if not abbr or abbr[0] != word[0]:
        return False
    rest, inner = abbr[1:], iter(word[1:])
    for k in range(len(rest) + 1):
        if _spells(rest[k:], words[1:]):
            return True
        if k < len(rest) and rest[k] not in inner:  # the word's next letters hold abbr's next one: it gives it too
            return False
    return False


def initialism_of(word: str, text: str) -> str:
    """The name in `text` that `word` is the initialism of ("pwc": "PricewaterhouseCoopers"; "ey": "Ernst & Young"),
    '' when there is none or `word` is no initialism (letters only, at most `_MAX_INITIALS`). The name is longer than
    the initialism by more than a letter or two, so a word is not its own initialism."""
    if not (word.isalpha() and 2 <= len(word) <= _MAX_INITIALS):
        return ""
    abbr = word.lower()
    for run in _NAME_RUN.finditer(text):
        words = [w for w in re.split(r"\s+", run.group(0)) if w[:1].isupper()]
        for i, first in enumerate(words):
            if first[0].lower() != abbr[0]:
                continue
            for j in range(i + 1, min(len(words), i + len(abbr)) + 1):
                if sum(map(len, words[i:j])) > len(abbr) + 2 and _spells(abbr, words[i:j]):
                    return " ".join(words[i:j])
    return ""


def _mentions(word: str, text: str, initials: bool = False) -> bool:
    """Does `text` write `word`, the words it abbreviates ("R&D": "research and development") or, where `initials`
    (the question writes the word as an initialism), the name it is the initialism of ("PwC": "PricewaterhouseCoopers")?"""
    probe = re.escape(word) + (f"|{re.escape(SPELLED_OUT[word])}" if word in SPELLED_OUT else "")
    return re.search(rf"(?i)(?<![\w-])(?:{probe})", text) is not None or initials and bool(initialism_of(word, text))


def _spread(word: str, index: Corpus) -> Optional[int]:
    """How many companies' filings write `word` among its corpus' BM25 hits (None when the search fails)."""
    try:
        return len({company_of_id(h.doc_id) for h in index.search_fts(word, k=_HITS)})
    except Exception:  # no full-text search: the word's spread is not known
        return None


def _a_name_of_the_corpus(word: str, index: Corpus, initialism: bool) -> bool:
    """Is `word` a name of one thing: written by the filings of few companies (`NAME_SPREAD`), and, when the question
    writes it as an initialism, by at least one? An initialism no filing writes is the question's own abbreviation
    ("PPNE", "FCF", "DPO", "CAGR": the filings write it out), not a thing whose absence says the passages cannot
    answer; a name written as a name that no filing writes ("the Optimus robot" asked of Boeing) is absent."""
    spread = _spread(word, index)
    return spread is None or (1 if initialism else 0) <= spread <= NAME_SPREAD


def unmentioned(question: str, contexts: list[dict], company: frozenset[str] = frozenset(),
                index: Optional[Corpus] = None) -> dict[str, int]:
    """The names of `question` (see the module docstring) that no context mentions, each with the number of pages
    of the contexts' filings that write it (0 without `index`); {} when there is none, or there are no contexts."""
    if not contexts:
        return {}
    named = [w for w in named_words(question, topic_words(question, contexts, also_drop=company))
             if len(w) >= 3 and w not in company and not _AMOUNT.fullmatch(w)]
    text = " ".join(without_furniture(str(c.get("text") or "")) for c in contexts)
    # an initialism is written with two capitals or more ("PwC", "EY"), not as a word ("Dojo")
    initials = {w.lower() for w in re.findall(r"\b[A-Za-z]*[A-Z][a-z]*[A-Z][A-Za-z]*\b", question)}
    missing = {w: 0 for w in named if not _mentions(w, text, w in initials)}
    # a common word of the topic no context writes ("churn", "ketchup"): a candidate only if the filing writes it nowhere
    # (names first: a common word is read only where no name is missing; the form's words, "how much", are no topic)
    common = [w for w in topic_of(topic_words(question, contexts, also_drop=company | ASKING), ())
              if not missing and w not in named and w not in company and w.isalpha() and len(w) >= _COMMON_MIN
              and w not in SPELLED_OUT and w not in ASKING and not _VERB_FORM.search(w) and w not in IRREGULAR_FORMS
              and not same_as(w) and zipf(w) < NAME_ZIPF and measure(w, w) == (None, None)
              and not _mentions(w, text)] if index is not None else []
    if not (missing or common) or index is None:
        return missing
    unwritten = dict.fromkeys(common, 0)
    for doc in dict.fromkeys(str(c.get("doc_id")) for c in contexts if c.get("doc_id")):
        try:
            pages = list(index.pages_of(doc))
        except Exception:  # pages not readable: the contexts decide
            unwritten = {}
            continue
        for w in missing:
            missing[w] += sum(_mentions(w, page, w in initials) for page in pages)
        for w in unwritten:
            unwritten[w] += sum(_mentions(w, page) for page in pages)
    named_out = {w: n for w, n in missing.items() if n <= RARE_PAGES and _a_name_of_the_corpus(w, index, w in initials)}
    # a word of few companies' filings (the corpus writes it: no typo; not everyone's: no common vocabulary)
    return {**named_out, **{w: 0 for w, n in unwritten.items() if n == 0 and _a_name_of_the_corpus(w, index, True)}}


def unspoken(question: str, contexts: list[dict], company: frozenset[str] = frozenset()) -> list[str]:
    """The question's topic words (see the module docstring) when no one sentence or table row of `contexts` speaks
    of at least half of them (`MIN_COVER`), or of `SPOKEN_WORDS` of a longer topic; [] when one does, or there is no
    topic or no context."""
    topic = topic_of(topic_words(question, contexts, also_drop=company | ASKING), ())
    if not topic or not contexts:
        return []
    cover = TopicCover(topic)
    best = max((cover(unit) for _c, _s, _r, unit, _ctx in covered_units(question, topic, contexts)), default=0.0)
    # half of the subject, or two of its words where the question is long (its scenario and instructions are words
    # of its topic too: "If JPM liquidated all of its assets to pay its shareholders, how much could each get?")
    need = min(math.ceil(len(topic) * MIN_COVER - 1e-9), SPOKEN_WORDS) / len(topic)
    return [] if best >= need - 1e-9 else topic


def unstated_answer(question: str, passages: str, contexts: list[dict], company: frozenset[str] = frozenset(),
                    index: Optional[Corpus] = None) -> str:
    """`passages` (an extractive answer's quoted passages) led by the sentence that the retrieved passages do not
    state what the question asks, when a name it asks about is in none of them (`unmentioned`) or no sentence of
    them speaks of half of what it asks (`unspoken`); `passages` unchanged otherwise."""
    missing = unmentioned(question, contexts, company, index)
    docs = ", ".join(dict.fromkeys(str(c.get("doc_id")) for c in contexts if c.get("doc_id")))
    if not missing:
        # of a routed filing's passages only (`company`: the routed companies' words): a corpus-wide search's passages
        # are whatever ranked, and their silence says nothing of what the asked company's filing states
        topic = unspoken(question, contexts, company) if company else []
        if not topic:
            return passages
        shown = re.sub(r"^(?:From the filings|Extractive answer, [^:]+): ", "", passages)
        asked = ", ".join(f"'{w}'" for w in topic)
        return (f"Not stated in the retrieved passages ({docs}): no sentence of them speaks of half of what the "
                f"question asks ({asked}), so they do not answer it. The closest passages (not an "
                f"answer): {shown}")
    said = "; ".join(f"'{w}'" + (f" (the filing writes it on {n} page{'s' if n > 1 else ''}, none retrieved)" if n
                                  else " (not in the filing)" if index is not None else "")
                     for w, n in missing.items())
    shown = re.sub(r"^(?:From the filings|Extractive answer, [^:]+): ", "", passages)
    return (f"Not stated in the retrieved passages: none of them mentions {said} ({docs}), so they do not answer this "
            f"question. The closest passages (not an answer): {shown}")
