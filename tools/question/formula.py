"""The formula a question asks for (`finrag.state.formula.Formula`): its own definition, the arithmetic it composes,
or a metric-like name it neither defines nor finrag knows.

    formula_of("Define working capital ratio as total current assets divided by total current liabilities. "
               "What is Boeing's FY2024 working capital ratio?")
    # Formula(name='working capital ratio', source='question', expression=... / ..., unit='ratio')

* **A definition** is "define X as ...", "X, defined/computed/calculated/measured as ...", "where X = ...",
  "X = ..." or "X := ..."; its words up to the end of the sentence are read into an expression
  (`formula_text.expression_of`). Several definitions may build on each other ("define EBITDA as ...; free cash
  flow as ...").
* **The asked measure** is the definition the question's head names ("What is the working capital ratio"), with
  the arithmetic the head adds to it ("EBITDA less capex"); without a definition, a head whose words are arithmetic
  over line items and catalog metrics ("free cash flow as a percentage of revenue") is composed.
* **Said, not computed**: an empty or circular definition, more than `MAX_TERMS` operands, an operand that is no
  line item (kept in the expression as `Unknown`, so the answer names it), and a name ending in ratio/score/
  index/multiple that is neither defined nor in the catalog ("hyper-growth efficiency score").
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.formula import BinOp, Expr, Formula, Item, Number, expr_text, expr_unknowns
from finrag.tools.answering.arithmetic import always_zero
from finrag.tools.answering.catalog import CATALOG
from finrag.tools.answering.line_items import LINE_ITEMS, item_in_question
from finrag.tools.question.formula_text import MAX_TERMS, expression_of, rewrite, split_operators
from finrag.tools.question.operand import name_key

__all__ = ["formula_of"]

_SENTENCE_END = r"(?=\.\s+[A-Z\[(]|\.\s*$|\?|;|\s+(?:and|then)\s+(?:what|compute|calculate|report|give)\b|\.\s+(?:what|"\
                r"round|answer|base|use|using|please|express|show|give|report)\b|$)"
_STOP = r"(?:what|which|how|is|was|are|were|the|a|an|its|their|compute|calculate|report|give|find|determine|estimate|"\
        r"of|for|in|during|and|as|by|here|please|us|me|tell|with|using|then|also|now|let|define|[\w&.-]+'s|[\w&.-]+s'|fy\s?\d+|q[1-4]|\d{4})"
_NAME = rf"(?<![\w'’&%/-])(?P<name>(?:(?!{_STOP}\b)[\w&%'’/-]+\s+){{0,5}}(?!{_STOP}\b)[\w&%'’/-]+)"
_DEFINE = [
    re.compile(rf"(?i)\b(?:define|defines|let's define|we define)\s+(?:the\s+|a\s+|an\s+)?(?:(?:company|firm)'s\s+)?{_NAME}\s+(?:as|to be|by)\s*:?\s+"
               rf"(?P<rhs>.*?){_SENTENCE_END}"),
    re.compile(rf"(?i){_NAME}(?:\s+(?:in|for|during) (?:fiscal |fy\s?)?(?:year )?['’]?\d{{2,4}})?\s*,?\s*(?:here\s+)?(?:which\s+|that\s+)?(?:is\s+|being\s+|as\s+)?(?:here\s+)?(?:defined|computed|calculated|measured|"
               rf"determined|derived)\s+(?:here\s+)?(?:as|by|using|with)\s*:?\s+(?:the\s+formula:?\s+)?(?P<rhs>.*?){_SENTENCE_END}"),
    re.compile(rf"(?i)\b(?:where|with|letting|let)\s+(?:the\s+)?{_NAME}\s*(?:=|:=|equals|is equal to|be|is|means|"
               rf"denotes)\s+(?P<rhs>.*?){_SENTENCE_END}"),
    re.compile(rf"(?i){_NAME}\s*(?::=|=)\s*(?P<rhs>.*?){_SENTENCE_END}"),
]
_NAMELESS = re.compile(rf"(?i)\b(?:calculated|computed|defined|measured) as\s+(?P<rhs>.*?){_SENTENCE_END}|"
                       rf"\busing the formula:?\s+(?P<rhs2>.*?){_SENTENCE_END}")
_METRIC_NOUN = re.compile(r"(?i)\b(?P<name>(?:(?!(?:what|is|was|the|a|an|its|their|of|for|in|and|s)\b)[\w&'’-]+\s+){1,4}"
                          r"(?:ratio|score|index|multiple|coefficient|quotient))\b")
_PERCENT = re.compile(r"(?i)\bas an? (?:percent(?:age)?|%)|\bin percent(?:age)?s?\b|\bexpress(?:ed)? (?:it )?as an? "
                      r"percent|\bpercent(?:age)?\b|%")


def formula_of(text: str) -> Optional[Formula]:
    """The question's formula (see the module docstring), or None when it defines, composes and names none."""
    q = " ".join(text.replace("’", "'").split())
    definitions, spans, problems = _definitions(q)
    if len(definitions) > 1:
        definitions, spans, problems = _definitions(q, {k: v[0] for k, v in definitions.items()})
    head = _head(q, spans)
    asks_percent = bool(_PERCENT.search(q))
    if definitions or problems:
        return _defined(q, head, definitions, spans, problems, asks_percent)
    return _composed(head, asks_percent) or _unknown(head)


