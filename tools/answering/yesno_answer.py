"""Yes/no questions answered offline (issue 50): "Yes" or "No", then the sentence that decides it, cited.

The deciding sentence is the context's sentence that speaks of most of the question's topic words
(`prose_units.topic_words`: what it asks about, without the company, the years and the frame) and of a name the
question writes, if it writes one ("stores in Mexico", "the 737 MAX": a sentence without it decides nothing of it),
the asked year preferred (`prose_units.period_fit`), the context's rank breaking ties; it speaks of more than half of
the topic and of two of its words, and it is a sentence (a table's row or a list of exhibits decides nothing). Its
clause that holds the most of the topic (a sentence joins clauses with ";", ", and", ", but", ", except") decides:
"No" when that clause negates ("not", "no", "none", "never", "n't") or reverses what it states ("terminated",
"discontinued", "ceased", "abandoned", "withdrawn", "cancelled", "suspended") a word the question does not use
itself; else "Yes". A figure the sentence states is part of the quote. Where no sentence decides it, the answer says
so ("Undecided: ...", never read as a "No") and shows the passages that bear on it (`evidence.evidence_answer`), else
the closest passage, marked as not an answer.

A verb of the topic also matches its irregular past forms ("pay" / "paid", "buy" / "bought": `_IRREGULAR`, the
English irregular verbs a filing writes in the past tense). A sentence that states a fact decides before one that
states an intention or expectation ("we have not declared or paid any cash dividends" before "we do not anticipate
paying any cash dividends", "we declared and paid four quarterly cash dividends" before "we intend to continue to
pay"): its deciding clause anticipates, intends, expects, plans or speaks of the future (`_INTENTION`) before the
first topic word it holds, unless the question itself asks about the future ("Will ...", "going to keep paying").
Among facts, one that states the act the question asks (its verb, `asked_verb`) done or not done, the verb in the
past or denied (`states_act`: "the
Company repurchased $95.0 billion", "Verizon did not repurchase any shares"), decides before one that names the act
only as a noun or a possibility ("authorized ... under a share repurchase program", "shares may be repurchased").
"""
from __future__ import annotations

import re

from finrag.state.question import QuestionFacts
from finrag.tools.answering.evidence import evidence_answer
from finrag.tools.answering.extractive import context_label, covered_units
from finrag.tools.answering.prose_units import (
    best_passage,
    named_words,
    period_fit,
    quote,
    repeats,
    topic_words,
)
from finrag.tools.retrieval.vocabulary import KeywordCoverage
from finrag.tools.vocabulary.synonyms import filing_words, same_as

__all__ = ["IRREGULAR_FORMS", "asked_verb", "decides_no", "states_act", "states_intention", "yesno_answer"]

_CLAUSES = re.compile(r";|,\s+(?:and|but|while|whereas|although|though|except)\b|\bexcept\b|\bhowever\b")
_NEGATION = re.compile(r"(?i)\b(?:not|no|none|never|neither|nor|cannot|without)\b|n['’]t\b|\bno longer\b")
_REVERSAL = re.compile(r"(?i)\b(?:terminat\w*|discontinu\w*|ceas(?:e|ed|es|ing)|abandon\w*|withdr[ae]wn?|withdrawal|"
                       r"cancel+(?:ed|ation|ing)?|rescind\w*|suspend\w*)\b")
_INTENTION = re.compile(r"(?i)\b(?:anticipat\w*|intend\w*|intention|expect\w*|plan(?:s|ned)? to|foreseeable|future|"
                        r"may|might|will|would|could|believe\w*|outlook)\b")
