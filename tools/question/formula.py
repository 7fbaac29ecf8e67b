"""The formula a question asks for (`finrag.state.formula.Formula`): its own definition, the arithmetic it composes,
or a metric-like name it neither defines nor finrag knows.

    formula_of("Define working capital ratio as total current assets divided by total current liabilities. "
               "What is Boeing's FY2024 working capital ratio?")
    # Formula(name='working capital ratio', source='question', expression=... / ..., unit='ratio')

* **A definition** is "define/read/treat X as ...", "X, defined/computed/calculated/measured as ...", "X is given by /
  worked out as ...", "where X = ...", "X = ...", "X := ...", "X: ..." or, over arithmetic, "X here means / i.e. ..."; its words up to the end of the sentence are read into an expression
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

from finrag.state.formula import (
    Average,
    BinOp,
    Call,
    Expr,
    Formula,
    Item,
    Number,
    Unknown,
    expr_unknowns,
)
from finrag.tools.question.asks import aggregate_of, definition_head
from finrag.tools.question.contradiction import clash, clashes, form_clash
from finrag.tools.question.expr_checks import (
    dated,
    divides,
    has_metric,
    part_share,
    unit_of,
    zero_divisors,
)
from finrag.tools.question.expr_checks import times_100 as multiplies_by_100
from finrag.tools.question.format_tail import strip_format, unit_asked
from finrag.tools.question.formula_text import MAX_TERMS, expression_of, rewrite, split_operators
from finrag.tools.question.head_arithmetic import arithmetic, label_like
from finrag.tools.question.listed import summed_list
from finrag.tools.question.operand import SUBJECT, clean_phrase, name_key, resolve, shifted
from finrag.tools.question.restated import restated
from finrag.tools.question.role_operators import fraction_roles
from finrag.tools.question.unknown_metric import (
    asked_name,
    bare_name,
    catalog_named,
    unknown_metric,
)
from finrag.tools.vocabulary.catalog import CATALOG, parse_formula
from finrag.tools.vocabulary.dates import MONTH_WORDS
from finrag.tools.vocabulary.line_items import LINE_ITEMS, item_in_question

__all__ = ["formula_of", "strip_format"]

_SENTENCE_END = r"(?=\.\s+[A-Z\[(\d]|\.\s*$|\?|;(?!\s*(?:then\s+)?(?:plus|minus|less|add|subtract|deduct|multiply|divide|times)\b)|\s+(?:and|then)\s+(?:what|compute|calculate|report|give)\b|\.\s+(?:what|"\
                r"round|answer|base|use|using|please|express|show|give|report)\b|,\s*where\b|,?\s+and\s+(?:the\s+)?"\
                r"(?:(?!and\b)[\w&'-]+\s+){0,4}?(?!and\b)[\w&'-]+\s*(?:=|:=|\bis\b|\bare\b|\bmeans\b|\bas\b(?!\s+(?:a|an)\s))|"\
                r"(?:,|\s+(?:with|where))\s+(?:the\s+)?(?:[\w&'-]+\s+){0,2}?[\w&'-]+\s*:?=\s|$)"
_STOP = r"(?:what|which|how|is|was|are|were|the|a|an|its|their|compute|calculate|report|give|find|determine|estimate|"\
        r"of|for|in|during|and|as|by|here|where|please|us|me|tell|with|using|then|also|now|let|define|[\w&.-]+'s|[\w&.-]+s'|fy\s?\d+|q[1-4]|\d{4})"
_NAME = rf"(?<![\w'’&%/-])(?P<name>(?:(?!{_STOP}\b)[\w&%'’/-]+\s+){{0,5}}(?!{_STOP}\b)[\w&%'’/-]+)"
_POSSESSOR = r"(?:(?:[\w&.-]+\s+){0,3}?[\w&.-]+(?:'s|s')\s+)?"
"""Whose measure it is ("Boeing's", "The Coca-Cola Company's"): the same slot in every way a definition is
introduced ("Define Boeing's X as", "Let Boeing's X be", "where Boeing's X ="); the name is what follows."""
_DEFINED_AS = r"(?:is|be|being)\s+(?:defined|computed|calculated|measured)\s+as"
"""The copula a definition's verb may take after "where X" / "let X" ("where capex is defined as A", "let A be
computed as B"): the same definition as "where capex = A"."""
_A_PERIOD = r"(?:the\s+)?(?:fy\s*|fiscal\s+|q[1-4]\b|[1-4]q|[12]h|h[12]\b|(?:first|second|third|fourth)\s+(?:quarter|half)|" \
            rf"(?:three|six|nine|twelve|3|6|9|12)[\s-]+months?|(?:19|20)\d\d|{MONTH_WORDS}\.?\s+\d)"  # "for Q2 2025:", not "for Amazon"
