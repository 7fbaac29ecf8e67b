"""Arithmetic a question writes by where it puts its operands rather than by an operator word: "long-term debt to
total assets" (a ratio), "free cash flow after dividends paid" (a subtraction).

    bare_to("What is Apple's total liabilities to total equity for FY2024?", {})
    # "What is ⟨Apple's total liabilities⟩ / ⟨total equity⟩ for FY2024?"
    after("free cash flow after dividends paid", {})     # "⟨free cash flow⟩ - ⟨dividends paid⟩"

Both read only between two operands finrag knows (line items, catalog metrics, names the question defines): "from
2023 to 2024", "payments to acquire ...", "after the acquisition" stay words. The result is grouped by ⟨ ⟩, as
`formula_text.rewrite` writes its other word forms.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.formula import Expr, Item, Number, expr_unknowns
from finrag.tools.question.operand import SUBJECT, name_key, resolve
from finrag.tools.vocabulary.catalog import CATALOG
from finrag.tools.vocabulary.line_items import INCOME_ORDER

__all__ = ["after", "bare_to", "distinct_parts", "fraction_roles", "framed"]

_TO = re.compile(r"(?i)\s(?:relative to|in relation to|(?<!\badded\s)(?<!\bcompared\s)(?<!\bequal\s)(?<!\bapplied\s)"
                 r"(?<!\bup\s)to|per dollar of|for (?:every|each) dollar of|per \$1 of)\s")
"""The "to" of a ratio; the "to" of a verb ("added to", "compared to", "equal to", "applied to") belongs to that verb."""
_LEAD = {"what", "is", "was", "are", "were", "the", "a", "an", "its", "their", "of", "for", "in", "to", "compute",
         "calculate", "give", "report", "find", "show", "and", "as", "at", "by", "with", "then", "using", "on", "from"}
"""Words that begin no operand but may stand before one ("What is the ...", "compute ...")."""
_AFTER_OPERAND = re.compile(r"(?i)(?:for|in|at|as|of|on|during|ended|ending|from|with|by|over|per|than|and|then|"
                            r"ratio|multiple|(?:fy|q[1-4])?'?\d{2,4}[,.?;:]?|(?-i:[A-Z][\w&.-]*))$")
"""Words that can follow an operand rather than extend it (a period, a unit, "ratio", a new sentence)."""


def _operand(phrase: str, defined: dict[str, Expr]) -> bool:
    """Are the words one known operand (a line item, a defined or catalog metric), neither a number nor a period?"""
    if re.search(r"(?i)[,;:?]|\d|\b(?:fiscal|year|quarter|period|months?)\b", phrase):
        return False  # an operand here ends at its clause and holds no period
    if phrase.count("(") != phrase.count(")"):
        return False  # "((total equity": a group's opening is no part of an operand
    got = resolve(phrase, defined)
    return not expr_unknowns(got) and not isinstance(got, Number) and not re.fullmatch(
        r"(?i)(?:fy\s*|q[1-4]\s*)?'?\d{2,4}", phrase.strip(" ,.?;:"))


def _catalog_spans(left: str, rhs: str) -> bool:
    """Does a catalog metric's name span the "to" of "<left> <rhs>" ("debt to equity")? A name inside one operand
    ("total debt" of "operating cash flow to total debt") is that operand's, and the two operands still divide."""
    span = left + rhs
    return any(g.start() < len(left.rstrip()) and g.end() > len(left) for e in CATALOG.values() for p in e.names
               for g in re.finditer(p, span, re.I))