_ASKS_FUTURE = re.compile(r"(?i)\b(?:will|going to|plan\w*|intend\w*|expect\w*|future|anticipat\w*|keep|continue\w*)\b")
# the English irregular verbs whose past form a filing writes for a question's present ("pay" -> "paid")
_IRREGULAR = {"pay": ("paid",), "buy": ("bought",), "sell": ("sold",), "make": ("made",), "hold": ("held",),
              "spend": ("spent",), "build": ("built",), "lead": ("led",), "win": ("won",), "lose": ("lost",),
              "grow": ("grew", "grown"), "begin": ("began", "begun"), "take": ("took", "taken"), "give": ("gave", "given"),
              "keep": ("kept",), "meet": ("met",), "raise": ("raised",), "bring": ("brought",), "seek": ("sought",),
              "sink": ("sank", "sunk"), "rise": ("rose", "risen"), "fall": ("fell", "fallen"), "leave": ("left",),
              "write": ("wrote", "written"), "run": ("ran",), "go": ("went", "gone"), "do": ("did", "done"),
              "issue": ("issued",), "get": ("got", "gotten"), "find": ("found",), "sit": ("sat",), "bear": ("bore", "borne"),
              "undertake": ("undertook", "undertaken"), "withdraw": ("withdrew", "withdrawn"), "forgo": ("forwent", "forgone")}
IRREGULAR_FORMS = frozenset({w for verb, forms in _IRREGULAR.items() for w in (verb, *forms)})
"""The irregular verbs and their past forms ("buy", "bought"): a verb of a question, never a thing it names."""
_DECIDES = 0.5  # a deciding sentence speaks of more than this share of the topic words (most of them)
_WORDS = 2  # and at least this many of them (one word of two decides nothing: "capital-intensive business")


def decides_no(clause: str, question: str) -> bool:
    """Does `clause` negate or reverse what it states (a reversal the question does not itself ask about)?"""
    if _NEGATION.search(clause):
        return True
    return any(not re.search(rf"(?i)\b{re.escape(m.group(0)[:6])}", question) for m in _REVERSAL.finditer(clause))


def _is_prose(unit: str) -> bool:
    """A sentence, not a table's row or a run of cells (a list of exhibits, a table of figures): no cell bars, at most
    400 characters, and under a fifth of its words figures (a year is no figure: "no repurchases in 2029, 2030 or
    2031" is a sentence)."""
    words = unit.split()
    figures = sum(1 for w in words if re.fullmatch(r"[$(]*[\d.,%)]+", w) and not re.fullmatch(r"(?:19|20)\d\d[.,]?", w))
    return "|" not in unit and len(unit) <= 400 and figures <= len(words) / 5


class _VerbCoverage:
    """The share of the topic words a text speaks of, a verb also by its irregular past forms (`_IRREGULAR`), a word
    also by a filing's word for the same thing (`vocabulary.synonyms.same_as`: "workforce" by "employees")."""

    def __init__(self, topic: list[str]):
        self.words = [KeywordCoverage([w, *_IRREGULAR.get(w, ()), *same_as(w)]) for w in topic]

    def __call__(self, text: str) -> float:
        return sum(1 for w in self.words if w(text) > 0) / len(self.words) if self.words else 0.0


def states_intention(clause: str, question: str, topic: list[str]) -> bool:
    """Does `clause` state an intention or expectation of the topic rather than a fact: a word of intention before the
    first of the topic's words it speaks of ("we intend to continue to pay a dividend"; not "scrutiny of mergers and
    acquisitions ..., which could continue to limit ..."); a question about the future excepted."""
    if _ASKS_FUTURE.search(question):
        return False
    intent = _INTENTION.search(clause)
    if intent is None:
        return False
    found = [m.start() for w in topic for form in (w, *_IRREGULAR.get(w, ()))
             for m in [re.search(rf"(?i)\b{re.escape(form[:5])}", clause)] if m]
    return not found or intent.start() < min(found)


def asked_verb(question: str, topic: list[str]) -> list[str]:
    """The verb whose act the question asks, a topic word right after its auxiliary and subject ("Did Apple
    repurchase shares" -> ['repurchase'], "Does Meta pay a dividend" -> ['pay']); [] for another ("did AMD have
    plans to pay": its verb is "have", and "pay" is no act it asks was done)."""
    m = re.match(r"\s*(?:[^,?]{3,60},\s*)?(?:[Dd]id|[Dd]oes|[Dd]o|[Hh]as|[Hh]ave|[Hh]ad)\s+(?:[A-Z][\w&.'’-]*\s+){1,4}"
                 r"([a-z]+)\b",
                 question)
    return [m.group(1).lower()] if m and m.group(1).lower() in topic else []


