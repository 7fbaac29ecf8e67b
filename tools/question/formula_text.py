"""Arithmetic written in words, read into an expression: "total current assets divided by total current
liabilities", "(operating income + D&A) / interest expense", "the average of beginning and ending total assets".

    expression_of("net income over average total assets", defined={})  # -> (Expr, percent asked?)

Operators: + (plus, added to, together with, and in "the sum of"), - (minus, less, net of, subtract, "the difference between
A and B"), * (times, multiplied by, x), / (divided by, over, per dollar of, "the ratio of A to B", "as a percentage of");
parentheses group (a parenthesis without an operator inside is a gloss and is dropped). An operand is a line item
(`operand.resolve`), a metric of the catalog or one the question defines (written out in place), a number, or the
average of a balance. An operand that is none of these is kept as `Unknown`, so the answer can say which.
"""
from __future__ import annotations

import functools
import re
from typing import Callable, Optional

from finrag.state.formula import Average, BinOp, Expr, Item, Number, Unknown
from finrag.tools.question.operand import SUBJECT, name_key, resolve, year_number
from finrag.tools.question.operand import split_and as _split_and
from finrag.tools.question.role_operators import after, bare_to, distinct_parts, framed
from finrag.tools.vocabulary.dates import MONTH_NAMES

__all__ = ["MAX_TERMS", "defined_in_place", "expression_of", "rewrite", "split_operators"]

MAX_TERMS = 50
"""The most operands a formula may have: a longer one is said to be too long, not computed."""

_PERCENT_OF = r"(?:as an? (?:%|percent(?:age)?|share|proportion|fraction|portion|multiple)|as %|(?:in )?(?:%|percent(?:age)?)) of"
_OPS = re.compile(
    rf"(?i)(?P<div>\bdivided by\b|÷|(?<=\s)/(?=\s)|(?<=\w)/(?=\w)|(?<=[)⟩⟧])\s*/|/(?=\s*[(⟨])|(?<![\w-])over(?![\w-])(?!\s+(?:the\s+)?(?:fy\s*|fiscal\s+(?:year\s+)?|q[1-4]\s*)?'?\d{{2,4}}\b|\s+the\s+(?:past|last|next|prior|first|same|whole|full|fiscal|year|quarter|period|six|nine|three|twelve)\b)|\b{_PERCENT_OF}\b|\b(?:per|for (?:each|every)) (?:dollar|\$) of\b|\bdivide(?:d)? (?:it |that |this )?by\b|\b(?:relative|in relation|as a ratio) to\b(?!\s+(?:the\s+)?(?:(?:fy|fiscal|q[1-4]|year|quarter|period|prior|previous|same|last|first|second|third|fourth|six|nine|three|twelve)\b|'?\d)))"
    r"|(?P<mul>\bmultiplied by\b|(?<!\bin )(?<!\bas )\btimes\b|\*|×|(?<=\s)x(?=\s))"
    r"|(?P<add>\bplus\b|\+|\badded to\b|\btogether with\b)"
    r"|(?P<netof>,?\s*\bnet of\b(?!\s+\w+\s*(?:[,.;?)⟧⟩/*+]|\s[-–−]\s|$))(?!\s+(?:the\s+)?(?:current (?:portions?|"
    r"maturities)(?!\s+of\b)|accumulated|allowances?|unamortized|reserves?)\b))"
    r"|(?P<sub>\bminus\b|\bless\b(?! than)|\b(?:after|by|when|once)\s+(?:subtracting|deducting|removing|taking away)\b|"
    r"\bsubtract(?:ing|ed)?\b|\bdeducting\b|"
    r"(?<=\s)[-–−](?=\s))"
    r"|(?P<open>\(|⟨)|(?P<close>\)|⟩)")
