"""What drove a change, answered offline (issue 50): the sentence that names the asked measure's causes, led by them.

A filing explains a change in one sentence shape: the measure and its change, then a cause marker ("primarily due
to", "driven by", "as a result of", "reflecting", "attributable to"), then the causes. A sentence answers a drivers
question when the part before its cause marker speaks of the asked measure (or, for a marker that opens it, "As a
result of <causes>, <the measure changed>", the part after the causes): the question's topic words
(`prose_units.topic_words`) without the words of asking and of change ("why", "drove", "increase", "decline").
Of those, the one whose subject covers the most of the measure leads, ranked by that share, a change in the asked
direction (a rise for "what drove the increase", a fall for "why did it decline"; the other direction counts
against), the asked year (`prose_units.period_fit`), the measure opening the sentence (its subject, not after
"Excluding the impact of ...", by the share of the measure its first 40 characters name: "BCA revenues" for
"Boeing Commercial Airplanes revenue" before "Revenues The following table ..."), causes the sentence names itself
(not only "due to:"), a fact before an outlook ("is expected to continue to benefit from ...": an intention or
expectation before the measure, `yesno_answer.states_intention`), the asked measure before a qualified one the
question does not ask ("Organic Net Sales" for "net sales", `_qualified`), and, where the question names no segment,
the sentence stating the largest amount (`_amount`: the company's own statement of the measure, not a segment's part
of it), a change of the size the question states ("net sales fell ~5%": "decreased 4.9%", `_near`), a subject that
refers back ("the decrease was primarily due to", "The current year benefited from") read as the change the sentence
before states, a whole sentence before a line of it cut mid-sentence (`_ends_cut`: "... foreign currency (1.9 pp) and"), then by its coverage of the
whole question and the context's rank. The answer opens with the causes (the text from the marker on, up to a
bullet; "driven by: • A • B" its bullets; a sentence that ends at its marker, "was primarily due to:", the lines
after it), then quotes the whole sentence, cited; at most one more such sentence follows, then the unit that states
the change itself with its figures (`_the_change`). '' when no sentence names causes of the measure (the evidence
answer then shows the passages that bear on it).
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.extractive import context_label, covered_units
from finrag.tools.answering.prose_units import period_fit, quote, repeats, topic_words
from finrag.tools.answering.yesno_answer import states_intention
from finrag.tools.retrieval.vocabulary import STOPWORDS, KeywordCoverage

__all__ = ["ASKING", "CAUSE", "MeasureCoverage", "drivers_answer"]

# an adverb may stand inside the marker as well as before it: "driven primarily by", "due mainly to"
_ADVERB = r"(?:primarily|mainly|largely|partly|partially|principally|substantially|mostly|in large part)"
CAUSE = re.compile(
    r"(?i)\b(?:(?:primarily|mainly|largely|partly|partially|principally|substantially|mostly)\s+)?"
    rf"(?:driven (?:{_ADVERB} )?by|due (?:{_ADVERB} |in part )?to|as a result of|resulting (?:{_ADVERB} )?from|"
    rf"result(?:ed|s)? (?:{_ADVERB} )?from|attributable (?:{_ADVERB} )?to|attributed (?:{_ADVERB} )?to|"
    rf"caused (?:{_ADVERB} )?by|because of|reflect(?:s|ed|ing)|owing to|"
    r"led by|on account of|associated with higher|associated with lower|benefit+ed from)\b")
# words of asking for causes and of a change, which every sentence of a change holds or none does
ASKING = frozenset(("why", "drove", "drive", "drives", "driven", "driver", "drivers", "caused", "cause", "causes",
                     "reason", "reasons", "explain", "explains", "led", "lead", "factors", "factor", "contributed",
                     "primary", "main", "key", "major", "behind", "increase", "increased", "increases", "decrease",
                     "decreased", "decline", "declined", "change", "changed", "changes", "rise", "rose", "fall", "fell",
                     "drop", "dropped", "grow", "grew", "growth", "go", "went", "up", "down", "higher", "lower",
                     "improve", "improved", "improvement", "reduction", "reduce", "reduced", "percent", "compared",
                     "versus", "vs", "prior", "explains", "attributable", "due"))
_MEASURED = 0.5  # the share of the measure's words a sentence's subject speaks of
_UP = re.compile(r"(?i)\b(?:increas\w*|gr[eo]w\w*|rise|rose|risen|higher|up|improv\w*|expan\w*|gain\w*)\b")
_DOWN = re.compile(r"(?i)\b(?:decreas\w*|declin\w*|fall|fell|fallen|drop\w*|lower|down|reduc\w*|contract\w*|"
                   r"deteriorat\w*|shr[iu]nk\w*|narrow\w*)\b")
_BULLET = re.compile(r"\s*[•\u2022]")
_FIGURE = re.compile(r"\d(?:[\d,.]*\d)?\s*(?:%|percent|basis points|points)")


class MeasureCoverage:
    """The share of the measure's words a text speaks of, a name the question writes in capitals also by its initials
    ("Boeing Commercial Airplanes" by "BCA", "Health Care Benefits" by "HCB": a filing names its segments so)."""

    def __init__(self, measure: list[str], question: str):
        self.coverage = KeywordCoverage(measure)
        self.initials = []
        for m in re.finditer(r"\b[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*)+", question):
            words = m.group(0).split()
            for i in range(len(words) - 2):  # every run of three words or more, to the name's end
                self.initials.append((re.compile(r"\b" + "".join(w[0] for w in words[i:]) + r"\b"),
                                      " ".join(words[i:]).lower()))

    def __call__(self, text: str) -> float:
        named = [words for abbr, words in self.initials if abbr.search(text)]
        return self.coverage(" ".join([text, *named]) if named else text)


def _direction(text: str) -> int:
    """+1 for a rise, -1 for a fall, 0 for neither or both (the first word of change said decides)."""
    up, down = _UP.search(text), _DOWN.search(text)
    if up and (not down or up.start() < down.start()):
        return 1
    return -1 if down else 0


# a modal of possibility in the clause whose change the causes explain: a risk stated, not a change that happened
_POSSIBLE = re.compile(r"(?i)\b(?:might|may|could|would)\b")
_ASKS_FUTURE = re.compile(r"(?i)\b(?:will|would|could|might|going to|expect\w*|outlook|future)\b")


def drivers_answer(question: str, keywords: list[str], contexts: list[dict], facts: QuestionFacts,
                   company: frozenset[str] = frozenset()) -> str:
    """'<the causes> (the filing: "<sentence>") [doc, p. N]', then at most one more; '' when none names them.
    `company`: the words of the routed companies' names, no part of the measure."""
    if not contexts:
        return ""
    measure = topic_words(question, contexts, also_drop=ASKING | company)
    of_measure = MeasureCoverage(measure or keywords, question)
    asked = _direction(question)
    units = list(covered_units(question, keywords, contexts))
    candidates = []
    sizes = _percents(question)
    for i, (_cov, s, rank, unit, ctx) in enumerate(units):
        # "the decrease was primarily due to ...": its change is the one the sentence before states
        before = _sentence_before(unit, ctx) if _ANAPHOR.match(quote(unit)) else ""
        found = _causes_of(unit, of_measure, before)
        if found is None:
            continue
        subject, causes, stated = found
        if _POSSIBLE.search(re.split(r"[,;]", stated)[-1]) and not _ASKS_FUTURE.search(question):
            continue  # "it might experience losses as a result of inflation": a possibility, no past change's cause
        own = len(causes.split()) - 2  # the causes' words the sentence itself holds (a marker is about two words)
        if own < 2:  # "... was primarily due to:" ending the unit: the causes are the lines after it
            after = [u for _c, _s, r, u, _x in units[i + 1: i + 4] if r == rank]
            causes = " ".join([causes.rstrip(":"), *(" ".join(_BULLET.sub(" ", u).split()) for u in after)])
        said = _direction(f"{before} {stated}")  # an anaphor's change: the sentence before's direction and year
        fit = 0.3 if asked and said == asked else -0.3 if asked and said == -asked else 0.0
        fit += period_fit(f"{before} {unit}", facts) - (0.3 if own < 4 else 0.0)  # a sentence that names its causes itself first
        # the measure as the sentence's subject, not after a qualifying clause (an anaphor's: the sentence before's)
        opening = quote(before or unit)[:40]
        fit += 0.1 * of_measure(opening) if any(w[:5] in opening.lower() for w in measure) else 0.0
        fit -= 0.2 if _qualified(stated, measure, question) else 0.0
        # a change stated before the causes ("margins decreased ... due to"), not a label that is attributed to someone
        # ("Operating income margin and earnings per share attributable to common shareholders")
        fit -= 0.3 if not _CHANGED.search(f"{before} {stated}") else 0.0
        fit -= 0.3 if states_intention(stated, question, measure) else 0.0  # an outlook is no past change's cause
        # a line cut mid-sentence after the whole sentence that holds it (not a whole sentence of causes that the
        # chunk's next sentence follows, cut: "... due to an increase in customer incentives. Las Vegas Strip")
        fit -= 0.2 if _ends_cut(unit) and not _WHOLE_BEFORE.search(_after_cause(unit)) else 0.0
        # the change the question states ("net sales fell ~5%") is the one whose causes it asks: "decreased 4.9%"
        fit += 0.3 if sizes and any(_near(p, q) for p in _percents(f"{before} {stated}") for q in sizes) else 0.0
        candidates.append((subject + fit, s, rank, unit, causes, ctx))
    if not candidates:
        return ""
    if not re.search(r"\b[A-Z][a-z]+\s+[A-Z]", _without_owner(question)):  # no segment named: the whole company's
        sizes = [_amount(c[3]) for c in candidates]
        top = max(sizes)
        if top > 0:  # the company's own statement of the measure is its largest; a segment's is a part of it
            candidates = [(c[0] + (0.15 if size == top else 0.0), *c[1:]) for c, size in zip(candidates, sizes)]
    candidates.sort(key=lambda t: (-t[0], -t[1], t[2]))
    best, _s, _r, unit, causes, ctx = candidates[0]
    answer = f"{causes[:1].upper()}{causes[1:400]} (the filing: \"{quote(unit)}\") {context_label(ctx)}"
    more = next((c for c in candidates[1:] if not repeats(unit, c[3]) and c[0] >= best - 0.1), None)
    if more is not None:
        answer += f" Also: {quote(more[3], 300)} {context_label(more[5])}"
    change = _the_change(units, of_measure, facts, {unit, more[3] if more is not None else unit})
    if change is not None:
        answer += f" The change itself: {_around(quote(change[0], 2000), measure, of_measure)} {context_label(change[1])}"
    return answer


