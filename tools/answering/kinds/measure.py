"""Kind `measure`: a line item, a member of a breakdown, a catalog metric, a change or a series.

From the routed filing's inline-XBRL facts first: a member (a segment, product or region; from the statement tables
when the filing tags no members), then a metric, change or series whose inputs are all tagged, then the line item's
exact fact (with the statement table's reading beside it); else, and without a single routed filing, the
statement-table reader.
"""
from __future__ import annotations

from finrag.tools.answering.fact_math import answer_computed
from finrag.tools.answering.fact_sources.xbrl import XbrlFacts
from finrag.tools.answering.kinds.evidence import Evidence
from finrag.tools.answering.member_answer import answer_member
from finrag.tools.answering.member_tables import answer_member_from_tables
from finrag.tools.answering.reader import ReaderResult
from finrag.tools.answering.xbrl_facts import answer_from_facts, check_against_table

__all__ = ["answer"]


def answer(ev: Evidence) -> ReaderResult:
    """The measure's answer (see the module docstring)."""
    if not ev.doc_id:
        return ev.tables()
    member = answer_member(ev.facts, ev.tagged, ev.doc_id, ev.info)
    if member is not None:  # a segment, product or region: the table reader would read the total beside it
        return member
    if not XbrlFacts(ev.tagged, ev.doc_id, ev.info).has_members:  # no tagged members (a PDF, HTML without inline XBRL): the tables'
        member = answer_member_from_tables(ev.facts, ev.contexts, ev.source, doc_id=ev.doc_id, info=ev.info)
        if member is not None:
            return member
    computed = answer_computed(ev.facts, ev.tagged, ev.doc_id, ev.info, related=ev.related())
    if computed is not None:  # a change, margin or ratio whose inputs are all tagged
        return computed
    exact = answer_from_facts(ev.question, ev.tagged, ev.doc_id, ev.info, asked=ev.facts)
    if exact is not None:  # the statement table's reading beside it: a disagreement is said and recorded
        return check_against_table(exact, ev.tables())
    return ev.tables()