def bare_to(text: str, defined: dict[str, Expr]) -> str:
    """"long-term debt to total assets" -> "⟨long-term debt⟩ / ⟨total assets⟩": two known operands joined by "to"
    (or "relative to") are a ratio, the way "A-to-B ratio" is; the left operand begins after a word that can end a
    request, the right one ends before a word that can follow an operand. A span the catalog names ("debt to equity")
    is the catalog's metric; a year, a number or a name finrag has no line item for is never an operand here."""
    for m in _TO.finditer(text):
        left, right = text[:m.start()].split(), text[m.end():].split()
        lhs = next((" ".join(left[j:]) for j in range(len(left))
                    if left[j].lower() not in _LEAD and (j == 0 or _opens_after(left[j - 1]))
                    and _operand(" ".join(left[j:]), defined)), None)
        rhs = next((" ".join(right[:k]).rstrip(",.?;:") for k in range(len(right), 0, -1)
                    if (k == len(right) or _AFTER_OPERAND.fullmatch(right[k].rstrip(",.?;:")) or right[k - 1][-1] in ",.?;:")
                    and not re.fullmatch(r"(?i)ratio|multiple", right[k - 1].rstrip(",.?;:")) and _operand(" ".join(right[:k]).rstrip(",.?;:"), defined)), None)
        if lhs is None or rhs is None or _in_defined_name(f"{lhs} {m.group(0).strip()} {rhs}", defined):
            continue
        if _catalog_spans(f"{lhs} {m.group(0).strip()} ", rhs):
            continue  # "debt to equity": the catalog's metric of that name
        start = m.start() - len(lhs)
        end = m.end() + text[m.end():].find(rhs) + len(rhs)
        return f"{text[:start]}{_grouped(lhs, text)} / {_grouped(rhs, text)}{text[end:]}"
    return text


def _in_defined_name(words: str, defined: dict[str, Expr]) -> bool:
    """Do the words hold a name the question defines ("free cash flow after dividends" defined as
    ...): a defined name is one operand, never arithmetic of its parts."""
    key = name_key(words)
    return any(name and name != SUBJECT and len(name.split()) > 1 and re.search(rf"\b{re.escape(name)}\b", key)
               and any(w in name.split() for w in ("after", "to", "relative")) for name in defined)


def _opens_after(word: str) -> bool:
    """Can the word stand right before an operand (a request's word, a name or its possessive, a period, a clause's
    end)?"""
    w = word.strip(",:;")
    return word.endswith((",", ":", ";", "⟧")) or w.lower() in _LEAD or "'" in w or "’" in w or bool(
        re.fullmatch(r"[A-Z][\w&.-]*|(?i:(?:fy|q[1-4])?'?\d{2,4}|h[12])", w))


_AFTER = re.compile(r"(?i)\s(?:after)\s(?!deducting\b|the (?:effect|impact)\b)")


def after(text: str, defined: dict[str, Expr]) -> str:
    """"A after B" -> "⟨A⟩ - ⟨B⟩" when A and B are known operands ("free cash flow after dividends", "operating cash
    flow after capital expenditures and dividends"); A may be a parenthesis that defines it ("free cash flow (CFO
    minus capex) after dividends"). When A is an income-statement line that already comes after B ("net income
    after taxes", "operating income after SG&A") the words only describe A: "after B" is dropped."""
    for m in _AFTER.finditer(text):
        before, right = text[:m.start()], text[m.end():].split()
        lhs = _left_operand(before, defined)
        rhs = next((" ".join(right[:k]).rstrip(",.?;:") for k in range(len(right), 0, -1)
                    if (k == len(right) or _AFTER_OPERAND.fullmatch(right[k].rstrip(",.?;:")) or
                        right[k - 1][-1] in ",.?;:") and _operand(" ".join(right[:k]).rstrip(",.?;:"), defined)), None)
        if lhs is None or rhs is None or _in_defined_name(f"{lhs} after {rhs}", defined):
            continue
        end = m.end() + text[m.end():].find(rhs) + len(rhs)
        start = m.start() - len(lhs)
        if _already_after(lhs, rhs, defined):
            return f"{text[:m.start()]}{text[end:]}"
        listed = _listed(rhs, defined)
        return f"{text[:start]}{lhs} - {listed if listed == rhs else f'⟨{listed}⟩'}{text[end:]}"
    return text


def _grouped(operand: str, text: str) -> str:
    """The operand as written when it holds no operator and the text holds no other (so that an answer names it as
    the question does), else grouped by ⟨ ⟩."""
    lone = not re.search(r"(?i)[+*/⟨⟩]|\s-\s|\b(?:plus|minus|less|over|times|divided|net of)\b", text.replace(operand, " ", 1))
    return operand if lone and not re.search(r"[+*/⟨⟩(]|\s-\s", operand) else f"⟨{operand}⟩"