def _definitions(q: str, known: Optional[dict[str, Expr]] = None
                 ) -> tuple[dict[str, tuple[Expr, str, bool, int]], list[tuple[int, int]], list[str]]:
    """{name key: (expression, definition as written, 'percentage of' used, operands)}, the spans they take,
    and the problems of those that cannot be read; `known`: names defined anywhere in the question (a second pass
    reads "CCC = DIO + DSO - DPO" with the DIO, DSO and DPO the question defines after it)."""
    out: dict[str, tuple[Expr, str, bool, int]] = {}
    spans: list[tuple[int, int]] = []
    problems: list[str] = []
    taken: list[tuple[int, int]] = []
    for rx in _DEFINE:
        for m in rx.finditer(q):
            if any(a <= m.start() < b or a < m.end() <= b for a, b in taken):
                continue
            name, rhs = m.group("name").strip(" ,"), m.group("rhs").strip()
            key = name_key(name)
            if not key:
                continue
            arithmetic = any(k == "op" and v in "+-*/" for k, v in split_operators(rhs))
            expr, percent, n = expression_of(rhs, {**{k: v[0] for k, v in out.items()}, **(known or {})})
            if re.search(r"\w", rhs) and not arithmetic and (expr is None or expr_unknowns(expr) or _is_line_item(key)):
                continue  # words, not arithmetic ("EBITDA as earnings before interest, taxes, ..."), or a gloss
            taken.append(m.span())
            spans.append((m.start(), m.end()))
            if not re.search(r"\w", rhs):
                problems.append(f"the question's definition of {name} is empty")
                continue
            if re.search(rf"\b{re.escape(key)}\b", name_key(rhs)):
                problems.append(f"the question defines {name} in terms of itself")
                continue
            if n > MAX_TERMS:
                problems.append(f"the question's definition of {name} has {n} terms, more than the {MAX_TERMS} "
                                "finrag computes")
                continue
            if expr is None:
                problems.append(f"the question's definition of {name} ('{rhs[:120]}') could not be read as arithmetic")
                continue
            out[key] = (expr, rhs, percent, n)
    if not out and not problems:
        m = _NAMELESS.search(q)
        if m:
            rhs = (m.group("rhs") or m.group("rhs2") or "").strip()
            expr, percent, n = expression_of(rhs, {})
            if expr is not None and n >= 2 and 0 < n <= MAX_TERMS:
                out[""] = (expr, rhs, percent, n)
                spans.append(m.span())
    return out, spans, problems