_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)\s*(billion|million|thousand)?")
_SCALE = {"billion": 1e9, "million": 1e6, "thousand": 1e3}


def _amount(unit: str) -> float:
    """The first dollar amount `unit` states, in dollars (0.0 without one)."""
    m = _AMOUNT.search(unit)
    return float(m.group(1).replace(",", "")) * _SCALE.get(m.group(2) or "", 1.0) if m else 0.0


def _without_owner(question: str) -> str:
    """The question without its possessive company name and its opening word ("What caused Kraft Heinz's net sales
    decline" -> "caused net sales decline"): what is left names a segment in capitals, if any."""
    return re.sub(r"\b(?:[A-Z][\w&.-]*\s+){0,3}[A-Z][\w&.-]*(?:'s|’s|s'|s’)", "", question.split(None, 1)[-1])


# the words before a measure that say it is the company's whole one, or its change, not a part of it
_PLAIN = frozenset(("the", "our", "total", "consolidated", "its", "net", "gross", "overall", "reported", "neutral",
                    "company", "annual", "fiscal", "higher", "lower", "increased", "decreased", "increase", "decrease",
                    "decline", "change", "growth", "in", "of", "and", "that", "this", "these", "which", "while", "as"))


def _qualified(stated: str, measure: list[str], question: str) -> bool:
    """Is the measure the sentence states a qualified one the question does not ask: a word right before its first
    word that the question does not write and that is no plain word of the whole ("Organic Net Sales decreased" for
    "net sales", "Adjusted Operating Income" for "operating income", "footwear revenues" for "revenue", "segment gross
    margin" for "gross margin"; not "our", "total", "consolidated")?"""
    if not measure:
        return False
    m = re.search(rf"\b([A-Za-z][a-z]+)\s+{re.escape(measure[0][:5])}", stated, re.I)
    if not m or re.search(rf"(?i)\b{re.escape(m.group(1))}\b", question):
        return False
    word = m.group(1).lower()
    # a part of the measure named in lower case ("footwear revenues", "segment gross margin") is qualified too
    return word not in STOPWORDS and word not in _PLAIN


