"""The sentences of a routed filing that answer a count, date or name question, as context (issue 50).

A count, date or name question is answered by one sentence ("... approximately 152,700 employees worldwide ...",
"... has been audited by PricewaterhouseCoopers LLP ..."), and the ranking of chunks by the question's words often
leaves it out: its words are few, and the sentence writes the asked thing, not the question's words ("how many
people work for" / "employees"). Inside the routed filing every chunk can be read, so `form_evidence` reads them:
a chunk holds evidence when one of its sentences holds an answer of the question's form
(`vocabulary.answer_shapes.answer_piece`) and speaks of the question's topic (`topic_of`: its keywords without the
company's words, the years and the words that ask the form itself: "how", "many", the asked noun; `TopicCover`:
a word or its derivation). The best
`limit` such chunks not in the context yet join it, best first: for a tenure asked ("since what year has X been its
auditor") a sentence that says since when ("since 2002"), then a sentence covering more of the topic, then one
naming an asked year, then the earlier chunk. A question whose topic is only its form ("Meta's headcount at the end
of 2024") takes the sentences that state the form with the asked year, if any.
"""
from __future__ import annotations

import re
from typing import Iterator, Sequence

from finrag.state.index_reader import IndexReader
from finrag.state.question import QuestionFacts
from finrag.state.schema import RetrievedChunk
from finrag.tools.retrieval.vocabulary import SENTENCE_END, STOPWORDS, stem
from finrag.tools.vocabulary.answer_shapes import (
    ANSWER_FORMS,
    CUSTOMER_SHAPE_WORDS,
    answer_piece,
    asks_since,
    since_date,
)
from finrag.tools.vocabulary.dates import MONTH_TOKENS
from finrag.tools.vocabulary.synonyms import same_as

__all__ = ["MIN_COVER", "SPELLED_OUT", "TopicCover", "as_context", "form_evidence", "topic_of", "unread_chunks"]

# the words that ask a count, a date or a name, not what it is of
_FORM_WORDS = frozenset((
    "how", "many", "much", "long", "since", "early", "late", "mid", "number", "count", "size", "headcount", "total", "roughly", "approximately", "about", "when",
    "date", "day", "month", "year", "years", "fiscal", "fy", "who", "whom", "which", "what", "name", "named",
    "end", "ended", "ending", "as", "of", "per", "according", "report", "form", "filing", "10-k", "10-q", "10",
    "k", "q", "latest", "current", "currently", "work", "works", "worked", "working", "employ", "employs",
    "employed", "did", "does", "do", "is", "was", "were", "are", "company", "company's", "firm"))
MIN_COVER = 0.5  # the share of the topic a sentence must speak of


def topic_of(keywords: Sequence[str], nouns: Sequence[str]) -> list[str]:
    """The keywords a sentence answering the question speaks of (see the module docstring); a month names the
    period asked ("headcount dec 2021"), as a year does, not what the sentence speaks of ("may" is a verb)."""
    noun_stems = {stem(w.lower()) for noun in nouns for w in noun.split()}
    shape = CUSTOMER_SHAPE_WORDS if "customer" in nouns else frozenset()  # a customer's rank and share: its shape
    out = []
    for k in keywords:
        low = k.lower().removesuffix("'s").removesuffix("’s")
        if (low in STOPWORDS or low in _FORM_WORDS or low in MONTH_TOKENS - {"may"} or low in shape or any(ch.isdigit() for ch in low) or len(low) < 2
                or stem(low) in noun_stems or low in out):
            continue
        out.append(low)
    return out


# an officer's title and research and development are asked by their letters and written in words; a company's
# headquarters are written as its filing's cover writes them, "principal executive offices"
SPELLED_OUT = {"ceo": "chief executive officer", "cfo": "chief financial officer", "coo": "chief operating officer",
            "cto": "chief technology officer", "r&d": "research and development", "ipo": "initial public offering", "hq": "headquarter",
            "headquartered": "principal executive office", "headquarters": "principal executive office"}


