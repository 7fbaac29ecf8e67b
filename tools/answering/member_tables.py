"""One segment's, region's or product line's value from the routed filing's statement tables (PDFs, EDGAR HTML
without inline XBRL): the table reader's counterpart of `member_facts.py`.

    result = answer_member_from_tables(facts, contexts, source, doc_id=..., info=...)   # ReaderResult or None

The breakdowns of the asked measure (revenue, operating income) are found as for a ranking
(`ranking_tables.breakdowns_of`: rows that add up to their printed total, or under a caption naming the measure;
here the primary statements' own breakdowns count too: Apple's "Products" and "Services" net sales). A part is the
asked member when the distinctive words of its row label (without "net", "total", "revenue", "sales" and the
company's own name: `member_facts.name_key`) are all in the question; the longest such name wins, then the better
breakdown. Its value is read from the asked period's column (a change: against the prior year's column, the
arithmetic stated), cited to its page.

When the question asks one value of a breakdown it names outright (`QuestionFacts.member_cue`: "segment",
"revenue from <Place>") and no part matches, the answer says so and lists the parts the tables do hold: never the consolidated total as if it
were the member's. A question that names no member is left to the line-item reader (None).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from finrag.state.question import QuestionFacts, Ranking, RankMeasure
from finrag.tools.answering.member_facts import company_words, name_key, partial_pick, qualified_away
from finrag.tools.answering.ranking_tables import asked_tables, breakdowns_of, read_breakdown_pages
from finrag.tools.answering.rankings import MEASURE_NAMES, Breakdown, Part, operands
from finrag.tools.answering.reader import PageSource, ReaderResult
from finrag.tools.answering.render import possessive
from finrag.tools.answering.xbrl_facts import asked_item

__all__ = ["answer_member_from_tables"]

_MIN_SCORE = 3.0
"""A breakdown whose own labels name the measure ("Revenues:", "Total net sales"), or that adds up to its printed
total under a caption naming it: a caption alone (a table of percent changes under "Sales") is not enough."""
_MEASURES: dict[str, RankMeasure] = {"revenue": "revenue", "operating_income": "operating_income",
                                     "net_income": "net_income"}


def _match(part: Part, words: set[str], own: frozenset[str]) -> int:
    """How many distinctive words of the part's name the question holds (0: not all of them)."""
    key = name_key(part.name) - own
    return len(key) if key and key <= words - own else 0