_ANAPHOR = re.compile(r"(?i)^\W*(?:(?:for|in) [^,]{3,40},\s*)?(?:(?:the|this|these|that|such) (?:increases?|decreases?|"
                      r"declines?|changes?|improvements?|growth|rises?|reductions?|deteriorations?)\b(?! in\b| of\b)|"
                      r"(?:the current|this|the) (?:year|period|quarter)\b(?=\s+(?:was|were|benefit|reflect)))")
# a subject that refers back to the change the sentence before states: "the decrease was primarily due to", "The
# current year benefited from" (a period as the subject: the change is the one just stated)
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent\b)")


def _sentence_before(unit: str, ctx: dict) -> str:
    """The sentence right before `unit` in its context's text ('' when it opens the context or is not found)."""
    text = " ".join(str(ctx.get("text") or "").split())
    at = text.find(" ".join(unit.split())[:60])
    if at <= 0:
        return ""
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", text[:at].rstrip())[-1]


def _ends_cut(unit: str) -> bool:
    """Does `unit` end mid-sentence: a conjunction, preposition, article or comma last, or no closing punctuation
    ("... foreign currency (1.9 pp) and": a line of the sentence that goes on at the next line)?"""
    tail = " ".join(unit.split())
    return bool(tail) and (re.search(r"(?i)(?:\b(?:and|or|of|the|a|an|to|by|with|for|in|from|as|higher|lower)|,)$", tail)
                           is not None or tail[-1] not in ".;:!?)]\"”’'%")