class TopicCover:
    """The share of `topic`'s words a text speaks of: a word counts where a word of the text starts with its first
    five letters (a shorter word whole, or with an inflection: "end", "ends", "ended"): a word and its derivations
    share them ("acquire", "acquired", "acquisition"; "divest", "Divestiture"; "close", "closing"); an officer's
    title asked by its letters counts where it is written in words ("CEO", "Chief Executive Officer"), headquarters
    where the cover's "principal executive offices" are, a word where a filing's word for the same thing is
    (`vocabulary.synonyms.same_as`: "workforce" where "employees" is)."""

    def __init__(self, topic: Sequence[str]):
        self.probes = [re.compile(r"(?<![a-z0-9])(?:" + re.escape(w[:5]) + (r"" if len(w) > 5 else
                                                                             r"(?:s|es|d|ed|ing)?(?![a-z0-9])")
                                  + (f"|{re.escape(SPELLED_OUT[w])}" if w in SPELLED_OUT else "")
                                  + "".join(rf"|\b{re.escape(o)}" for o in same_as(w)) + ")")
                       for w in dict.fromkeys(t.lower() for t in topic)]

    def __call__(self, text: str) -> float:
        if not self.probes:
            return 1.0
        low = " ".join(text.lower().split())  # PDF text writes no-break spaces between words ("around \xa0the")
        return sum(1 for p in self.probes if p.search(low)) / len(self.probes)


def form_evidence(store: IndexReader, doc_ids: Sequence[str], facts: QuestionFacts, keywords: Sequence[str],
                  contexts: Sequence[dict], own: frozenset[str] = frozenset(), limit: int = 2) -> list[dict]:
    """Chunks of `doc_ids` (the routed filings) holding a sentence that answers the question's form on its topic,
    not in `contexts` already, as contexts (best first, at most `limit`); [] for another form or no route.
    `keywords`: the question's, without the company's words; `own`: the words of the asked company's name."""
    if facts.form not in ANSWER_FORMS or not doc_ids or (facts.form == "count" and not facts.form_nouns):
        return []
    nouns = tuple(facts.form_nouns)
    topic = topic_of(keywords, nouns)
    cover = TopicCover(topic)
    years = [str(y) for y in facts.years_written]
    tenure = facts.form == "date" and asks_since(facts.text)  # "since what year ...": a sentence "... since 2002" first
    found: list[tuple[int, float, int, int, RetrievedChunk]] = []
    for doc in doc_ids:
        for place, chunk in unread_chunks(store, doc, contexts):
            best: tuple[int, float, int] | None = None
            lines = [ln for ln in chunk.text.splitlines() if 20 <= len(ln) <= 300]  # a table's row: a name, age, title
            for sentence in [*SENTENCE_END.split(" ".join(chunk.text.split())), *lines]:
                if len(sentence) > 600 or answer_piece(facts.form, sentence, nouns, own) is None:
                    continue
                cov = cover(sentence)
                if cov < MIN_COVER:
                    continue
                key = (int(tenure and since_date(sentence)), cov, int(any(y in sentence for y in years)))
                best = key if best is None or key > best else best
            if best is not None:
                found.append((*best, -place, chunk))
    found.sort(key=lambda t: (-t[0], -t[1], -t[2], -t[3]))
    return [as_context(t[4]) for t in found[:limit]]


def unread_chunks(store: IndexReader, doc_id: str, contexts: Sequence[dict]) -> Iterator[tuple[int, RetrievedChunk]]:
    """The chunks of one routed filing that are not in `contexts` yet, in the filing's order, each with its place in
    the filing (the chunks already in the context are not read)."""
    have = {int(c["chunk_id"]) for c in contexts if c.get("chunk_id") is not None}
    ids = [int(i) for i in store.chunk_ids_of([doc_id])]
    chunks = store.get_chunks([i for i in ids if i not in have])
    for place, cid in enumerate(ids):
        chunk = chunks.get(cid)
        if chunk is not None:
            yield place, chunk


def as_context(chunk: RetrievedChunk) -> dict:
    """A chunk added to the context by its form rather than its retrieval score (score 0)."""
    c = chunk.model_dump()
    return {k: c.get(k) for k in ("chunk_id", "doc_id", "page_start", "page_end", "text")} | {"score": 0.0}