_SYMBOL = {"div": "/", "mul": "*", "add": "+", "sub": "-", "netof": "~"}
"""'~' is "net of": a subtraction bound to the operand before it ("A less B, net of C" is A - (B - C)). "Net of" a
contra account ("debt, net of current portion", "PP&E, net of accumulated depreciation") is the row's own label; a
current portion that says what it is of ("cash, net of the current portion of long-term debt") is an operand."""
_SUM_OF = re.compile(r"(?i)\b(?:(?:the )?(?:sum|total) of|^(?:sum|add)(?: up)?|, (?:sum|add)(?: up)?)\s+(.+)$")
_DIFFERENCE = re.compile(r"(?i)\b(?:the )?(?:difference|gap) between\s+(.+)$")
_RATIO_OF = re.compile(r"(?i)\b(?:the )?(?:ratio|quotient) (?:of|between)\s+(.+)$")
_TAKE = re.compile(r"(?i)^\s*(?:take|start with|begin with)\s+(.+?)\s*,?\s+(?:and|then)\s+(divide|subtract|add|"
                   r"multiply)(?:\s+back)?\b(.*)$")


def split_operators(text: str) -> list[tuple[str, str]]:
    """The text as ('op', symbol) and ('phrase', words) tokens; a parenthesis (or bracket) with no operator inside is
    a gloss and is dropped; 'as a percentage of' is the division it means."""
    text = re.sub(r"\[[^\]]*\]", " ", text)
    while True:  # glosses: "(purchases of property and equipment)", "(loss)", "[from cash flow statement]"
        glossless = re.sub(r"\(([^()]*)\)", functools.partial(_group_or_gloss, text), text)
        if glossless == text:
            break
        text = glossless
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _OPS.finditer(text):
        out.append(("phrase", text[pos:m.start()]))
        kind = m.lastgroup or ""
        out.append(("op", _SYMBOL.get(kind, "(" if kind == "open" else ")")))
        pos = m.end()
    out.append(("phrase", text[pos:]))
    return [(k, v.strip() if k == "phrase" else v) for k, v in out if k == "op" or v.strip()]


_AFTER_OPERATOR = re.compile(r"(?i)(?:^|[-+*/×÷(⟨]|\b(?:divided by|over|plus|minus|less|times|multiplied by|net of|"
                             r"as|of|is|equals|:))\s*$")


def _group_or_gloss(text: str, m: re.Match[str]) -> str:
    """A parenthesis with an operator inside groups; one without is a gloss on the operand before it ("capital
    expenditures (purchases of PP&E)", dropped) unless it stands where an operand stands ("/ (FY2019 COGS)", kept
    as a group)."""
    if _OPS.search(m.group(1)):
        return m.group(0)
    return f"⟨{m.group(1)}⟩" if _AFTER_OPERATOR.search(text[:m.start()]) else f" ⟦{m.group(1)}⟧ "