_NAME_PERIOD = r"(?:,?\s+(?:for|in|during|at|as of|on|over)\s+(?:(?!\b(?:as|by|where)\b)[^=?.;:]){0,40}?" \
               r"(?:(?:19|20)\d\d|fy\s?'?\d\d|q[1-4]|[1-4]q|[12]h|h[12]|quarter|year|months|half|ytd)\b" \
               r"(?:(?!\b(?:as|by|where)\b)[^=?.;:]){0,30}?,?)?"
"""The period a defined name may carry before its definition ("Define Amazon's capex coverage for 2024 as ...", "Define
X at the end of fiscal 2024 as ..."): it dates the question, it is no part of the name."""
_COMMA_PERIOD = r",\s+(?=[^=?.;:]{0,80}?\b(?:19|20)\d\d\b[^=?.;:]{0,40}:)(?:the\s+)?(?:first|second|third|fourth|last|three|six|" \
                r"nine|twelve|fiscal|fy|full|q[1-4]|h[12])\b[^=?.;:]{0,80}?"
"""A period after a comma before a defined name's colon ("X growth, first six months of 2025 over 2024: A / B - 1")."""
_DEFINE = [
    re.compile(rf"(?i)\b(?P<verb>define|defines|let's define|we define|compute|calculate|read|treat|take|count|consider|"
               rf"understand|reckon|work out)\s+(?:the\s+|a\s+|an\s+)?"
               rf"{_POSSESSOR}(?:(?:fy\s?|fiscal\s+(?:year\s+)?|(?:q[1-4]|h[12]|[369]m)\s*(?:fy\s?)?)?'?(?:\d{{4}}|\d\d)\s+)?{_NAME}{_NAME_PERIOD}\s+(?:as|to be|by)\s*:?\s+"
               rf"(?!an?\s+(?:percent|percentage|share|fraction|ratio)\b)(?P<rhs>.*?){_SENTENCE_END}"),
    re.compile(rf"(?i){_NAME}(?:\s+(?:in|for|during|of|at|as of)\s+(?:(?!\bwhere\b)[^?.;]){{1,60}}?)?\s*,?\s*(?:here\s+)?(?:which\s+|that\s+)?(?:is\s+|being\s+|as\s+)?(?:here\s+)?(?:defined|computed|calculated|measured|"
               rf"determined|derived)\s+(?:here\s+)?(?:as|by|using|with)\s*:?\s+(?:the\s+formula:?\s+)?(?P<rhs>.*?){_SENTENCE_END}"),
    re.compile(rf"(?i)\b(?:where|with|letting|let)\s+(?:the\s+)?{_POSSESSOR}{_NAME}(?:\s+here)?\s*(?:=|:=|equals|is equal to|{_DEFINED_AS}|be|is|"
               rf"means|denotes)\s+(?P<rhs>.*?){_SENTENCE_END}"),
    re.compile(rf"(?i){_NAME}(?:\s+(?:for|in|at|as of|during)\s+(?:(?!,\s*where\b)[^=?.;:]){{1,40}}?|(?<!\bvs)(?<!\bversus)(?<!\bthan)(?<!\bfrom)(?<!\bto)\s+{_A_PERIOD}[\w']*)?(?:\s+here)?\s*(?::=|=)\s*"
               rf"(?P<rhs>.*?){_SENTENCE_END}"),
    re.compile(rf"(?i)(?:^|(?<=[.?!]\s)){_NAME}\s+is\s+(?P<rhs>[^:]*?){_SENTENCE_END}"),
    re.compile(rf"(?i){_NAME}(?:\s+(?:for|in|at|as of|during)\s+{_A_PERIOD}[^=?.;:]{{0,30}}?|(?<!\bvs)(?<!\bversus)(?<!\bthan)"
               rf"(?<!\bfrom)(?<!\bto)\s+{_A_PERIOD}[\w']*|{_COMMA_PERIOD})?(?:\s+(?:using|with|on|based on)\s+(?:an?\s+|the\s+)?"
               rf"(?:average|avg\.?|mean|ending|year-end|beginning)\s+[\w\s'’-]{{1,30}}?)?\s*:\s+(?P<rhs>[^:]*?)"
               rf"{_SENTENCE_END}"),
]
_INTRODUCED = re.compile(
    rf"(?i){_NAME}\s*,?\s*(?:here\s+)?(?:(?:is|are)\s+)?(?:here\s+)?(?:(?:given|worked out|arrived at|obtained|taken|"
    rf"understood|reckoned|built|formed)\s+(?:as|by|using|from|to be)|which\s+(?:we|i|you|they|analysts)\s+(?:take|"
    rf"treat|read|count|compute|calculate|define|work out|reckon|measure)\s+(?:to be|as))\s*:?\s+(?P<rhs>.*?){_SENTENCE_END}")