def _is_line_item(key: str) -> bool:
    return any(key == name_key(spec.display) for spec in LINE_ITEMS.values())


def _head(q: str, spans: list[tuple[int, int]]) -> str:
    """The question without its definitions."""
    out, pos = [], 0
    for a, b in sorted(spans):
        out.append(q[pos:a])
        pos = max(pos, b)
    out.append(q[pos:])
    return " ".join(" ".join(out).split())


def _defined(q: str, head: str, definitions: dict[str, tuple[Expr, str, bool, int]], spans: list[tuple[int, int]],
             problems: list[str], asks_percent: bool) -> Formula:
    """The asked measure when the question defines one (or tried to)."""
    if problems:
        name = next(iter(definitions), "") or _asked_name(head) or "the metric"
        return Formula(name=name, source="question", expression=None, problems=problems)
    exprs = {k: v[0] for k, v in definitions.items()}
    # the head's arithmetic over the defined names ("EBITDA less capex"), else the definition it names, else the last
    composed = _arithmetic(head, exprs)
    named = [k for k in definitions if k and re.search(rf"(?i)\b{re.escape(k)}\b", name_key(head))]
    if composed is not None:
        expr, name, percent = composed
        rhs = "; ".join(f"{k or name} = {v[1]}" for k, v in definitions.items())
    else:
        key = named[-1] if named else list(definitions)[-1]
        expr, rhs, percent, _n = definitions[key]
        name = key or _asked_name(head) or "the metric"
    times_100 = _times_100(expr)
    unit = _unit(name, expr, asks_percent or percent, times_100)
    said = [f"'{u}' is not a line item finrag can read from a filing" for u in expr_unknowns(expr)]
    return Formula(name=name, source="question", expression=expr, definition=rhs, unit=unit, times_100=times_100,
                   problems=said + _zero_divisors(expr))


def _zero_divisors(expr: Expr) -> list[str]:
    """Divisions by a divisor that is zero whatever the filing says: the number 0, or A - A."""
    out: list[str] = []
    if isinstance(expr, BinOp):
        right = expr.right
        if expr.op == "/" and always_zero(right):
            out.append(f"the definition divides by {expr_text(right)}, which is zero whatever the filing reports")
        out += _zero_divisors(expr.left) + _zero_divisors(expr.right)
    return out


def _arithmetic(head: str, defined: dict[str, Expr]) -> Optional[tuple[Expr, str, bool]]:
    """Arithmetic the head writes over known operands: the span from its first operand to its last, when every
    operand between resolves (else None: "over the past three years" is no division)."""
    tokens = split_operators(rewrite(head, defined))
    if not any(k == "op" and v in "+-*/" for k, v in tokens):
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
    start = _operand_suffix(first, defined)
    end = _operand_prefix(last, defined)
    if start is None or end is None:
        return None
    tokens = list(tokens)
    tokens[phrases[0]], tokens[phrases[-1]] = ("phrase", start), ("phrase", end)
    text = " ".join({"(": "⟨", ")": "⟩"}.get(v, v) if k == "op" else v for k, v in tokens)
    expr, percent, n = expression_of(text, defined)
    if expr is None or expr_unknowns(expr) or n < 2:
        return None
    return expr, " ".join(text.replace("⟨ ", "(").replace(" ⟩", ")").split()), percent


def _operand_suffix(phrase: str, defined: dict[str, Expr]) -> Optional[str]:
    """The shortest ending of `phrase` that is an operand ("What is Tesla's 2024 EBITDA" -> "EBITDA")."""
    from finrag.tools.question.operand import resolve

    words = phrase.split()
    for k in range(len(words) - 1, -1, -1):  # the shortest ending that is one
        cand = " ".join(words[k:])
        if not expr_unknowns(resolve(cand, defined)):
            return cand
    return None


