"""Ranking answers: which part of a breakdown ranks first, or which parts pass a share of the total.

    text, ranked = render_ranking(ranking, breakdown, company="MGM Resorts")

A `Breakdown` is the parts of one measure for one period (and the prior period, for growth): the segments,
regions or product categories of a statement table (`ranking_tables.py`), the members of an inline-XBRL axis
(`member_ranking.py`), or the liabilities or assets of a balance sheet. `render_ranking` ranks the parts by what
the question compares (`finrag.state.question.Ranking`: value, growth or share of the total) and states the
answer first, then the arithmetic of the ranked part (its value and the prior value or the total, cited), then
every part of the breakdown with its figure, and the rows that were not ranked (reconciling rows such as
corporate, eliminations or other). Parts without a prior value are not ranked by growth, and a share needs the
total (printed, or the sum of the parts when the table prints none).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from finrag.state.question import Ranking
from finrag.tools.answering.reader import Found
from finrag.tools.answering.render import fmt_money, possessive
from finrag.tools.numbers import SCALES

__all__ = ["Part", "Breakdown", "render_ranking", "operands", "is_reconciling", "is_aggregate", "MEASURE_NAMES"]

MEASURE_NAMES = {"revenue": "revenue", "operating_income": "operating income", "ebitda": "EBITDA(R)",
                 "net_income": "net income", "balance": "balance"}
_RECONCILING = re.compile(r"(?i)\b(?:other|others|corporate|eliminations?|unallocated|intersegment|inter-segment|"
                          r"reconcil\w*|adjustments?|affiliates|stock[- ]based|stock compensation|"
                          r"discontinued|divested)\b")


def is_reconciling(label: str) -> bool:
    """A row or member that is no part of its own (corporate, eliminations, other, unallocated items)."""
    return bool(_RECONCILING.search(label))


def is_aggregate(value: float, others: list[float], tol: float = 0.0001, max_parts: int = 14) -> bool:
    """Is `value` the sum of two or more of `others` (within `tol`, 0.01%: an aggregate adds up exactly)? An axis
    that tags "Products" beside iPhone, Mac and iPad tags an aggregate of its own members: it is no part of the
    ranking."""
    vals = [v for v in others if v]
    if len(vals) < 2 or len(vals) > max_parts or not value:
        return False
    sums = {0.0: 0}
    for v in vals:  # subset sums with the number of terms (2**14 at most)
        for s, n in list(sums.items()):
            sums.setdefault(s + v, n + 1)
    return any(n >= 2 and abs(s - value) <= tol * abs(value) for s, n in sums.items())


@dataclass
class Part:
    """One part of a breakdown: its name as printed, its value for the asked period (and the prior one)."""

    name: str
    value: float
    prior: Optional[float] = None
    raw: str = ""
    prior_raw: str = ""
    page: int = -1
    """The page the value is printed on (0-based; -1 unknown)."""

    def growth(self) -> Optional[float]:
        """The change against the prior period in percent (None without a prior value, or from zero)."""
        if self.prior is None or self.prior == 0:
            return None
        return (self.value - self.prior) / abs(self.prior) * 100.0


@dataclass
class Breakdown:
    """The parts of one measure for one period, where they are printed and the total they add up to."""

    doc_id: str
    page: int
    parts: list[Part]
    title: str
    """What the breakdown is, as printed ("Supplemental data - net revenues", the section's label)."""
    period: str
    """The asked period as the answer says it ("FY2022", "Q2 FY2024")."""
    prior_period: str = ""
    scale: Optional[str] = None
    """The scale of the values as printed ('thousands', 'millions', 'billions'; None for units)."""
    total: Optional[float] = None
    """The printed total; None when the table prints none (a share then uses the sum of all rows)."""
    total_label: str = ""
    others: list[Part] = field(default_factory=list)
    """Rows of the breakdown that are not ranked (reconciling rows)."""
    source: str = "table"
    """'table' (a statement table) or 'facts' (inline-XBRL member facts)."""

    @property
    def cite(self) -> str:
        return f"[{self.doc_id}, p. {self.page}]"

    def amount(self, v: float) -> str:
        scale = self.scale if self.scale in SCALES else None
        if scale == "thousands" and self._largest() >= 10_000:  # 8,398,372 thousand reads as $8,398.4 million
            return fmt_money(v * 1e3, "millions", decimals=1)
        return fmt_money(v * SCALES.get(scale or "", 1.0), scale)

    def _largest(self) -> float:
        """The largest figure of the breakdown (one unit for all its figures)."""
        return max([abs(p.value) for p in self.parts + self.others] + [abs(self.total or 0.0)])

    def denominator(self) -> Optional[float]:
        """The total a share is taken of: the printed total, else the sum of every row (ranked or not)."""
        if self.total is not None:
            return self.total
        every = [p.value for p in self.parts + self.others]
        return sum(every) if len(every) >= 2 else None


def _pct(v: float) -> str:
    return f"{v:+.1f}%" if v else "0.0%"


def _plural(word: str) -> str:
    word = word.strip() or "part"
    if word.endswith(("ss", "sh", "ch", "x")):
        return word + "es"
    if word.endswith(("ies", "s")):
        return word
    if word.endswith("y") and not word.endswith(("ay", "ey", "oy")):
        return word[:-1] + "ies"
    return word + "s"


def render_ranking(ranking: Ranking, bd: Breakdown, company: str = "") -> tuple[str, list[Part]]:
    """The answer (see the module docstring) and the parts it names as the answer, best first; ('', []) when
    nothing can be ranked as asked (no prior values for growth, no total for a share)."""
    measure = MEASURE_NAMES[ranking.measure] if ranking.measure != "balance" else ""
    kinds = _plural(ranking.kind_word)
    whose = possessive(company, "the filing's")
    denominator = bd.denominator()
    if ranking.by == "growth":
        scored = [(g, p) for p in bd.parts for g in [p.growth()] if g is not None]
    elif ranking.by == "share":
        if not denominator:
            return "", []
        scored = [(p.value / denominator * 100.0, p) for p in bd.parts]
    else:
        scored = [(p.value, p) for p in bd.parts]
    if len(scored) < 2:
        return "", []
    scored.sort(key=lambda t: t[0], reverse=ranking.order == "highest")
    unranked = ""
    if bd.others:
        why = "reconciling rows, not " if bd.source == "table" and all(is_reconciling(p.name) for p in bd.others) \
            else "not "
        unranked = (f" Not ranked ({why}{kinds}): " + "; ".join(f"{p.name} {bd.amount(p.value)}" for p in bd.others)
                    + ".")
    where = f"{bd.title} {bd.cite}" if bd.title else bd.cite
    if ranking.by == "growth":
        g, top = scored[0]
        word = "highest" if ranking.order == "highest" else "lowest"
        head = (f"{top.name} had the {word} {measure} growth of {whose} {kinds} for {bd.period}: "
                f"{bd.amount(top.value)} against {bd.amount(cast_prior(top))} for {bd.prior_period}, "
                f"({_num(top.value)} - {_num(cast_prior(top))}) / {_num(abs(cast_prior(top)))} = {_pct(g)} {bd.cite}.")
        rows = "; ".join(f"{p.name} {_pct(v)} ({bd.amount(p.value)} against {bd.amount(cast_prior(p))})"
                         for v, p in scored)
        text = f"{head} Every {ranking.kind_word or 'part'} of {where}, {bd.period} against {bd.prior_period}: {rows}.{unranked}"
        return text, [top]
    total_note = ("" if denominator is None else f"{bd.total_label or 'the total'} {bd.amount(denominator)}"
                  if bd.total is not None else f"the sum of the table's rows, {bd.amount(denominator)}")
    if ranking.by == "share" and ranking.over is not None:
        over = [(v, p) for v, p in scored if v > ranking.over]
        over.sort(key=lambda t: t[0], reverse=True)
        rest = [(v, p) for v, p in scored if v <= ranking.over]
        shares = "; ".join(f"{p.name} {v:.1f}% ({bd.amount(p.value)})" for v, p in over)
        if over:
            text = (f"Yes. {len(over)} of {whose} {kinds} represent more than {ranking.over:g}% of {measure} for "
                    f"{bd.period}: {shares}; each as a share of {total_note} {bd.cite}.")
        else:
            best_v, best = max(scored, key=lambda t: t[0])
            text = (f"No. None of {whose} {kinds} represents more than {ranking.over:g}% of {measure} for {bd.period}: "
                    f"the largest, {best.name}, is {best_v:.1f}% ({bd.amount(best.value)} of {total_note}) {bd.cite}.")
        if rest:
            text += " At or below it: " + "; ".join(f"{p.name} {v:.1f}%" for v, p in rest) + "."
        return text + unranked, [p for _v, p in over]
    v, top = scored[0]
    word = {"highest": "largest", "lowest": "smallest"}[ranking.order]
    if ranking.by == "share":
        word = "highest" if ranking.order == "highest" else "lowest"
        head = (f"{top.name} had the {word} {measure} contribution of {whose} {kinds} for {bd.period}: "
                f"{bd.amount(top.value)} of {total_note} = {v:.1f}% {bd.cite}.")
        rows = "; ".join(f"{p.name} {s:.1f}% ({bd.amount(p.value)})" for s, p in scored)
    else:
        share = f", {top.value / denominator * 100.0:.1f}% of {total_note}" if denominator else ""
        if measure:  # a member: "Industrial had the highest revenue of 3M's segments"
            word = "highest" if ranking.order == "highest" else "lowest"
            head = (f"{top.name} had the {word} {measure} of {whose} {kinds} for {bd.period}: "
                    f"{bd.amount(top.value)}{share} {bd.cite}.")
        else:  # a balance-sheet line: "Customer deposits was the largest liability in ..."
            head = (f"{top.name} was the {word} {ranking.kind_word or 'line'} in {whose} {bd.title or 'table'} "
                    f"for {bd.period}: {bd.amount(top.value)}{share} {bd.cite}.")
        rows = "; ".join(f"{p.name} {bd.amount(p.value)}" for _s, p in scored)
    return f"{head} Every {ranking.kind_word or 'part'}, {bd.period}: {rows}.{unranked}", [top]


def cast_prior(p: Part) -> float:
    """The prior value of a part ranked by growth (it has one)."""
    return float(p.prior if p.prior is not None else 0.0)


def _num(v: float) -> str:
    return f"{v:,.0f}" if v == int(v) else f"{v:,.2f}"


def operands(bd: Breakdown, named: list[Part], *, year: int, item: str) -> list[Found]:
    """Every figure of the breakdown as the reader's inputs, in currency units: the parts named as the answer first,
    then the other parts, their prior-period values (a year earlier), the unranked rows and the total. The
    contract lists them (`reader.inputs`), the answer's page is cited through them, and an LLM's figures are
    checked against them and their differences and ratios (`number_check`)."""
    unit = SCALES.get(bd.scale or "", 1.0)
    ordered = named + [p for p in bd.parts if p not in named] + bd.others

    def found(label: str, value: float, y: int, raw: str, page: int) -> Found:
        return Found(item=item, year=y, value=value * unit, label=label, raw=raw, header=bd.period, doc_id=bd.doc_id,
                     page=page if page >= 0 else bd.page, scale=None, statement=None, score=1.0)

    out = [found(p.name, p.value, year, p.raw, p.page) for p in ordered]
    out += [found(p.name, p.prior, year - 1, p.prior_raw, p.page) for p in ordered if p.prior is not None]
    if bd.total is not None:
        out.append(found(bd.total_label or "total", bd.total, year, "", bd.page))
    return out