"""A definition introduced by a verb other than "defined as" ("X is given by A", "X, which we take to be A", "X, worked
out as A"): as explicit as "X, defined as A" (words that are no arithmetic are said)."""
_GLOSSED = re.compile(
    rf"(?i){_NAME}\s*,?\s*(?:here\s+)?(?:(?:is|are)\s+)?(?:here\s+)?(?:means|denotes|stands for|i\.e\.,?|that is,?)"
    rf"\s*:?\s+(?P<rhs>.*?){_SENTENCE_END}")
"""A definition written as a gloss ("X here means A", "X, i.e. A", "X stands for A"): read as one only when its words
are arithmetic (like "where X = ..."); other words after "means" are no definition, never said as a broken one."""
_DEFINE.insert(len(_DEFINE) - 2, _INTRODUCED)
_DEFINE.insert(len(_DEFINE) - 2, _GLOSSED)
_DEFINE.insert(1, re.compile(rf"(?i)(?<=,)\s+and\s+(?:the\s+)?{_NAME}\s+as\s*:?\s+(?P<rhs>.*?){_SENTENCE_END}"))
"""A second definition in a "define" list ("Define term debt as ..., and cash-to-debt as ...")."""
_PERIOD_NAME = re.compile(r"(?:(?:the|this|that|current|prior|fiscal)\s+)?(?:quarter|year|period|month|half|ytd)")
"""A period word before a colon ("June 2025 quarter: A / B") names no measure: the definition is the asked one's."""
_PERIOD_WORDS_NAME = re.compile(rf"(?i)(?:(?:the|this|that|current|prior|previous|last|same|next|first|second|third|fourth|"
                                rf"fiscal|vs|versus|three|six|nine|twelve|months?|ended|ending|year|quarter|period|half|ytd|"
                                rf"q[1-4]|[1-4]q|h[12]|fy\d*|\d+|{MONTH_WORDS})\s*)+")
"""A name made of period and comparison words only ("first half", "vs three months ended june 28"): no measure's."""
_READ_AS = {"read", "treat", "take", "count", "consider", "understand", "reckon", "work out"}
"""Verbs that introduce a definition only as "<verb> X as A" (never "by": "take cash generated by ...")."""
_EXPLICIT = (0, 1, 2, _DEFINE.index(_INTRODUCED))
"""The patterns that say outright that a definition follows ("define X as", "X, defined as"): words there that are
not arithmetic are said, not skipped (unless they name what finrag already knows)."""
_ANONYMOUS = {"it", "this", "that", "this metric", "this ratio", "the metric", "the ratio", "metric", "ratio"}
_NAMELESS = re.compile(rf"(?i)\b(?:calculated|computed|defined|measured) as\s+(?P<rhs>.*?){_SENTENCE_END}|"
                       rf"\busing the formula:?\s+(?P<rhs2>.*?){_SENTENCE_END}|"
                       rf"\b(?:take|treat|count|consider|think of|regard|read|measure|compute|calculate|work out|figure|"
                       rf"define|understand)\s+(?:it|this|that|(?:this|the|that)\s+(?:metric|measure|figure|number|ratio|"
                       rf"amount|total))\s+(?:as|to be|to mean)\s*:?\s+(?!an?\s+(?:percent|percentage|share|fraction|ratio|"
                       rf"multiple|decimal|whole)\b|(?:percent|%|days|times|basis)\b)(?P<rhs5>.*?){_SENTENCE_END}|"
                       rf"(?:^|(?<=[.?!:]\s))(?P<rhs3>(?:take|start(?:ing)? (?:from|with)|begin(?:ning)? with)\s+.*?)"
                       rf"{_SENTENCE_END}|\?\s*:?=\s*(?P<rhs4>.*?){_SENTENCE_END}")
"""Arithmetic that names no measure: "calculated as A / B", "using the formula A - B", a pronoun that stands for the
asked measure given its arithmetic ("take it as A + B", "count this as A - B", "treat the ratio as A / B"; not "express
it as a percentage": a unit is no arithmetic), a sentence of steps "Take A, subtract B, then subtract C", or "? = A / B
- 1" after the question (the asked measure, computed in that order)."""
_PERCENT = re.compile(r"(?i)\bas an? (?:percent(?:age)?|%)|\bin percent(?:age)?s?\b|\bexpress(?:ed)? (?:it )?as an? "
                      r"percent|\bpercent(?:age)?\b|\bpct\b|\bper ?cent\b|%")
"""A percentage asked ("as a share of" asks one too; "as a fraction of" asks a ratio)."""


