"""Arithmetic the head of a question writes ("What is Tesla's EBITDA less capex for 2024?", "(Marketing and sales +
General and administrative) / Revenue"), read into an expression over known operands.

    arithmetic(head, defined)   # (Expr, name as written, 'percentage of' used) or None

Sentence by sentence, the first that holds arithmetic: the span from its first operand to its last. The first operand
is the words before the first operator when they are one, else their ending after a word that can end a request
("What is Tesla's"), else the words as a row of the filing when they read as a row's label; the last operand
likewise. A few operands finrag has no name for may be the filing's own rows (never most of them); words that only
compare periods ("current minus prior") are no arithmetic of their own.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.formula import Expr, Number, Unknown, expr_unknowns
from finrag.tools.question.formula_text import defined_in_place, expression_of, rewrite, split_operators
from finrag.tools.question.operand import clean_phrase, name_key, resolve

__all__ = ["arithmetic", "label_like"]


def arithmetic(head: str, defined: dict[str, Expr]) -> Optional[tuple[Expr, str, bool]]:
    """Arithmetic the head writes over known operands, sentence by sentence (the first that holds some): the span
    from its first operand to its last, when every operand between resolves (else None: "over the past three
    years" is no division)."""
    head = _REQUEST_DASH.sub("? ", head)  # "A net of B - what's that in USD millions?": the dash ends the arithmetic
    for sentence in re.split(r"(?<=[?;:])\s+|(?<=\.)\s+(?=[A-Z])", head):  # "Apple asset turnover, 9M: A over B"
        found = _sentence_arithmetic(sentence, defined)
        if found is not None:
            return found
    return None


_REQUEST_DASH = re.compile(r"(?i)\s+[-–—]+\s+(?=(?:what|what's|how|which|give|report|answer|please|express|round|"
                           r"show|tell|state|in (?:usd|\$|dollars|millions|billions|percent))\b)")
"""A dash before a request or the answer's format is punctuation, no subtraction."""


def _sentence_arithmetic(head: str, defined: dict[str, Expr]) -> Optional[tuple[Expr, str, bool]]:
    tokens = defined_in_place(split_operators(rewrite(head, defined)))
    if not any(k == "op" and v in "+-*/~" for k, v in tokens):
        return None
    while len(tokens) > 1 and tokens[0][0] == "phrase" and tokens[1] == ("op", "(") and \
            _operand_suffix(tokens[0][1], defined) is None:
        tokens = tokens[1:]  # "What is the (A + B + C)": the words before a parenthesis
    while len(tokens) > 1 and tokens[-1][0] == "phrase" and tokens[-2] == ("op", ")") and \
            _operand_prefix(tokens[-1][1], defined) is None:
        tokens = tokens[:-1]
    phrases = [i for i, (k, _v) in enumerate(tokens) if k == "phrase"]
    if len(phrases) < 2:
        return None
    first, last = tokens[phrases[0]][1], tokens[phrases[-1]][1]
    # the words before the arithmetic are trimmed only when the arithmetic starts there ("What is Tesla's EBITDA less
    # capex"); an operand inside a parenthesis is whole ("(Marketing and sales + ...)")
    if all(_PERIOD_WORDS.fullmatch(v.strip(" ,.;:?()")) for k, v in tokens if k == "phrase"):
        return None  # "(current minus prior)": how the asked measure is compared, not a measure (`_CHANGE`)
    start = _opening(first, defined)
    scaling = phrases[-1] > 0 and tokens[phrases[-1] - 1] in (("op", "*"), ("op", "/"))  # "multiplied by 365"
    scaling = scaling or (tokens[phrases[-1] - 1] == ("op", "-") and last.strip(" .,") == "1")  # "A / B - 1": growth
    end = _closing(last, defined, scaling)
    if start is None or end is None:
        return None
    tokens = list(tokens)
    tokens[phrases[0]], tokens[phrases[-1]] = ("phrase", start), ("phrase", end)
    text = " ".join({"(": "⟨", ")": "⟩", "~": "net of"}.get(v, v) if k == "op" else v for k, v in tokens)
    expr, percent, n = expression_of(text, defined)
    percent = percent or bool(re.search(r"(?i)\b(?:%|percent(?:age)?|share) of\b", head))
    # operands the head writes that finrag has no name for (a defined name's own unknowns are the definition's)
    unknown = [v for i, (k, v) in enumerate(tokens) if k == "phrase" and isinstance(resolve(v, defined), Unknown)
               and not _grouped_period(tokens, i)]
    if expr is None or n < 2 or len(unknown) > n - len(unknown) + 1 or any(
            len(u.split()) > 8 or not label_like(u) for u in unknown):
        return None  # operands finrag has no name for may be the filing's own rows ("Marketing and sales"), a few
    shown = list(tokens)  # the name: the shortest operands at either end ("EBITDA - capex", not "is the EBITDA ...")
    shown[phrases[0]] = ("phrase", _operand_suffix(first, defined, shortest=True) or start)
    shown[phrases[-1]] = ("phrase", _operand_prefix(last, defined, shortest=True) or end)
    name = " ".join((v if v in "()" else f" {'net of' if v == '~' else v} ") if k == "op" else clean_phrase(v)
                    for k, v in shown)
    name = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", " ".join(name.split()))).replace("()", "(the earlier period)")
    return expr, name, percent


def _reads(cand: str, defined: dict[str, Expr]) -> Optional[Expr]:
    """The operand the words name, or None: a name the question defines is one whatever its own operands are (its
    unknowns are the definition's to say), else what `operand.resolve` reads when it holds no unknown."""
    if name_key(clean_phrase(cand)) in defined:
        return defined[name_key(clean_phrase(cand))]
    got = resolve(cand, defined)
    return None if expr_unknowns(got) else got


def _grouped_period(tokens: list[tuple[str, str]], i: int) -> bool:
    """Is token i a bare period in a group of its own ("⟨revenue Q2 2025⟩ / ⟨Q2 2024⟩": the operand before it at that
    period), not a period after an operator word ("change in working capital over 2024": no division)?"""
    return 0 < i < len(tokens) - 1 and tokens[i - 1] == ("op", "(") and tokens[i + 1] == ("op", ")") and \
        bool(_PERIOD_WORDS.fullmatch(tokens[i][1].strip(" ,.;:")))


def label_like(phrase: str) -> bool:
    """Could the words be a statement row's label (no question words, no verbs of a request, no digits, not begun or
    ended by a function word)?"""
    words = phrase.strip(" ,.").split()
    edge = r"(?i)the|a|an|of|for|to|in|and|or|by|with|its|their|that|this"
    return bool(words) and not re.fullmatch(edge, words[0]) and not re.fullmatch(edge, words[-1]) and not re.search(
        r"(?i)\b(?:what|how|which|is|was|are|were|did|does|do|compute|calculate|give|report|round|answer|decimals?|"
        r"percent|percentage|million|billion|usd|please|indicate|tell|show|provide|need|want)\b|\d|\?", phrase)


_PERIOD_WORDS = re.compile(r"(?i)current|prior|previous|beginning|ending|this year|last year|(?:q[1-4]\s*)?(?:fy\s*)?'?\d{2,4}"
                           r"|(?:fy|q[1-4])\s*'?\d{2,4}")


_LABEL_COMMA = re.compile(r"(?i),\s+(net|current|non-?current|total)\b(?=\s*(?:,|$|\s+(?:as|over|divided|minus|plus|"
                          r"less|for|in|at)\b))")
"""A label's own comma ("Research and development expense, net", "Notes payable, current"): no clause ends there."""


def _opening(phrase: str, defined: dict[str, Expr]) -> Optional[str]:
    """The first operand of the head's arithmetic: the phrase when it is one, else its ending that is one after a
    word that can end a request ("What is Tesla's EBITDA"), else the phrase as a row of the filing when it reads as a
    row's label ("Marketing and sales", "cloud services and license support revenues")."""
    phrase = re.split(r",\s(?!(?:19|20)\d\d\b)|:\s|;\s|\s[—–]\s|\bi\.e\.,?\s|\be\.g\.,?\s|\bI mean\s", _LABEL_COMMA.sub(r" \1", phrase))[-1]
    phrase = phrase.strip(" ,")
    if _reads(phrase, defined) is not None:
        return phrase
    asked = _ASKED_OPENING.sub("", phrase, count=1)
    return _operand_suffix(phrase, defined) or (phrase if label_like(phrase) and len(phrase.split()) <= 8 else None) \
        or _label_after_boundary(phrase) or (asked if asked != phrase and label_like(asked) and len(asked.split()) <= 8
                                             else _label_after_boundary(asked) if asked != phrase else None)


_ASKED_OPENING = re.compile(r"(?i)^\s*(?:what|how much)(?:'s|\s+(?:is|was|were|are|did|does|has|had))\s+(?:the\s+)?")
"""A request's opening before the head's first operand ("What was Acme's", "How much is the"): the words after it are
read as they would be without it, a name's possessive and a period still before the row's label. A question word
that asks a count or a choice ("How many", "Which") opens no operand."""


def _label_after_boundary(phrase: str) -> Optional[str]:
    """The longest ending after a name, a possessive or a period that reads as a row's label ("Amazon 2024
    fulfillment expense" -> "fulfillment expense"), or None."""
    words = phrase.split()
    for k in range(1, len(words)):
        cand = " ".join(words[k:])
        if _prefix_word(words[k - 1]) and label_like(cand) and len(words) - k <= 8 and \
                not re.fullmatch(r"[A-Z][\w&.-]*", words[k]):
            return cand if all(_prefix_word(w) for w in words[:k]) else None
    return None


def _prefix_word(word: str) -> bool:
    """A word of what may stand before a head's first operand without asking anything: a name, a possessive, a period
    ("Amazon", "Coca-Cola's", "2024", "FY24", "Q3"), never a question word ("How many ...")."""
    w = word.strip(",:;")
    return not re.fullmatch(r"(?i)what|how|which|who|when|where|why|did|does|do|is|was|give|compute|calculate|report|"
                            r"find|show|tell|please", w) and \
        bool(re.fullmatch(r"[A-Z][\w&.-]*(?:'s|s')?|(?i:(?:fy|q[1-4]|h[12])?\s*'?\d{2,4}|fiscal)", w))


def _closing(phrase: str, defined: dict[str, Expr], numbers: bool) -> Optional[str]:
    """The last operand of the head's arithmetic, as `_opening` reads the first (its beginning, before a word that can
    follow an operand: "capex for fiscal 2024")."""
    phrase = re.split(r",\s(?!(?:19|20)\d\d\b)|;\s|\?|\.\s|\s[—–]\s", _LABEL_COMMA.sub(r" \1", phrase))[0].strip(" .")
    got = _reads(phrase, defined)
    if got is not None and (numbers or not isinstance(got, Number)):
        return phrase
    return _operand_prefix(phrase, defined, numbers=numbers) or (
        phrase if label_like(phrase) and len(phrase.split()) <= 8 else None)


def _operand_suffix(phrase: str, defined: dict[str, Expr], shortest: bool = False) -> Optional[str]:
    """The longest ending of `phrase` that is an operand other than a bare number ("What is Tesla's 2024 EBITDA"
    -> "Tesla's 2024 EBITDA": a number there is a date's or a year's)."""
    phrase = re.split(r",\s(?!(?:19|20)\d\d\b)|:\s|;\s|\s[—–]\s|\bi\.e\.,?\s|\be\.g\.,?\s|\bI mean\s", phrase)[-1]
    words = phrase.split()
    for k in (range(len(words) - 1, -1, -1) if shortest else range(len(words))):
        cand = " ".join(words[k:])
        if re.match(r"(?i)(?:and|or|of|to|by|with)\b", words[k]):
            continue  # "and sales" is no operand of "Marketing and sales"
        got = _reads(cand, defined)
        if shortest and _PERIOD_WORDS.fullmatch(cand):
            continue  # "current" of "current liabilities" names no operand of its own
        if got is not None and not isinstance(got, Number):
            return cand if k == 0 or _boundary(words[k - 1]) else None
    return None


def _boundary(word: str) -> bool:
    """Can the word end what comes before an operand (a request's words, a name or its possessive, a period), rather
    than qualify it ("license support revenues" is a part of revenues, not revenues)?"""
    w = word.strip(",:;")
    if word.endswith((",", ":", ";")) or w in ("⟧", ")") or re.fullmatch(r"[A-Z][\w&.-]*", w):
        return True  # a clause's end, a gloss, a name or a ticker
    if "'" in w or re.fullmatch(r"(?i)(?:fy|q[1-4])?'?\d{2,4}|h[12]", w):
        return True  # a possessive, a period
    return w.lower() in _REQUEST


_REQUEST = {"what", "is", "was", "are", "were", "the", "a", "an", "its", "their", "of", "for", "in", "to", "compute",
            "calculate", "give", "report", "find", "show", "mean", "then", "take", "using", "our", "your", "much"}


def _operand_prefix(phrase: str, defined: dict[str, Expr], shortest: bool = False, numbers: bool = False
                    ) -> Optional[str]:
    """The longest beginning of `phrase` that is an operand other than a bare number (`numbers`: a number too)."""
    words = phrase.split()
    for k in (range(1, len(words) + 1) if shortest else range(len(words), 0, -1)):
        cand = " ".join(words[:k])
        got = _reads(cand, defined)
        if shortest and _PERIOD_WORDS.fullmatch(cand):
            continue  # "current" of "current liabilities" names no operand of its own
        if got is not None and (numbers or not isinstance(got, Number)):
            after = words[k] if k < len(words) else ""
            return cand if not after or _follows(after) or cand.endswith((",", ".", "?", ";", ":")) else None
    return None


def _follows(word: str) -> bool:
    """Can the word follow an operand (a period, a place, a unit, a new sentence), rather than extend it?"""
    return bool(re.fullmatch(r"(?i)for|in|at|as|of|on|during|ended|ending|to|from|with|by|over|per|than|and|then|ratio,?|"
                             r"(?:fy|q[1-4])?'?\d{2,4}[,.?]?|h[12]|[A-Z][\w&.-]*|\(.*|⟦.*", word.strip()))
