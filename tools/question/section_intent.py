"""Which sections of a filing a question points to, and how much context it needs.

`sections_for(question)` reads the question's words and returns the section keys
(`tools/indexing/sections.py`: items such as `mdna`, `business`, `legal_proceedings`; notes such as
`acquisitions`, `segments`, `income_taxes`) where its answer usually sits, each with the cue that named it,
for example "What drove operating margin change" -> mdna (cue 'drove'), "Who are the primary customers"
-> business ('customers'), "material legal proceedings" -> legal_proceedings and contingencies.

`question_scope(question, statement)` says whether a question asks for one line item (`line_item`: a
figure of one primary statement, answered from a table: a small context is enough) or is `open`
(drivers, explanations, lists, several years or several metrics: it may use the whole budget).
"""
from __future__ import annotations

import re

from finrag.state.question import QuestionScope
from finrag.tools.question.form import answer_form

__all__ = ["SECTION_CUES", "sections_for", "question_scope", "Scope"]

Scope = QuestionScope  # defined with the reading that carries it (`QuestionFacts.scope`)

# (pattern on the lower-cased question, section keys it points to)
SECTION_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\b(drove|drive[sn]?|driver|drivers|driving|reasons?|why|explain\w*|caused?|attribut\w+|contribut\w+|"
     r"headwinds?|tailwinds?)\b", ("mdna",)),
    (r"\bmargins?\b", ("mdna",)),
    (r"\b(effective tax rate|tax rate|income tax(es)?)\b", ("mdna", "income_taxes")),
    (r"\b(legal|litigation|lawsuits?|proceedings?|antitrust|settlements?|investigations?)\b",
     ("legal_proceedings", "contingencies")),
    (r"\b(acquisitions?|acquired|acquire|mergers?|divest\w*|business combinations?)\b", ("acquisitions", "mdna")),
    (r"\b(segments?|divisions?|business units?|product (categor\w+|lines?)|service categor\w+|regions?|"
     r"geograph\w*)\b", ("segments", "mdna", "revenue")),
    (r"\b(geograph\w*|operates? in|countries|markets? (it|they) serve)\b", ("business",)),
    (r"\b(customers?|clients?|competitors?|competition|employees?|employ|employed|employs|headcount|workforce|"
     r"people|staff|ftes?|human capital|products?|brands?)\b",
     ("business", "risk_factors")),
    (r"\brisks?\b", ("risk_factors",)),
    (r"\brestructur\w*\b", ("restructuring", "mdna")),
    (r"\b(debt|borrowings?|credit facilit\w+|notes due|maturities|liquidity)\b", ("debt", "mdna")),
    (r"\b(dividends?|repurchases?|buybacks?)\b", ("market_equity", "equity", "mdna")),
    (r"\b(guidance|outlook|expects?|forecast)\b", ("mdna", "results_of_operations", "regulation_fd")),
    (r"\b(cybersecurity|cyber)\b", ("cybersecurity", "risk_factors")),
    (r"\b(pensions?|retirement|postretirement)\b", ("pensions",)),
    (r"\bleases?\b", ("leases",)),
    (r"\b(goodwill|impairments?|intangibles?)\b", ("goodwill",)),
    (r"\b(ceo|cfo|board|directors?|executives?|officers?|nominees?|votes?)\b",
     ("governance", "officer_changes", "shareholder_vote")),
    (r"\b(stock[- ]based|share[- ]based) compensation\b", ("stock_compensation",)),
)
_CUES = tuple((re.compile(p), keys) for p, keys in SECTION_CUES)

_OPEN = re.compile(  # words of a question that asks for an explanation or a list, not a figure
    r"\b(drove|drive[sn]?|drivers?|why|explain\w*|describe|discuss|what (are|were) the|which|list|summar\w*|"
    r"reasons?|how (has|have|did|does|do)|is it|are there|was there|were there|has (it|the company|\w+) "
    r"(increased|decreased)|changed|nature|purpose|primary|main|major|key|trend|does \w+ have|do they have)\b",
    re.I)


def sections_for(question: str) -> list[tuple[str, str]]:
    """[(section key, cue)] the question points to, in the order of `SECTION_CUES` (no duplicates); a question that
    asks for a list of what the company is made of or does (its segments, products, brands, customers: the answer's
    form `list`) points to the business section too, where a filing enumerates them, after its cues' sections."""
    text = (question or "").lower()
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    if answer_form(question or "") == "list":
        seen.add("business")
    for rx, keys in _CUES:
        m = rx.search(text)
        if not m:
            continue
        for key in keys:
            if key not in seen:
                seen.add(key)
                out.append((key, m.group(0)))
    if "business" in seen and all(k != "business" for k, _ in out):
        out.append(("business", "a list"))
    return out


def question_scope(question: str, statement: bool) -> Scope:
    """`line_item` for a question about figures of the primary statements (`statement`: the statement
    intent found one; growth rates and averages over several years included) with no open cue; else
    `open`."""
    if statement and not _OPEN.search(question or ""):
        return "line_item"
    return "open"