def formula_of(text: str) -> Optional[Formula]:
    """The question's formula (see the module docstring), or None when it defines, composes and names none."""
    q = restated(summed_list(" ".join(text.replace("’", "'").split())))
    q = re.sub(r"(?i)\bvs\.", "vs", q)  # "vs." ends no sentence
    q = _FORM_TAIL.sub("?", q)  # "acme buybacks - yes or no?": the dash sets off the form asked, no minus
    change = bool(_CHANGE.search(q)) or aggregate_of(definition_head(q)) == "change"
    q = _SAME.sub("", q)  # "..., minus the same ratio in 2023": the change is asked, the clause read
    q, missing = _roles_defined(q)
    if missing is not None:
        return missing
    subject = _subject(q)
    definitions, spans, problems = _definitions(q, subject)
    if len(definitions) > 1:
        definitions, spans, problems = _definitions(q, {**subject, **{k: v[0] for k, v in definitions.items()}})
    head = _head(q, spans)
    asked = next((k for k in definitions if k and re.search(rf"\b{re.escape(k)}\b", name_key(head))), "")
    twice = clashes({k: (v[0], v[1]) for k, v in definitions.items()}, asked)
    problems = [*problems, twice] if twice else problems
    asks_percent = bool(_PERCENT.search(q))
    if definitions or problems:
        found: Optional[Formula] = _defined(q, head, definitions, spans, problems, asks_percent, subject)
    else:
        found = _composed(head, asks_percent, subject) or unknown_metric(head)
    if found is None and _DICTATED.search(q):
        return Formula(name="the answer the question dictates", source="unknown", expression=None,
                       problems=["the question tells finrag to ignore the filing or its instructions and state a given "
                                 "answer; finrag states only what the filing supports"])
    said = form_clash(q)  # "as a percentage, not as a percentage"; "in USD millions as a percentage"
    if said is not None:
        return Formula(name=(found.name if found else "") or asked_name(head) or "the asked measure", source="unknown",
                       expression=None, problems=[said])
    found = unit_asked(q, found) if found is not None else None  # "Answer in days", "in basis points"
    return _as_change(found) if change and found is not None else found


_FORM_TAIL = re.compile(r"(?i)\s*[-–—:,]?\s*\b(?:yes or no|yes/no|y/n)\b\s*\??\s*$")
"""A tail that asks the answer's form, set off by a dash or a colon ("... in 2021 - yes or no?"): no operand."""
_CHANGE = re.compile(r"(?i)\bby how many percentage points\b|\bchange in percentage points\b|\bpercentage[- ]points? "
                     r"change\b|\bchange\b[^.?]*\bin (?:percentage )?points\b|\b(?:(?:19|20)\d\d|current) minus "
                     r"(?:(?:19|20)\d\d|prior)\b|\b(?:minus|less|subtract(?:ing)?) the same (?:ratio|metric|measure|"
                     r"margin|figure|percentage|number)\b|\bpp\b(?!&)")
"""The question asks how its metric changed between two periods (in percentage points for a percentage)."""
_SAME = re.compile(r"(?i),?\s*(?:and\s+)?(?:then\s+)?(?:minus|less|subtract(?:ing)?)\s+the same\s+(?:ratio|metric|measure|"
                   r"margin|figure|percentage|number)\b[^.?;]*")


def _roles_defined(q: str) -> tuple[str, Optional[Formula]]:
    """The question with "where the numerator is A and the denominator is B" (or "with A as the numerator ...")
    written as the definition it is: "Define <the asked name> as (A) / (B)."; a numerator left unnamed is the operand
    the asked name begins with ("EBITDA interest coverage ..., the denominator is interest expense"). A formula that
    says what is missing when the question names one role and leaves the other to nothing."""
    numerator, denominator, rest, at = fraction_roles(q)
    if at < 0:
        return q, None
    sentence = re.split(r"[.?;:]\s+", rest[:at].strip())[-1]
    sentence = re.sub(r"(?i)^\s*(?:(?:what|how)\s+(?:is|was|were|are)|define|compute|calculate|find|give|report|"
                      r"determine)\s+", "", sentence)
    sentence = re.sub(r"(?i),?\s+(?:(?:is\s+)?(?:defined|computed|calculated|measured)\s+)?as\s+(?:an?\s+|the\s+)?"
                      r"(?:ratio|fraction|quotient)(?:\s+with)?\s*$", "", sentence)  # "X, defined as a ratio with ..."
    name = bare_name(re.sub(r"(?i)\s+(?:for|in|of|at|during|as of|over|from)\s+.*$", "", sentence).strip(" ,:;")).strip(" ,:;") or \
        "the ratio"
    words = name.split()
    if numerator is None:
        numerator = next((" ".join(words[:k]) for k in range(len(words) - 1, 0, -1)
                          if not expr_unknowns(resolve(" ".join(words[:k]), {}))), None)
    if numerator is None or denominator is None:
        role = "numerator" if numerator is None else "denominator"
        return q, Formula(name=name, source="question", expression=None,
                          problems=[f"the question names the {'denominator' if role == 'numerator' else 'numerator'} "
                                    f"of {name} but not its {role}"])
    step = _ROLE_STEP.match(rest[at:])  # "numerator: A; denominator: B; multiply by 365": a step on the fraction
    scale = f" {'*' if step.group(1).lower().startswith('m') else '/'} {step.group(2)}" if step else ""
    if step:
        rest = rest[:at] + " " + rest[at + step.end():]
    if _arithmetic_in(re.split(r"(?i),?\s+(?:where|with|in which)\b", sentence)[0]):  # "stock-based comp as a share of operating cash flow. Numerator = ..., denominator = ...":
        # the head writes the same ratio in short words; the roles spell its operands out and define it
        return f"{rest[:at].rstrip()} Define it as ({numerator}) / ({denominator}){scale}. {rest[at:].strip()}", None
    return f"{rest.rstrip()} Define {name} as ({numerator}) / ({denominator}){scale}.", None