def _operand_prefix(phrase: str, defined: dict[str, Expr]) -> Optional[str]:
    """The shortest beginning of `phrase` that is an operand ("capex for fiscal 2024?" -> "capex")."""
    from finrag.tools.question.operand import resolve

    words = phrase.split()
    for k in range(1, len(words) + 1):  # the shortest beginning that is one
        cand = " ".join(words[:k])
        if not expr_unknowns(resolve(cand, defined)):
            return cand
    return None


def _composed(head: str, asks_percent: bool) -> Optional[Formula]:
    """Arithmetic the head writes without a definition, when it composes more than one named metric would: a catalog
    metric inside ("EBITDA less capex"), two operators, or no catalog metric named at all."""
    found = _arithmetic(head, {})
    if found is None:
        return None
    expr, name, percent = found
    names_metric = any(re.search(p, head, re.I) for e in CATALOG.values() for p in e.names)
    operators = sum(1 for k, v in split_operators(name) if k == "op" and v in "+-*/")
    uses_metric = _has_metric(expr)
    if names_metric and not uses_metric and operators < 2:
        return None  # "operating income as a % of revenue": the catalog's operating margin
    times_100 = _times_100(expr)
    return Formula(name=name, source="composed", expression=expr, definition=name,
                   unit=_unit(name, expr, asks_percent or percent, times_100), times_100=times_100)


def _has_metric(expr: Expr) -> bool:
    """Does the expression hold a catalog metric written out (a subtree equal to a catalog expression)?"""
    targets = [e.expression for e in CATALOG.values() if not isinstance(e.expression, Item)]

    def walk(e: Expr) -> bool:
        if any(e == t for t in targets):
            return True
        return isinstance(e, BinOp) and (walk(e.left) or walk(e.right))

    return walk(expr)


def _unknown(head: str) -> Optional[Formula]:
    """A ratio, score, index or multiple the head asks for that the catalog does not know and no line item is."""
    if not re.match(r"(?i)^\s*(?:what|how|calculate|compute|give|report|estimate|find|determine|tell)\b", head):
        return None
    m = _METRIC_NOUN.search(head)
    if not m or any(re.search(p, head, re.I) for e in CATALOG.values() for p in e.names):
        return None
    name = _bare_name(m.group("name"))
    if len(name.split()) < 2 or item_in_question(name):
        return None
    return Formula(name=name, source="unknown", expression=None,
                   problems=[f"'{name}' is not a metric finrag knows, and the question does not define it"])


def _asked_name(head: str) -> str:
    m = _METRIC_NOUN.search(head)
    return _bare_name(m.group("name")) if m else ""


def _bare_name(name: str) -> str:
    """A metric's name without the company's possessive or a period before it ("Meta's 2024 efficiency score")."""
    words = name.split()
    cut = max((i + 1 for i, w in enumerate(words) if re.search(r"(?i)'s?$|s'$|^(?:fy)?\d{2,4}$|^q[1-4]$", w)), default=0)
    return " ".join(words[cut:]) or name.strip()


def _times_100(expr: Expr) -> bool:
    return isinstance(expr, BinOp) and expr.op == "*" and any(
        isinstance(x, Number) and x.value == 100 for x in (expr.left, expr.right))


def _unit(name: str, expr: Expr, percent: bool, times_100: bool) -> str:
    """percent when asked (or the expression multiplies by 100, or the name is a margin, rate or yield); days for a
    days measure; a ratio for a division; else an amount."""
    low = name.lower()
    if _has_number(expr, (365.0, 360.0)) or re.search(r"\bdays\b", low):
        return "days"
    if percent or times_100 or re.search(r"\b(?:margin|rate|yield|percentage|%)\b", low):
        return "percent"
    return "ratio" if isinstance(expr, BinOp) and expr.op == "/" else "currency"


def _has_number(expr: Expr, values: tuple[float, ...]) -> bool:
    if isinstance(expr, Number):
        return expr.value in values
    return isinstance(expr, BinOp) and (_has_number(expr.left, values) or _has_number(expr.right, values))