_MODAL_BE = r"(?<!\bmay be )(?<!\bmight be )(?<!\bcan be )(?<!\bcould be )(?<!\bwill be )(?<!\bwould be )(?<!\bshould be )(?<!\bto be )"


def states_act(clause: str, topic: list[str]) -> bool:
    """Does `clause` state an act of the topic done or not done: a topic word as a past verb ("repurchased",
    "paid"; not after a modal, "may be repurchased"), or denied ("did not repurchase", "never paid", "no
    repurchases"); not the act named only as a noun ("a share repurchase program", "the authorization")?"""
    for w in topic:
        if not re.fullmatch(r"[a-z]{3,}", w):
            continue
        past = [p for p in (*_IRREGULAR.get(w, ()), w + "d" if w.endswith("e") else w + "ed") if p != w]
        if any(re.search(rf"(?i){_MODAL_BE}\b{re.escape(p)}\b", clause) for p in past):
            return True
        if re.search(rf"(?i)\b(?:(?:did|does|do|has|have|had)\s+(?:not|never)|didn['’]t|never|no)\s+{re.escape(w[:5])}",
                     clause):
            return True
    return False


def _deciding_clause(unit: str, coverage: "_VerbCoverage") -> str:
    """The clause of `unit` that holds the most of the topic (the first of equals)."""
    clauses = [c for c in _CLAUSES.split(unit) if c.strip()] or [unit]
    return max(clauses, key=coverage)


def yesno_answer(question: str, keywords: list[str], contexts: list[dict], facts: QuestionFacts,
                 company: frozenset[str] = frozenset()) -> str:
    """'Yes: <sentence> [doc, p. N]' or 'No: ...'; that nothing decides it, with the closest passage; '' without
    contexts. `company`: the words of the routed companies' names, no topic (a filing calls itself "the Company":
    "Did Apple repurchase shares" is decided by "the Company repurchased 499 million shares")."""
    if not contexts:
        return ""
    question = filing_words(question)  # the act asked in the filing's words ("buy back": "repurchase")
    topic = topic_words(question, contexts, also_drop=company) or keywords
    named = named_words(question, topic)
    coverage = _VerbCoverage(topic)
    least = min(_WORDS, len(topic)) / len(topic) - 1e-9 if topic else 0.0  # two of its words, at least
    scored = []
    for _cov, s, rank, unit, ctx in covered_units(question, topic, contexts):
        cov = coverage(unit)
        s += cov - _cov
        names = not named or any(re.search(rf"(?i)(?<![\w-]){re.escape(n)}", unit) for n in named)
        decides = (cov > _DECIDES and cov >= least) and names and _is_prose(unit)
        scored.append((s + period_fit(unit, facts), rank, unit, ctx, decides))
    scored.sort(key=lambda t: (-t[0], t[1]))
    # a fact decides before an intention or expectation, and an act done ("the Company repurchased $95.0 billion")
    # before the act named only as a noun ("authorized ... under a share repurchase program"); the best-scored first
    verb = asked_verb(question, topic)
    deciding = sorted((t for t in scored if t[4]),
                      key=lambda t: (states_intention(_deciding_clause(t[2], coverage), question, topic),
                                     bool(verb) and not states_act(_deciding_clause(t[2], coverage), verb)))
    if not deciding:
        shown = evidence_answer(question, keywords, contexts, facts=facts)
        passages = (shown.split(": ", 1)[1] if shown else best_passage([t[:4] for t in scored]) if scored
                    else f"{quote(contexts[0].get('text', ''), 400)} {context_label(contexts[0])}")
        return ("Undecided: no sentence of the retrieved passages says yes or no to this question (a \"No\" would be a "
                "guess). The passages that bear on it (not an answer): " + passages)
    _s, _r, unit, ctx, _d = deciding[0]
    verdict = "No" if decides_no(_deciding_clause(unit, coverage), question) else "Yes"
    answer = f"{verdict}: {quote(unit)} {context_label(ctx)}"
    support = next((u for u in deciding[1:] if not repeats(unit, u[2])), None)
    if support is not None:
        answer += f" Also: {quote(support[2], 300)} {context_label(support[3])}"
    return answer