def answer_member_from_tables(facts: QuestionFacts, contexts: list[dict], source: PageSource, *, doc_id: str,
                              info: Optional[dict] = None) -> Optional[ReaderResult]:
    """The member's value the question asks, from the tables (see the module docstring); a not-found answer when
    it names a breakdown the tables do not hold; None when it names no member."""
    if facts.ranking is not None or facts.metric is not None or facts.series_years or \
            facts.aggregate not in ("single", "change"):
        return None
    item = asked_item(facts.text)
    measure = _MEASURES.get(item or "")
    if measure is None:
        return None
    info = info or {}
    own = company_words(info)
    words = set(facts.words)
    asked = asked_tables(facts, contexts, source, doc_id, info)
    if asked is None:
        return None
    lookup, year, quarter, pages = asked.lookup, asked.year, asked.quarter, asked.pages
    change = asked.plan.aggregate == "change"
    ranking = Ranking(group="member", by="growth" if change else "value", measure=measure)

    def best() -> Optional[tuple[int, Breakdown, Part]]:
        found = breakdowns_of(ranking, lookup, year, qualifiers=set(), quarter=quarter, context_pages=set(pages),
                              facts=facts, statements=True)
        every = [(-i, c.bd, p) for i, c in enumerate(found) if c.score >= _MIN_SCORE for p in c.bd.parts + c.bd.others]
        hits = [(n, i, bd, p) for i, bd, p in every for n in [_match(p, words, own)]
                if n and not qualified_away(name_key(p.name), facts.words, own)]
        if not hits:  # a part named in part ("regulatory credit" for "Automotive regulatory credits")
            chosen, _maybe = partial_pick(facts.words, [name_key(p.name) for _i, _bd, p in every], own)
            hits = [(1, *every[k]) for k in chosen]
        if not hits:
            return None
        # the breakdown the question names ("the Automotive segment": the segment table's "Automotive segment"
        # row, not the product table's "Automotive sales"), then the better breakdown
        cue = facts.member_cue or ""
        n, _i, bd, part = max(hits, key=lambda h: (h[0], bool(cue) and cue in f"{h[3].name} {h[2].title}".lower(),
                                                   h[1]))
        return n, bd, part

    hit = best()
    if hit is None:
        read_breakdown_pages(lookup, source, doc_id, ranking)
        lookup.add_statement_pages("income")
        hit = best()
    display = MEASURE_NAMES[measure]
    if hit is None:
        if (facts.member_cue is None and not facts.share_of_total) or change:
            return None  # a member's change not found: the evidence answer says what it can
        cue_text = facts.member_cue or "part whose share is"  # a share asked without naming the part
        return ReaderResult(answer=f"No {display} row for the {cue_text} asked was found in {doc_id}'s tables "
                                   f"for the period asked. The consolidated total is not the asked measure.",
                            confident=False, kind="item", asked="member")
    _n, bd, part = hit
    company = str(info.get("company") or "")
    whose = possessive(company)
    if change:
        if part.prior is None or not part.prior:
            return ReaderResult(answer=f"{whose} {display} from {part.name} for {bd.period} was "
                                       f"{bd.amount(part.value)} {bd.cite}; no {bd.prior_period} value was found beside "
                                       "it, so the change is not computed.", confident=False, kind="item",
                                asked="member")
        pct = (part.value - part.prior) / abs(part.prior) * 100.0
        diff = part.value - part.prior
        answer = (f"{whose} {display} from {part.name} changed by {bd.amount(diff)} ({pct:+.1f}%) from "
                  f"{bd.amount(part.prior)} for {bd.prior_period} to {bd.amount(part.value)} for {bd.period} {bd.cite}: "
                  f"({part.value:,.0f} - {part.prior:,.0f}) / {abs(part.prior):,.0f} = {pct:+.1f}%.")
        formula = f"({part.value:,.0f} - {part.prior:,.0f}) / {abs(part.prior):,.0f} = {pct:+.1f}%"
        value: Optional[float] = pct
    elif facts.share_of_total:  # "What share of Apple's net sales came from Services?": the part over its total
        if not bd.total:
            return ReaderResult(answer=f"{part.name}'s share of {whose} {display} is not computed: the table of "
                                       f"{part.name} {bd.cite} prints no total beside it. The part's own value is not "
                                       "the asked measure.", confident=False, kind="item", asked="member")
        pct = part.value / bd.total * 100.0
        formula = f"{part.value:,.0f} / {bd.total:,.0f} = {pct:.1f}%"
        answer = (f"{part.name} accounted for {pct:.1f}% of {whose} {display} for {bd.period}. Arithmetic: "
                  f"{bd.amount(part.value)} / {bd.total_label or 'total'} {bd.amount(bd.total)} = {pct:.1f}% {bd.cite}.")
        value = pct
    else:
        answer = f"{whose} {display} from {part.name} for {bd.period} was {bd.amount(part.value)} {bd.cite}."
        formula, value = "", part.value
    answer += f" Source: the row '{part.name}' of {bd.title or 'a table'} (a part of {display})."
    share = facts.share_of_total and not change
    one = replace(bd, parts=[part], others=[], total=bd.total if share else None)
    return ReaderResult(answer=answer, confident=True, kind="metric" if share else "item",
                        found=operands(one, [part], year=year, item=item or ""),
                        pages_added=[(bd.doc_id, bd.page)], value=value, asked="share" if share else "member",
                        member=f"{part.name} (table row)", formula=formula)