_ROLE_STEP = re.compile(r"(?i)^[\s,;:—–-]*(?:and\s+)?(?:then\s+)?(multiply|multiplied|divide|divided)(?:\s+(?:it|that|this|the "
                        r"(?:ratio|result)))?\s+by\s+(\d+(?:\.\d+)?)\b")


def _subject(q: str) -> dict[str, Expr]:
    """The measure bare period operands refer to ("(current - prior) / prior" of "total revenues"): the first line item
    the question names, as `operand.SUBJECT`; {} when it names none."""
    text = re.sub(r"(?i)\baverage\b", " ", q)
    items = [(at, item) for at, item in item_in_question(text)  # "deferred revenue" names no revenue
             if not any(re.search(x + r"\W*$", text[max(0, at - 24):at], re.I) for x in LINE_ITEMS[item].exclude)]
    return {SUBJECT: Item(item=items[0][1])} if items else {}


def _as_change(formula: Formula) -> Formula:
    """The formula's change from the year before to the asked period: in percentage points for a percentage or a
    ratio, in percent for an amount ("year-over-year growth of that free cash flow")."""
    if formula.expression is None or formula.problems or dated(formula.expression):
        return formula
    now, prior = formula.expression, shifted(formula.expression, -1)
    if formula.unit == "currency":
        growth = BinOp(op="*", left=BinOp(op="/", left=BinOp(op="-", left=now, right=prior),
                                            right=Call(fn="abs", args=[prior])), right=Number(value=100.0))
        return formula.model_copy(update={"expression": growth, "unit": "percent", "times_100": True,
                                          "name": f"growth of {formula.name} from the year before"})
    return formula.model_copy(update={"expression": BinOp(op="-", left=now, right=prior),
                                      "name": f"change in {formula.name} from the year before"})