def rewrite(text: str, defined: dict[str, Expr]) -> str:
    """Word forms written as operators, grouped by ⟨ ⟩ (which no gloss removal touches): "the ratio of A to B" and
    "the A-to-B ratio" -> "A / B", "the difference between A and B" -> "A - B", "the sum of A, B and C" and "add A
    and B" -> "A + B + C", "take A and divide by B" -> "A / B", "A, then divide by B" -> "⟨A⟩ / B", "A as a
    percentage of B" -> "⟨A⟩ / ⟨B⟩" (a percentage of applies to all that comes before it), " — A — " -> "(A)"."""
    text = re.sub(r"\s[—–]\s(.+?)\s[—–]\s", r" (\1) ", text)
    text = re.sub(r"(?i)\s*/\s*\((loss|losses|deficit)\)", r" (\1)", text)  # "earnings/(loss)": a label's sign, no division
    text = re.sub(r"\(([A-Za-z]+)\)/(?=[A-Za-z])", r"(\1) ", text)  # "net cash (used)/provided by": a label's alternatives
    text = re.sub(r"\b(\d{1,2})/(\d{1,2})/((?:19|20)\d\d)\b",  # "12/31/2023" is a date, never two divisions
                  lambda m: f"{MONTH_NAMES[int(m.group(1)) - 1]} {int(m.group(2))}, {m.group(3)}" if 1 <= int(m.group(1)) <= 12
                  else m.group(0), text)
    m = _VERSUS.search(text)
    if m:  # "revenue Q2 2025 vs Q2 2024, % change": the later over the earlier, less one
        text = f"{text[:m.start('a')]}⟨⟨{m.group('a')}⟩ / ⟨{m.group('b')}⟩ - 1⟩{text[m.end():]}"
    stepped = _steps(text, defined)
    if stepped is not None:
        return stepped
    m = _TAKE.match(text)
    if m:
        op = {"divide": "/", "subtract": "-", "add": "+", "multiply": "*"}[m.group(2).lower()]
        rest = re.sub(r"(?i)^\s*(?:it |that |the result |this )?(?:by|from|to)?\s*", "", m.group(3))
        text = f"{m.group(1)} {op} {rest}"
    text = _then(text)
    m = re.search(r"(?i),\s+(?:(?:all|altogether|in total|the (?:total|sum|result)|this|that)\s+)?(over|divided by|times|"
                  r"multiplied by)\s+", text)
    if m and re.search(r"(?i)\b(?:plus|minus|less|\+|-)\s", text[:m.start()]):  # "A plus B, over C": (A + B) / C
        text = f"⟨{text[:m.start()]}⟩ {m.group(1)} {text[m.end():]}"
    m = _RATIO_OF.search(text)
    if m:
        split = _split_two(m.group(1), defined, (" to ", " and "))
        if split:
            text = f"{text[:m.start()]}⟨{split[0]}⟩ / ⟨{split[1]}⟩"
    m = re.search(r"(?i)(?<![\w'’-])([\w&]+)-to-([\w&]+)(?![\w-])", text)
    if m and {name_key(m.group(1)), name_key(m.group(2))} <= set(defined):  # "debt-to-equity" of the question's debt
        text = f"{text[:m.start()]}⟨{m.group(1)}⟩ / ⟨{m.group(2)}⟩{text[m.end():]}"  # and equity
    m = _TO_RATIO.search(text)
    if m and not isinstance(resolve(m.group(1), defined), Unknown) and not isinstance(resolve(m.group(2), defined),
                                                                                      Unknown):
        text = f"{text[:m.start()]}⟨{m.group(1)}⟩ / ⟨{m.group(2)}⟩{text[m.end():]}"
    elif "⟨" not in text:
        text = bare_to(framed(text, defined), defined)
    text = after(text, defined)
    m = _DIFFERENCE.search(text)
    if m:
        split = _split_two(m.group(1), defined, (" and ",))
        if split:
            text = f"{text[:m.start()]}⟨{split[0]}⟩ - ⟨{split[1]}⟩"
    m = _SUM_OF.search(text)
    if m:
        tail = re.split(r"(?i)\s+(?=divided by\b|over\b|minus\b|less\b|times\b|multiplied by\b)|\s[/*-]\s|[?.;]\s",
                        m.group(1), maxsplit=1)
        listed = re.split(r"\s[—–]\s|:\s", tail[0])[-1]  # "the sum of its three debt lines — A, B and C": the list
        parts = _split_and(listed, defined, listed=True)
        if len(parts) >= 2:
            rest = m.group(1)[len(tail[0]):]
            text = f"{text[:m.start()]}⟨{' + '.join(parts)}⟩{rest}"
    m = re.search(rf"(?i)\s+{_PERCENT_OF}\s+", text)
    if m and "⟨" not in text[:m.start()]:
        lo, hi = _enclosing(text, m.start(), m.end())  # inside a parenthesis, all before it there, not before that
        text = f"{text[:lo]}⟨{text[lo:m.start()]}⟩ {m.group(0).strip()} ⟨{text[m.end():hi]}⟩{text[hi:]}"
    return text