def _key(expr: Expr) -> str:
    return expr.item if isinstance(expr, Item) else repr(expr)


def _listed(phrase: str, defined: dict[str, Expr]) -> str:
    """"capital expenditures and dividends" -> "capital expenditures + dividends" (see `distinct_parts`)."""
    return " + ".join(distinct_parts(phrase, defined))


def distinct_parts(phrase: str, defined: dict[str, Expr]) -> list[str]:
    """["capital expenditures", "dividends"] of "capital expenditures and dividends" when each part is a different
    known operand, else [phrase] (a row label's own "and", as in "cash and cash equivalents", stays)."""
    parts = [p for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", phrase) if p.strip()]
    got = [resolve(p, defined) for p in parts]
    if len(parts) < 2 or any(expr_unknowns(g) or isinstance(g, Number) for g in got) or len({_key(g) for g in got}) < len(got):
        return [phrase]
    return parts


def _left_operand(before: str, defined: dict[str, Expr]) -> Optional[str]:
    """The operand `before` ends with: a known operand after a word that can open one, or a parenthesis with the
    operand it defines ("free cash flow (operating cash flow minus capex)")."""
    before = before.rstrip()
    if before.endswith(")"):
        depth, k = 0, len(before) - 1
        while k >= 0:
            depth += {")": 1, "(": -1}.get(before[k], 0)
            if depth == 0:
                break
            k -= 1
        if k < 0 or not re.search(r"(?i)\bminus\b|\bless\b|\bplus\b|\s[-+/*]\s", before[k:]):
            return None
        name = _left_words(before[:k], defined)
        return f"{name} {before[k:]}" if name else before[k:]
    return _left_words(before, defined)


def _left_words(before: str, defined: dict[str, Expr]) -> Optional[str]:
    left = before.split()
    return next((" ".join(left[j:]) for j in range(len(left))
                 if left[j].lower() not in _LEAD and (j == 0 or _opens_after(left[j - 1]))
                 and _operand(" ".join(left[j:]), defined)), None)


def _already_after(lhs: str, rhs: str, defined: dict[str, Expr]) -> bool:
    """Is A an income-statement line that the statement computes after B ("net income after taxes")?"""
    a, b = resolve(lhs, defined), resolve(rhs, defined)
    if not (isinstance(a, Item) and isinstance(b, Item)) or a.item not in INCOME_ORDER or b.item not in INCOME_ORDER:
        return False
    return INCOME_ORDER[b.item] < INCOME_ORDER[a.item]


_ROLE_IS = r"(?i)(?:,\s*)?(?:\b(?:where|with|and|in which|such that|whereby)\s+)?(?:the\s+)?{role}(?:\s*(?:is equal to|is (?:defined|computed|calculated) as|is|being|=|:|equals|equal to))?\s+(?!(?:and|or|are|were|of|to)\b)(?P<op>.+?)(?=,?\s+(?:and\s+)?(?:the\s+)?(?:numerator|denominator)\b|\.\s|[;?]|\.$|$)"
_ROLE_AS = r"(?i)(?:,\s*)?(?P<op>[^,;.?\x00]+?)\s+(?:as|in|for)\s+the\s+{role}\b"


def fraction_roles(question: str) -> tuple[Optional[str], Optional[str], str, int]:
    """(numerator, denominator, the question without the clauses that name them, where the first clause stood):
    "where the numerator is A and the denominator is B", "with numerator A and denominator B" (the role's copula
    may be left out), "with A as the numerator and B as the denominator", "A in
    the numerator, B in the denominator"; None for a role the question does not name."""
    found: dict[str, Optional[str]] = {"numerator": None, "denominator": None}
    spans: list[tuple[int, int]] = []
    for role in found:
        for pattern in (_ROLE_IS, _ROLE_AS):
            masked = "".join("\x00" if any(a <= i < b for a, b in spans) else c for i, c in enumerate(question))
            m = re.search(pattern.format(role=role), masked)
            if m and not any(a < m.end() and m.start() < b for a, b in spans):
                op = m.group("op")
                if pattern is _ROLE_AS:
                    op = _after_last_joint(op)
                found[role] = op.strip(" ,")
                spans.append((m.start(), m.end()))
                break
    if not spans:
        return None, None, question, -1
    out, pos = [], 0
    for a, b in sorted(spans):
        out.append(question[pos:a])
        pos = b
    out.append(question[pos:])
    return found["numerator"], found["denominator"], "".join(out), min(a for a, _b in spans)


def _after_last_joint(words: str) -> str:
    """The operand at the end of `words`: the longest ending after "with", "using", "taking", "and" or a comma that
    is a known operand, else the words after the last such joint."""
    joints = [m.end() for m in re.finditer(r"(?i)\b(?:with|using|taking|and|where)\s+|,\s*", words)]
    for k in joints:
        if not expr_unknowns(resolve(words[k:], {})):
            return words[k:]
    return words[joints[-1]:] if joints else words


_FRAMES = [
    (re.compile(r"(?i)\bhow many times (?:did|does|do|was|is|were|has|have|could|can) (?P<a>.+?) (?:cover|covers|covered) "
                r"(?P<b>.+?)(?=[?.,;]|$)"), "/", False),
    (re.compile(r"(?i)\bwhat multiple of (?P<b>.+?) (?:was|is|were|are) (?P<a>.+?)(?=[?.,;]|$)"), "/", False),
    (re.compile(r"(?i)\bhow much (?P<a>.+?) (?:did|does|do|was|is|were)\b[^?.;]*?\b(?:per|for (?:every|each)) (?:dollar|\$1) "
                r"of (?P<b>.+?)(?=[?.,;]|$)"), "/", False),
    (re.compile(r"(?i)\bdivide (?P<a>(?!(?:it|that|this|the result)\b).+?) by (?P<b>.+?)(?=[?.,;]|$)"), "/", False),
    (re.compile(r"(?i)\badd(?:ing)? (?:back )?(?P<b>(?!(?:it|that|this|the result)\b)[^;:?]+?) (?:back )?(?:to|onto) "
                r"(?P<a>.+?)(?=[?.,;]|$)"), "+", False),
    (re.compile(r"(?i)\b(?P<a>[^,;:?]+?) in excess of (?P<b>.+?)(?=[?.,;]|$)"), "-", True),
    (re.compile(r"(?i)\b(?P<a>[^,;:?]+?) (?:vs\.?|versus) (?P<b>[^,;:?]+?) ratio\b"), "/", True),
]
"""Arithmetic framed by words around its operands: "how many times did A cover B", "what multiple of B was A", "how
much A did it make for every dollar of B", "divide A by B", "add (back) B to A" (A + B), "A vs. B ratio" (A / B), "A in excess of B" (A - B);
True where the frame begins at A (the words before A stay)."""


def framed(text: str, defined: dict[str, Expr]) -> str:
    """`text` with the first frame of `_FRAMES` whose two parts end (A) and begin (B) with known operands written as
    "A op B" in its place."""
    for rx, op, infix in _FRAMES:
        m = rx.search(text)
        if not m:
            continue
        a, b = _part(m.group("a"), defined), _part(m.group("b"), defined)
        if a is None or b is None:
            continue
        start = m.start("a") + m.group("a").rfind(a) if infix else m.start()
        if op == "+":  # "add back B to A": both grouped, so the words before stay no part of A
            return f"{text[:start]}⟨{a}⟩ + ⟨{b}⟩{text[m.end():]}"
        return f"{text[:start]}{_grouped(a, text)} {op} {_grouped(b, text)}{text[m.end():]}"
    return text


def _part(words: str, defined: dict[str, Expr]) -> Optional[str]:
    """The known operand a frame's part names: its ending after a word that can open one ("Apple's FY2024 net
    income"), else its longest beginning ("its interest expense")."""
    found = _left_words(words, defined)
    if found is not None:
        return found
    w = words.split()
    return next((" ".join(w[:k]) for k in range(len(w), 0, -1) if _operand(" ".join(w[:k]), defined)), None)