def _definitions(q: str, known: Optional[dict[str, Expr]] = None
                 ) -> tuple[dict[str, tuple[Expr, str, bool, int]], list[tuple[int, int]], list[str]]:
    """{name key: (expression, definition as written, 'percentage of' used, operands)}, the spans they take,
    and the problems of those that cannot be read; `known`: names defined anywhere in the question (a second pass
    reads "CCC = DIO + DSO - DPO" with the DIO, DSO and DPO the question defines after it)."""
    out: dict[str, tuple[Expr, str, bool, int]] = {}
    spans: list[tuple[int, int]] = []
    problems: list[str] = []
    taken: list[tuple[int, int]] = []
    steps: list[str] = []
    for index, rx in enumerate(_DEFINE):
        for m in rx.finditer(q):
            if any(a <= m.start() < b or a < m.end() <= b for a, b in taken):
                continue
            name, rhs = m.group("name").strip(" ,"), strip_format(m.group("rhs"))
            if index == len(_DEFINE) - 1 and m.end("name") < m.start("rhs") - 3 and re.search(r"(?:^|\s)[A-Z][\w&.'’-]*$", name):
                continue  # "cost of debt for Amazon in 2024:", "mix at Boeing in 2024:": a period follows no company
            if index == 0 and m.group("verb").lower() in _READ_AS and re.search(r"(?i)\bby\b", q[m.end("name"):m.start("rhs")]):
                continue  # "take cash generated by operating activities, subtract ...": steps, no "X by Y" definition
            if _PERIOD_WORDS_NAME.fullmatch(name_key(bare_name(name))) and not _PERIOD_NAME.fullmatch(name_key(name)):
                continue  # "first-half 2025:", "same quarter last year, i.e.": a period names no measure
            if re.search(r"(?i)\b(?:divided|multiplied|plus|minus|less|times|over)$", name):
                continue  # "compute net income divided by revenue": arithmetic, not a name defined "by" something
            key = "" if name_key(name) in _ANONYMOUS or _PERIOD_NAME.fullmatch(name_key(name)) else \
                name_key(bare_name(name))
            explicit = index in _EXPLICIT and not (index == 0 and not m.group("verb").lower().endswith(("define", "defines"))
                                                    and not _arithmetic_in(rhs)) and not (
                rx is _INTRODUCED and re.search(r"\w", rhs) and not item_in_question(rhs))  # "guidance is given by management"
            rhs, step = _amount_step(key, rhs)
            if step:  # "total debt = A + B; divide by C": the division is the asked measure's step
                steps.append(f"{name} {step}")
            expr, percent, n = expression_of(rhs, {**{k: v[0] for k, v in out.items()}, **(known or {})})
            arithmetic = _arithmetic_in(rhs) or isinstance(expr, Average)  # an average is (a + b) / 2 in words
            if re.search(r"\w", rhs) and not arithmetic and (expr is None or expr_unknowns(expr) or _known(key)):
                if not explicit or _known(key) or not key and index != 0:
                    continue  # words, not arithmetic ("EBITDA as earnings before interest, taxes, ..."), or a gloss
                taken.append(m.span())
                spans.append((m.start(), m.end()))
                problems.append(f"the question's definition of {name} ('{rhs[:80]}') is not arithmetic over line items "
                                "of a filing")
                continue
            if index >= len(_DEFINE) - 2 and (expr is None or not arithmetic or re.search(
                    r"(?i)\b(?:defined|computed|calculated|measured)\s+as\b", rhs) or any(
                    not label_like(_qualified_out(u)) for u in expr_unknowns(expr))):
                continue  # "Name: words", "Name is words" define only when arithmetic over line items or rows
            taken.append(m.span())
            spans.append((m.start(), m.end()))
            if not re.search(r"\w", rhs):
                problems.append(f"the question's definition of {name} is empty")
                continue
            if key and any((name_key(clean_phrase(v)) == key or re.fullmatch(r"(?i)itself|its own value|it", v.strip(" ."))) and
                           not isinstance(resolve(v, {}), Item)
                           for k, v in split_operators(rewrite(rhs, {})) if k == "phrase"):
                problems.append(f"the question defines {name} in terms of itself")
                continue
            if n > MAX_TERMS:
                problems.append(f"the question's definition of {name} has {n} terms, more than the {MAX_TERMS} "
                                "finrag computes")
                continue
            if expr is None:
                problems.append(f"the question's definition of {name} ('{rhs[:120]}') could not be read as arithmetic")
                continue
            if key in out and clash(out[key][0], expr):
                problems.append(f"the question defines {name} twice, differently; finrag does not pick one")
                continue
            out[key] = (expr, rhs, percent, n)
    if steps and "" not in out and not problems:
        expr, percent, n = expression_of(steps[0], {k: v[0] for k, v in out.items()})
        if expr is not None and not expr_unknowns(expr):
            out[""] = (expr, steps[0], percent, n)
    if not out and not problems:
        found = _NAMELESS.search(q)
        if found:
            rhs = strip_format(found.group("rhs") or found.group("rhs2") or found.group("rhs3") or found.group("rhs4") or
                                found.group("rhs5") or "")
            expr, percent, n = expression_of(rhs, {})
            if expr is not None and n >= 2 and 0 < n <= MAX_TERMS and not (found.group("rhs3") and (
                    expr_unknowns(expr) or _head_reads(q))):  # steps the head's own arithmetic reads keep its reading
                out[""] = (expr, rhs, percent, n)
                spans.append(found.span())
    return out, spans, problems


_STEP = re.compile(r"(?i);\s*(?:and\s+)?(?:then\s+)?(divide|multiply)\b\s*(?:it|that|this|the\s+(?:result|sum|total))?\s*(.*)$")


def _amount_step(key: str, rhs: str) -> tuple[str, str]:
    """A defined amount's definition without a trailing "; divide by C" / "; multiply by C" step (the amount is no
    ratio: finrag's reading of its name divides nothing), and that step written as arithmetic ("divided by C")."""
    m = _STEP.search(rhs)
    if not m or not key or not _known(key) or divides(resolve(key, {})):
        return rhs, ""
    return rhs[:m.start()].strip(), f"{m.group(1).lower().rstrip('e')}ed {m.group(2)}".replace("multiplyed", "multiplied")


def _head_reads(q: str) -> bool:
    found = arithmetic(q, {})
    return found is not None and not expr_unknowns(found[0])




def _qualified_out(phrase: str) -> str:
    """An operand's words without article, glosses and "at quarter end": what must read as a row's label."""
    t = re.sub(r"(?i)^\s*(?:the|a|an)\s+", "", re.sub(r"\([^()]*\)|⟦[^⟧]*⟧", " ", phrase))
    return " ".join(re.sub(r"(?i)\b(?:at|as of)\s+(?:the\s+)?(?:quarter|year|period)[- ]end\b", " ", t).split())


def _arithmetic_in(text: str) -> bool:
    return any(k == "op" and v in "+-*/~" for k, v in split_operators(rewrite(text, {})))


def _known(key: str) -> bool:
    """Is the name one finrag reads already (a line item or a catalog metric)?"""
    return bool(key) and not expr_unknowns(resolve(key, {}))