def _enclosing(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the innermost parenthesis around text[start:end] ("margin (A as a share of B) for Q2": A and B), or
    the whole text."""
    depth, lo = 0, 0
    for i in range(start - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth < 0:
            lo = i + 1
            break
    else:
        return 0, len(text)
    depth = 0
    for j in range(end, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth < 0:
            return lo, j
    return 0, len(text)


_VERSUS = re.compile(r"(?i)(?P<a>(?:[^,.;:?(]|\.\d|\d,\d)+?)\s+(?:vs\.?|versus|compared (?:with|to)|against)\s+(?P<b>[^,.;:?()]+?)"
                     r"\s*[-–—,:;(]?\s*(?:in\s+|as\s+(?:a\s+)?)?(?:%|percent(?:age)?|pct)\s*(?:change|growth|increase|difference)\b\)?")
"""A measure at one period against another "% change" ("Tesla revenue Q2 2025 vs Q2 2024, % change")."""
_TO_RATIO = re.compile(r"(?i)(?<![\w'’])([\w&]+(?:[ -][\w&]+)?)-to-([\w&]+(?:[ -][\w&]+)?) ratio\b")
_THEN = re.compile(r"(?i),?\s+(?:and\s+)?then\s+(divide|subtract|add|multiply|express)\s+(?:it\s+|that\s+|this\s+|the "
                   r"result\s+)?(by|from|to|as an? (?:percentage|percent|share|fraction) of)?\s*")


_START = re.compile(r"(?i)^(.*?)\b(?:start(?:ing)? (?:from|with)|begin(?:ning)? with|take)\s+(.+)$")
_STEP = re.compile(r"(?i)^(?:and\s+)?(?:then\s+)?(subtract|deduct|less|minus|add(?: back)?|plus|divide(?: (?:it|that|the "
                   r"result))? by|multiply(?: (?:it|that|the result))? by)\s+(.+)$")
_STEP_OP = {"subtract": "-", "deduct": "-", "less": "-", "minus": "-", "add": "+", "add back": "+", "plus": "+"}


def _steps(text: str, defined: dict[str, Expr]) -> Optional[str]:
    """"Start from A, subtract B, add back C, then subtract D and E" -> "⟨⟨⟨A⟩ - ⟨B⟩⟩ + ⟨C⟩⟩ - ⟨D + E⟩" (each step
    applies to all before it); None when the text is no such chain."""
    m = _START.match(text)
    if not m:
        return None
    parts = [p.strip() for p in re.split(r",\s*(?=(?:and\s+)?(?:then\s+)?(?:subtract|deduct|less|minus|add|plus|"
                                          r"divide|multiply)\b)", m.group(2))]
    if len(parts) < 2:
        return None
    built = f"⟨{parts[0]}⟩"
    for part in parts[1:]:
        step = _STEP.match(part)
        if not step:
            return None
        verb = step.group(1).lower()
        op = "/" if verb.startswith("divide") else "*" if verb.startswith("multiply") else _STEP_OP[verb]
        tail = re.split(r"(?<=[.?])\s+", step.group(2), maxsplit=1)
        operands = _split_and(tail[0].rstrip(".?"), defined)
        if len(operands) == 1:  # "deduct capital expenditures and dividends paid": two operands, not one row
            operands = distinct_parts(operands[0], defined)
        built = f"⟨{built} {op} ⟨{' + '.join(operands)}⟩⟩" + (f" {tail[1]}" if len(tail) > 1 else "")
    return m.group(1) + built


def _then(text: str) -> str:
    """"A, then divide by B" -> "⟨A⟩ / B"; "A, then subtract B" -> "⟨A⟩ - B" (what came first is computed first)."""
    m = _THEN.search(text)
    if not m:
        return text
    verb, prep = m.group(1).lower(), (m.group(2) or "").lower()
    op = {"divide": "/", "subtract": "-", "add": "+", "multiply": "*"}.get(verb, "/")
    if verb == "express" and "of" not in prep:
        return text
    head = re.sub(r"(?i)^\s*(?:first\s+)?(?:compute|calculate|take|start with)\s+", "", text[:m.start()])
    return f"⟨{head}⟩ {op} {_then(text[m.end():])}"


def _split_two(text: str, defined: dict[str, Expr], seps: tuple[str, ...]) -> Optional[tuple[str, str]]:
    """`text` split once at a separator where the left part is an operand and the right begins with one."""
    low = text.lower()
    for sep in seps:
        start = 0
        while (k := low.find(sep, start)) >= 0:
            left, right = text[:k], text[k + len(sep):]
            if not isinstance(resolve(left, defined), Unknown) and _has_operand_prefix(right, defined):
                return left, right
            start = k + 1
    for sep in seps:  # a row finrag has no name for, then a known operand ("the ratio between net cash used in
        k = low.rfind(sep)  # investing activities and operating cash flow"): the filing's row and that operand
        if k > 0 and _row_words(text[:k]) and not isinstance(resolve(text[k + len(sep):], defined), Unknown):
            return text[:k], text[k + len(sep):]
    for sep in seps:  # a known operand, then a row finrag has no name for ("... to the number of employees")
        k = low.find(sep)
        right = re.split(r"[?.;,]", text[k + len(sep):])[0].strip() if k > 0 else ""
        if right and _row_words(right) and not isinstance(resolve(text[:k], defined), Unknown):
            return text[:k], re.sub(r"(?i)^\s*(?:the|a|an)\s+", "", text[k + len(sep):])
    return None


def _row_words(text: str) -> bool:
    """Could the words be a statement row's label (a few words, no digits, no words of a request)?"""
    words = text.split()
    return 0 < len(words) <= 8 and not re.search(r"(?i)\d|\b(?:what|how|which|is|was|are|were|compute|calculate|"
                                                  r"round|answer|please)\b|[?]", text)


def _has_operand_prefix(text: str, defined: dict[str, Expr]) -> bool:
    words = text.split()
    return any(not isinstance(resolve(" ".join(words[:k]), defined), Unknown) for k in range(len(words), 0, -1))


def expression_of(text: str, defined: Optional[dict[str, Expr]] = None) -> tuple[Optional[Expr], bool, int]:
    """(expression, 'as a percentage of' used, operands) of words; (None, False, 0) when they hold no operand or do
    not parse (unbalanced parentheses, an operator without an operand); more than `MAX_TERMS` operands are
    counted, not built."""
    defined = defined or {}
    text = rewrite(_roles_dated(" ".join(text.split())), defined)
    percent = bool(re.search(r"(?i)\b(?:as an? |in )?(?:%|percent(?:age)?|share) of\b", text))  # a fraction: a ratio
    tokens = defined_in_place(split_operators(text))
    years = [y for w in re.findall(r"(?i)\b(?:fy\s*)?(?:19|20)\d\d\b|\b[1-4][qh]\s*'?\d\d\b|\b(?:q[1-4]|h[12]|[369]m)\s*'\d\d\b|\bfy\s*'?\d\d\b", text)
             if (y := year_number(w)) is not None]
    anchor = max(years) if years else None
    n = sum(1 for k, _v in tokens if k == "phrase")
    if n == 0 or n > MAX_TERMS:
        return None, percent, n
    at = [0]
    last: list[Optional[Item | Unknown]] = [None]

    def peek() -> tuple[str, str]:
        return tokens[at[0]] if at[0] < len(tokens) else ("end", "")

    def level(operand: Callable[[], Optional[Expr]], ops: dict[str, str]) -> Optional[Expr]:
        """Operands of one precedence level joined left to right (`ops`: token -> operator; "~" is "net of": -)."""
        left = operand()
        while left is not None and peek()[0] == "op" and peek()[1] in ops:
            op = ops[tokens[at[0]][1]]
            at[0] += 1
            right = operand()
            if right is None:
                return None
            left = _amounts_over(op, left, right) if op in "+-" else BinOp(op=op, left=left, right=right)  # type: ignore[arg-type]
        return left

    def expr() -> Optional[Expr]:
        return level(term, {"+": "+", "-": "-"})

    def term() -> Optional[Expr]:
        return level(net, {"*": "*", "/": "/"})

    def net() -> Optional[Expr]:
        return level(factor, {"~": "-"})

    def factor() -> Optional[Expr]:
        kind, value = peek()
        at[0] += 1
        if (kind, value) == ("op", "("):
            inner = expr()
            if peek() != ("op", ")"):
                return None
            at[0] += 1
            return inner
        if kind == "phrase":  # a bare period ("at Dec 31, 2024") is the operand before it at that period
            got = resolve(value, {**defined, SUBJECT: last[0]} if last[0] is not None else defined, anchor)
            if isinstance(got, (Item, Unknown)):  # a row finrag has no name for is a subject too ("(X FY25 / FY24) - 1")
                last[0] = got.model_copy(update={"offset": 0})
            return got
        return None

    out = expr()
    if out is None or at[0] != len(tokens):
        return None, percent, n
    return out, percent, n


_END_ROLE = re.compile(r"(?i)(?<![\w-])(?:(?:period|quarter)[- ])?end(?:ing)? balance\b")
_YEAR_END_ROLE = re.compile(r"(?i)(?<!prior )(?<!previous )\b(?:fiscal )?year[- ]end balance\b")


def _roles_dated(text: str) -> str:
    """Two balances named by role, "end balance / year-end balance": the end balance is the asked period's, the
    year-end balance the fiscal year's end before it (a 10-Q's comparative balance), so "year-end" is read "prior" and
    "end" is "ending"."""
    if _END_ROLE.search(text) and _YEAR_END_ROLE.search(text):
        text = _YEAR_END_ROLE.sub("prior balance", text)
        text = _END_ROLE.sub("ending balance", text)
    return text


def _amount(e: Expr) -> bool:
    """Is the expression an amount (a line item, a balance's average, a row, or their sum), not a ratio or a number?"""
    if isinstance(e, (Item, Average, Unknown)):
        return True
    return isinstance(e, BinOp) and e.op in "+-" and _amount(e.left) and _amount(e.right)


def _amounts_over(op: str, left: Expr, right: Expr) -> Expr:
    """`left op right`, except that an amount plus (or less) a ratio of amounts, which measures nothing, is the sum
    over the ratio's divisor: "R&D + SG&A over total net sales" is (R&D + SG&A) / total net sales."""
    if _amount(left) and isinstance(right, BinOp) and right.op == "/" and _amount(right.left) and _amount(right.right):
        return BinOp(op="/", left=BinOp(op=op, left=left, right=right.left), right=right.right)  # type: ignore[arg-type]
    return BinOp(op=op, left=left, right=right)  # type: ignore[arg-type]


def defined_in_place(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """An operand followed by a parenthesis holding arithmetic is defined by it ("free cash flow (CFO minus capex)"):
    the parenthesis stands in its place."""
    out: list[tuple[str, str]] = []
    for i, tok in enumerate(tokens):
        if tok[0] == "phrase" and i + 1 < len(tokens) and tokens[i + 1] == ("op", "("):
            depth, j, arithmetic = 0, i + 1, False
            while j < len(tokens):
                depth += {"(": 1, ")": -1}.get(tokens[j][1], 0) if tokens[j][0] == "op" else 0
                arithmetic = arithmetic or (tokens[j][0] == "op" and tokens[j][1] in "+-*/~")
                if depth == 0:
                    break
                j += 1
            if arithmetic and i > 0 and tokens[i - 1][0] == "op" and tokens[i - 1][1] in "+-*/(":
                continue  # "... / free cash flow (CFO - capex)": the parenthesis is the operand
            if arithmetic and i == 0:
                continue
        out.append(tok)
    return out


def is_number(expr: Optional[Expr], value: float) -> bool:
    return isinstance(expr, Number) and expr.value == value
