"""A question that contradicts itself: said, never computed, since any value would pick one of its readings.

* **The answer's form asked and forbidden at once** ("give it as a ratio, not as a ratio", "in days and not in
  days"): `forbidden_form` names the form.
* **One answer asked in two forms that measure different things at once** ("in USD millions as a percentage", "as a
  ratio in days"): `mixed_forms` names them. Two forms joined by "and" / "or" / a comma ask two answers, no clash.
* **The asked measure defined twice, differently** ("compute it as B / A, where the ratio is defined as A / B", or
  one name given two definitions): `clashes` names the two definitions. Two writings of one computation (the
  same operands and values, or one of them times 100) are no clash.

    forbidden_form("Give the answer as a ratio, not as a ratio.")  # "a ratio"
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.formula import BinOp, Expr, Number
from finrag.tools.vocabulary.arithmetic import equivalent

__all__ = ["clash", "clashes", "forbidden_form", "form_clash", "mixed_forms"]

_FORM = r"(?:(?:an?|the)\s+)?(?P<form>percent(?:age)?s?|%|ratios?|multiples?|decimals?|fractions?|days|basis points|" \
        r"(?:usd\s+|\$\s*)?(?:millions|billions|thousands)|dollars)(?![\w%])(?!\s+of\b)"
"""A form the answer may be written in; "as a percentage of B" is arithmetic, not a form."""
_ASKED = re.compile(rf"(?i)(?<!\bnot\s)\b(?:as|in)\s+{_FORM}")
_FORBIDDEN = re.compile(rf"(?i)\bnot\s+(?:as|in)\s+{_FORM}")
_SENTENCE = re.compile(r"(?<=[.?!;])\s+")


def _form(word: str) -> str:
    w = re.sub(r"(?i)^(?:usd\s+|\$\s*)", "", word.lower().strip())
    if w in ("%", "percent", "percents", "percentage", "percentages"):
        return "a percentage"
    if w in ("days", "basis points", "millions", "billions", "thousands", "dollars"):
        return w
    return "a " + w.rstrip("s")


def forbidden_form(question: str) -> Optional[str]:
    """The form a sentence of the question both asks the answer in and forbids ("as a percentage, not as a
    percentage"), or None."""
    for sentence in _SENTENCE.split(question):
        forbidden = {_form(m.group("form")) for m in _FORBIDDEN.finditer(sentence)}
        asked = {_form(m.group("form")) for m in _ASKED.finditer(sentence)}
        both = sorted(forbidden & asked)
        if both:
            return both[0]
    return None


_DIMENSION = {"millions": "amount", "billions": "amount", "thousands": "amount", "dollars": "amount", "days": "days"}
"""What a form measures: an amount of money, days, or (any other form) a number without a unit."""
_JOINED = re.compile(r"(?i)\b(?:and|or|then|also|plus|both|with|versus|vs)\b|[,;(]")


def mixed_forms(question: str) -> Optional[tuple[str, str]]:
    """Two forms one ask puts on the same answer that measure different things ("in USD millions as a percentage":
    an amount is no percentage), or None; forms joined by a conjunction or a comma ask two answers."""
    for sentence in _SENTENCE.split(question):
        asked = list(_ASKED.finditer(sentence))
        for a, b in zip(asked, asked[1:]):
            fa, fb = _form(a.group("form")), _form(b.group("form"))
            between = sentence[a.end():b.start()]
            if _DIMENSION.get(fa, "number") != _DIMENSION.get(fb, "number") and len(between.split()) <= 2 and \
                    not _JOINED.search(between):
                return tuple(f"{'in' if _DIMENSION.get(f) else 'as'} {f}" for f in (fa, fb))  # type: ignore[return-value]
    return None


def form_clash(question: str) -> Optional[str]:
    """What is said when the question asks its answer's form in a way no answer can meet (`forbidden_form`,
    `mixed_forms`), or None."""
    form = forbidden_form(question)
    if form is not None:
        return f"the question asks the answer as {form} and forbids {form}; finrag does not pick one"
    mixed = mixed_forms(question)
    if mixed is not None:
        return f"the question asks one answer both {mixed[0]} and {mixed[1]}, which measure different things; finrag " \
            "does not pick one"
    return None


def clash(a: Expr, b: Expr) -> bool:
    """Do two definitions of one measure compute different things (not one writing of the other, nor it times 100)?"""
    hundred = Number(value=100.0)
    return not (equivalent(a, b) or equivalent(BinOp(op="*", left=a, right=hundred), b)
                or equivalent(a, BinOp(op="*", left=b, right=hundred)))


def clashes(definitions: dict[str, tuple[Expr, str]], asked: str) -> Optional[str]:
    """The problem when the question's definition without a name ("compute it as ...") and its definition of the
    measure it asks (`asked`, a name key) differ, or None. A nameless definition that uses the named one builds on
    it ("define EBITDA as ...; compute it as EBITDA / revenue"): no clash."""
    if "" not in definitions or not asked or asked not in definitions:
        return None
    (nameless, text), (named, named_text) = definitions[""], definitions[asked]
    if re.search(rf"(?i)\b{re.escape(asked)}\b", text) or not clash(nameless, named):
        return None
    return (f"the question defines {asked} twice, differently ('{text[:80]}' and '{named_text[:80]}'); finrag does not "
            "pick one")