def _percents(text: str) -> list[float]:
    """The percentages `text` writes ("~5%", "36 percent")."""
    return [float(m.group(1)) for m in _PERCENT.finditer(text)]


def _near(stated: float, asked: float) -> bool:
    """Is the stated change the asked one, rounded as a question rounds it ("~5%" for 4.9%, "36%" for 36.2%)?"""
    return abs(stated - asked) <= max(0.6, 0.1 * asked)


def _causes_of(unit: str, of_measure: Callable[[str], float], before: str = "") -> Optional[tuple[float, str, str]]:
    """(the share of the measure its subject speaks of, the causes, the part that states the change) of a unit that
    names a change's causes: "<the measure changed> <marker> <causes>", or a marker opening it, "As a result of <causes>,
    <the measure changed>"; None for a unit that names none, or whose subject is not the measure. `before`: the
    sentence before, when this one's subject is an anaphor of its change ("the decrease was primarily due to")."""
    marker = CAUSE.search(unit)
    if marker is None:
        return None
    if marker.start() < 10:  # the causes first, up to the comma that opens the clause they explain
        comma = unit.find(", ", marker.end())
        if comma < 0:
            return None
        stated = unit[comma + 2:]
        subject = of_measure(stated)
        return (subject, " ".join(unit[marker.start(): comma].split()), stated) if subject >= _MEASURED else None
    # the clause before the marker, not a table the unit holds before its sentence ("... REVPAR 147 146 143 Las Vegas
    # Strip Resorts food and beverage revenue decreased 1% ... driven by": the table's words are no subject)
    head = _clause_before(unit[: marker.start()])
    subject = of_measure(f"{before} {head}")  # an anaphor's change: the sentence before's
    if subject < _MEASURED:
        return None
    bullets = [b.strip(" ;") for b in _BULLET.split(" ".join(unit[marker.start():].split()))]
    if len(bullets) > 1 and len(bullets[0].split()) - len(marker.group(0).split()) < 2:
        return subject, f"{bullets[0].rstrip(': ')}: {'; '.join(b for b in bullets[1:] if b)}", unit[: marker.start()]
    causes = re.split(r"(?<=[a-z0-9)%])[.!?]\s+(?=[A-Z])", bullets[0])[0]  # up to its sentence's end
    return subject, causes.rstrip("."), unit[: marker.start()]  # a bullet after the causes begins another statement


_CHANGED = re.compile(r"(?i)\b(?:increas\w*|decreas\w*|gr[eo]w\w*|ris[ei]\w*|rose|declin\w*|fell|fall\w*|drop\w*|"
                      r"higher|lower|improv\w*|contract\w*|reduc\w*|chang\w*|impact\w*|affect\w*|benefit\w*|"
                      r"offset|up|down|expan\w*|deteriorat\w*)\b|\d\s*(?:%|percent|basis points)")
_WHOLE_BEFORE = re.compile(r"[a-z0-9)%][.!?]\s+[A-Z]")  # a sentence's end, then the next one's start


def _after_cause(unit: str) -> str:
    """The text of `unit` after its cause marker (all of it without one)."""
    m = CAUSE.search(unit)
    return unit[m.end():] if m else unit


def _clause_before(text: str) -> str:
    """The words of `text` after its last run of figures (a table's row of three numbers or more: "147 146 143"), or
    all of it."""
    runs = list(re.finditer(r"(?:[$(]?\s?\d[\d,.]*%?\)?\s+){3,}", text))
    return text[runs[-1].end():] if runs else text


def _around(unit: str, measure: list[str], of_measure: Callable[[str], float]) -> str:
    """The part of `unit` (up to 240 characters) that names the whole measure with its figures: a long table's row
    "Operating income margin 19.1 % 20.8 % (1.7)%" rather than the table's first rows."""
    if len(unit) <= 240 or not measure:
        return unit
    for m in re.finditer(re.escape(measure[0][:5]), unit.lower()):
        window = unit[max(0, m.start() - 40): m.start() + 200]
        if of_measure(window) >= 0.99 and _FIGURE.search(window):
            return f"... {window.strip()} ..."
    return unit[:240]


def _the_change(units: list, of_measure: Callable[[str], float], facts: QuestionFacts, quoted: set[str]):
    """The unit that states the asked measure with its figures (a table's row "Operating income margin 19.1 % 20.8 %
    (1.7)%", a sentence "Gross margin decreased 250 basis points to 43.5%"): all of the measure's words and a figure,
    the asked year's preferred, the shortest first; None when no unit states one."""
    found = []
    for _cov, _s, rank, unit, ctx in units:
        if unit in quoted or of_measure(unit) < 0.99 or not _FIGURE.search(unit) or CAUSE.search(unit):
            continue
        found.append((-period_fit(unit, facts), len(unit), rank, unit, ctx))
    return min(found, key=lambda t: t[:3])[3:] if found else None
