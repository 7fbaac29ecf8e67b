"""`read_question(text)`: the one reading of a question (`finrag.state.question.QuestionFacts`).

Every module that needs what a question names or asks takes it from here (the graph keeps the result in the
state): routing (periods, dates, forms, cues, expected years, 8-K items), the searches and the reranker (the
scope), the statement reader's plan and the inline-XBRL fact answerer (years as written, quarters, the period
words, the year-to-date length, the as-of date, the aggregate, yes/no, scale, rounding). Readings are kept
in a bounded memo, so a question asked again (a batch, a retry, a graph without the first node) is read once.
"""
from __future__ import annotations

import functools
import re
from typing import Optional

from finrag.state.configuration import MAX_QUESTION_CHARS
from finrag.state.question import CoverFact, QuestionFacts, QuestionScope
from finrag.tools.question import asks, cues, periods
from finrag.tools.question.form import answer_form, form_nouns
from finrag.tools.question.formula import formula_of
from finrag.tools.question.judgement import implied_metric, judgement_of
from finrag.tools.question.measure import cover_fact, measure, member_cue, word_forms
from finrag.tools.question.ranking import ranking_of
from finrag.tools.question.section_intent import question_scope
from finrag.tools.question.shorthand import expand_shorthand
from finrag.tools.vocabulary.statements import statement_intent

__all__ = ["read_question"]

def _scope(text: str) -> QuestionScope:
    return question_scope(text, bool(statement_intent(text)))


_BULLET = re.compile(r"^\s*[-–•*][ \t]+|(?<=[.?!])(\s+)[-–•*][ \t]+(?=[A-Z(])")
"""A list marker opening the question, or a sentence after a finished one, is layout, not a minus sign ("- Define X
as A / B.\n- What is X?", the same with its lines joined); a dash after "Parts:" or inside a sentence is left to
the arithmetic."""


def unbulleted(text: str) -> str:
    """The question without the list markers that open its sentences."""
    return _BULLET.sub(lambda m: m.group(1) or "", text)


@functools.lru_cache(maxsize=4096)
def _read(text: str) -> QuestionFacts:
    text = expand_shorthand(unbulleted(text))  # "KO 2Q25 op mgn" is read as "KO 2Q25 operating margin"
    years, named_periods, dates = periods.extract_periods(text)
    q = " ".join(text.split())
    head = asks.definition_head(q)
    yesno = asks.is_yesno(q)
    metric, line_item = measure(q, head)
    ranking = ranking_of(head)
    form = answer_form(q, figure=metric is not None or line_item is not None, ranking=ranking is not None)
    judgement = judgement_of(q, metric, yesno or form == "yesno")
    if judgement is None and metric is None and line_item is None and (implied := implied_metric(q)):
        # a judgement's measure named by its own words ("operating profitability", "Acme's margins")
        judgement = judgement_of(q, implied, yesno or form == "yesno")
        metric = implied if judgement is not None else None
    return QuestionFacts(judgement=judgement, metric=metric, line_item=line_item, cover=_cover(q, form), member_cue=member_cue(head),
        ranking=ranking, form=form, form_nouns=list(form_nouns(q, form)),
        words=word_forms(q),
        text=text, head=head, years=years, periods=named_periods, dates=dates, month_quarters=periods.month_quarters(q),
        forms=cues.detect_forms(text),
        cues=sorted(cues.question_cues(text)), forward_years=cues.forward_years(text),
        event_items=sorted(cues.event_items(text)),
        years_written=periods.years_written(q), head_years=periods.years_written(head),
        year_mentions=periods.year_mentions(q), quarters=periods.quarters_written(q),
        asks_ytd=bool(periods.YTD.search(q)), asks_quarter=bool(periods.QTR.search(q)),
        asks_annual=bool(periods.ANNUAL.search(q)), ytd_months=periods.ytd_months_named(q),
        as_of=periods.as_of_date(text), year_range=periods.year_range(head),
        scope=_scope(text), aggregate=asks.aggregate_of(head), average_years=asks.average_years(head),
        series_years=asks.series_years(head, periods.years_written(head)),
        averages_span=asks.names_average(head), yesno=yesno, direction=asks.direction_of(q, yesno),
        drivers=asks.asks_drivers(q), applicability=asks.asks_applicability(q), scale=asks.scale_asked(q),
        share_of_total=metric is None and asks.asks_share_of_total(head), asks_percent=asks.asks_percent(head),
        decimals=asks.decimals_asked(q), formula=formula_of(q))


def read_question(text: object) -> QuestionFacts:
    """The question's facts (see `QuestionFacts`); an empty reading for anything but a non-empty string."""
    if not isinstance(text, str) or not text.strip():
        return QuestionFacts(text=text if isinstance(text, str) else "")
    return _read(text[:MAX_QUESTION_CHARS])


def _cover(q: str, form: str) -> Optional[CoverFact]:
    """The cover fact asked, but not the auditor's name when the question asks a date ("Since what year has KPMG been
    Acme's auditor?", "how long has EY audited Acme": the year its tenure began, which the auditor's report states)."""
    cover = cover_fact(q)
    return None if cover == "auditor" and form == "date" else cover