def _head(q: str, spans: list[tuple[int, int]]) -> str:
    """The question without its definitions."""
    out, pos = [], 0
    for a, b in sorted(spans):
        out.append(q[pos:a])
        pos = max(pos, b)
    out.append(q[pos:])
    return " ".join(" ".join(out).split())


def _defined(q: str, head: str, definitions: dict[str, tuple[Expr, str, bool, int]], spans: list[tuple[int, int]],
             problems: list[str], asks_percent: bool, subject: Optional[dict[str, Expr]] = None) -> Formula:
    """The asked measure when the question defines one (or tried to): the head's arithmetic over the defined names
    ("EBITDA less capex"), else the catalog metric the head names with the question's definitions in its formula
    ("EBITDA margin" with EBITDA defined), else the definition the head names, else the last one."""
    if problems:
        name = next((k for k in definitions if k), "") or asked_name(head) or "the metric"
        return Formula(name=name, source="question", expression=None, problems=problems)
    exprs = {**(subject or {}), **{k: v[0] for k, v in definitions.items() if k}}
    rhs = "; ".join(f"{k or 'it'} = {v[1]}" for k, v in definitions.items())
    percent = any(v[2] for v in definitions.values())
    composed = arithmetic(head, exprs)
    if composed is not None and expr_unknowns(composed[0]):
        composed = (_noun_of_name(composed[0], head, exprs), composed[1], composed[2])
    if composed is not None and expr_unknowns(composed[0]) and "" in definitions and \
            not expr_unknowns(definitions[""][0]):
        composed = None  # the head's short words ("stock-based comp") that the question's own definition spells out
    named = [k for k in definitions if k and re.search(rf"\b{re.escape(k)}\b", name_key(head))]
    # a defined name found only inside a longer defined name ("EBITDA" in "EBITDA interest coverage") is that one's
    named = [k for k in named if not any(k != o and re.search(rf"\b{re.escape(k)}\b", o) for o in named)]
    catalog = _catalog_with(head, exprs)
    if composed is not None:
        expr, name, percent = composed
    elif catalog is not None and not (named and any(_covers(k, catalog[0]) for k in named)):
        name, expr = catalog
    else:
        # "Calculate it as ...": the definition without a name is the question's measure
        key = "" if "" in definitions else (named[-1] if named else _root(definitions))
        expr, _rhs, percent, _n = definitions[key]
        name = key or asked_name(head) or (composed_name(head, exprs) if key == "" else "") or catalog_named(head) \
            or "the metric"
    times_100 = multiplies_by_100(expr)
    unit = unit_of(name, expr, asks_percent or percent, times_100)
    return Formula(name=name, source="question", expression=expr, definition=rhs, unit=unit, times_100=times_100,
                   problems=zero_divisors(expr), magnitudes=bool(_MAGNITUDES.search(q)))


_MAGNITUDES = re.compile(r"(?i)\b(?:taken|treated|expressed|used|counted) as (?:a )?positive\b|\bas positive (?:amounts|"
                         r"numbers|values|costs)\b|\babsolute values?\b|\bmagnitudes?\b")
"""The question asks each operand's magnitude ("all taken as positive amounts from the cash flow statement")."""


def _noun_of_name(expr: Expr, head: str, exprs: dict[str, Expr]) -> Expr:
    """An operand that is the asked name's noun ("margin over revenues" after "EBITDA margin:", EBITDA defined) read
    as the defined name written before that noun in the head."""
    if isinstance(expr, Unknown):
        word = name_key(clean_phrase(expr.phrase))
        key = next((k for k in exprs if k and word and re.search(rf"\b{re.escape(k)} {re.escape(word)}\b",
                                                                 name_key(head))), None)
        return exprs[key] if key is not None else expr
    if isinstance(expr, BinOp):
        return expr.model_copy(update={"left": _noun_of_name(expr.left, head, exprs),
                                       "right": _noun_of_name(expr.right, head, exprs)})
    return expr


def composed_name(head: str, exprs: dict[str, Expr]) -> str:
    """The name the head's own arithmetic writes ("stock-based comp / operating cash flow"), "" when it writes none."""
    found = arithmetic(head, {})
    return found[1] if found is not None else ""


def _root(definitions: dict[str, tuple[Expr, str, bool, int]]) -> str:
    """The definition no other one uses (the question's measure; "..., where total debt is ..." defines a part of
    it), the first such."""
    used = {k for k in definitions for other, v in definitions.items()
            if k and other != k and re.search(rf"\b{re.escape(k)}\b", name_key(v[1]))}
    return next((k for k in definitions if k not in used), next(iter(definitions)))


def _covers(key: str, catalog_name: str) -> bool:
    """Does the defined name stand for the whole catalog metric the head names ("ebitda margin" for "EBITDA margin"),
    or for a variant of it that the question names and defines ("EBITDA interest coverage" for interest coverage)?"""
    return key == name_key(catalog_name) or key.endswith(" " + name_key(catalog_name))


def _catalog_with(head: str, defined: dict[str, Expr]) -> Optional[tuple[str, Expr]]:
    """The catalog metric the head names, its formula re-read with the question's definitions in place of the names
    they define (so the question's EBITDA is the one in "EBITDA margin"); None when none of its parts is defined."""

    entry = next((e for e in CATALOG.values() for p in e.names if re.search(p, head, re.I)), None)
    if entry is None or not defined:
        return None
    overrides: dict[str, Expr] = {}
    for other in CATALOG.values():
        for key, expr in defined.items():
            if any(_names_it(key, p) for p in other.names):
                overrides[other.name] = expr
    if not overrides or entry.name in overrides:
        return None
    expressions = {e.name: e.expression for e in CATALOG.values()}
    try:
        reread = parse_formula(entry.formula, {**expressions, **overrides})
        # no definition enters its formula ("total debt" defined, debt-to-equity's own formula names no total debt)
        return None if reread == parse_formula(entry.formula, expressions) else (entry.display, reread)
    except ValueError:
        return None


def _names_it(key: str, pattern: str) -> bool:
    """Does a defined name name the catalog metric of `pattern`, give or take "unadjusted"/"adjusted"?"""
    m = re.search(pattern, key, re.I)
    rest = (key[:m.start()] + key[m.end():]).split() if m else ["x"]
    return all(w in ("unadjusted", "adjusted", "reported", "gaap") for w in rest)


def _composed(head: str, asks_percent: bool, subject: Optional[dict[str, Expr]] = None) -> Optional[Formula]:
    """Arithmetic the head writes without a definition, when it composes more than one named metric would: a catalog
    metric inside ("EBITDA less capex"), two operators, or no catalog metric named at all."""
    found = arithmetic(head, dict(subject or {}))
    if found is None:
        return _averaged(head)
    expr, name, percent = found
    grown = re.fullmatch(r"\(\((.+?)\) / \(the earlier period\) - 1\)", name)
    name = f"growth of {grown.group(1)}" if grown else name  # "revenue Q2 2025 vs Q2 2024, % change"
    if part_share(expr):
        return None  # "AWS as a percent of net sales": a part's share of the total (the member answerer's)
    names_metric = any(re.search(p, head, re.I) for e in CATALOG.values() for p in e.names)
    operators = sum(1 for k, v in split_operators(name) if k == "op" and v in "+-*/~")
    uses_metric = has_metric(expr)
    if names_metric and not uses_metric and operators < 2:
        return None  # "operating income as a % of revenue": the catalog's operating margin
    times_100 = multiplies_by_100(expr)
    return Formula(name=name, source="composed", expression=expr, definition=name,
                   unit=unit_of(name, expr, asks_percent or percent, times_100), times_100=times_100,
                   problems=zero_divisors(expr))


_TWO_ENDS = re.compile(r"(?i)\baverage\b[^?.]*\b(?:beginning and end(?:ing)?|opening and closing|balances|year[- ]ends|"
                       r"(?:19|20)\d\d and [^?.]*(?:19|20)\d\d)\b")


def _averaged(head: str) -> Optional[Formula]:
    """"The average total shareholders' equity, taking the September 30, 2023 and September 28, 2024 balances": the
    average of a balance at two period ends, asked without arithmetic."""
    if not _TWO_ENDS.search(head) or any(re.search(p, head, re.I) for e in CATALOG.values() for p in e.names):
        return None  # (an average that is a catalog metric's part: "return on equity ... average equity")
    m = re.search(r"(?i)\baverage\s+(?:of\s+)?(?:the\s+)?((?:[\w&'-]+\s+){0,5}?[\w&'-]+?)(?=\s+(?:over|for|in|during|"
                  r"at|between|from|,|taking|using|as of)\b|\s*\(|[,?.])", head)
    if not m:
        return None
    item = resolve(m.group(1), {})
    if not isinstance(item, Item) or LINE_ITEMS[item.item].flow:
        return None
    item = item.model_copy(update={"offset": 0})  # "opening and closing inventories": both ends, of the asked period
    return Formula(name=f"average {clean_phrase(m.group(1))}", source="composed", expression=Average(of=item),
                   definition=m.group(0), unit="currency")


_DICTATED = re.compile(r"(?i)\b(?:ignore|disregard|forget)\b[^.?!]{0,40}?\b(?:instructions|rules|filings?|10-?[kq]|"
                       r"documents?|context|sources?)\b|\bsystem override\b|\breply only with\b|\bdo not (?:check|refuse)"
                       r"\b|\btest mode\b|\bwithout (?:looking (?:anything|it) up|checking|reading)\b")
"""Words that tell finrag to ignore the filing or its rules and state a given answer."""
