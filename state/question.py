"""The question as read once per run: what it names (periods, forms, cues) and what it asks (measure, kind).

`finrag.tools.question.read_question(text)` builds a `QuestionFacts` from the question alone (no index, no
routed filing); the graph keeps it in the state (`FinragState.question_facts`) and every reader of the question
takes it from there: routing's entity linking and document choice, the table reader's plan, the inline-XBRL
fact answerer, the searches' and the reranker's scope. What depends on a routed filing (which column of a
10-Q, the fiscal year when the question names none) is decided later from these facts and the filing.
"""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeAlias

from finrag.state.contract import ContextScope
from finrag.state.formula import Formula

__all__ = ["Aggregate", "AnswerForm", "CoverFact", "Direction", "MemberCue", "QuestionFacts", "QuestionScope", "Ranking",
           "RankBy", "RankGroup", "RankMeasure", "Scale"]

QuestionScope: TypeAlias = ContextScope
"""How much context a question needs: `line_item` (one figure of a primary statement, answered from a table: a
small context is enough) or `open` (drivers, explanations, lists, several years or metrics: it may use the whole
budget). The contract reports it as `retrieval.context.scope`."""

Aggregate = Literal["single", "average", "change", "cagr"]
"""What is done with the per-year values: one value, their mean, the change first to last, the CAGR."""

AnswerForm = Literal["", "count", "date", "name", "yesno", "drivers", "list"]
"""The form of a prose question's answer (`finrag.tools.question.form`): a count with its noun, a date, a name, Yes or
No with the sentence that decides it, the causes of a change, the items of a list; `""` for another form (a figure,
a ranking, an open question)."""

Direction = Literal["", "positive", "healthy", "increase", "decrease", "improve"]
"""What a yes/no or improved-or-declined question asks about the value (`""`: nothing)."""

CoverFact = Literal["auditor", "shares_outstanding", "public_float", "cik", "fiscal_year_end", "address", "phone",
                    "incorporation", "tax_id", "exchange"]
"""A fact of a filing's cover page the question asks for (answered from its dei facts): also the principal executive
offices' address, the telephone number, the state of incorporation, the IRS employer identification number, and
the exchange the registered securities trade on (with their trading symbols)."""

MemberCue = Literal["segment", "region", "product"]
"""The kind of breakdown a question names outright ("... segment", "revenue from Germany", "by product line"): a
member of the filing's segment, geographical or product axis is asked, not the consolidated total."""

RankBy = Literal["value", "growth", "share"]
"""What a ranking question compares: the parts' values ("the largest liability"), their change against the prior
period ("the worst topline performance", "grew the fastest"), or their share of the total ("the highest EBITDAR
contribution", "more than 20% of revenue")."""

RankGroup = Literal["member", "liability", "asset"]
"""Which parts are ranked: the members of a breakdown (segments, regions, product categories), or the line items of
the balance sheet's liabilities or assets."""

RankMeasure = Literal["revenue", "operating_income", "ebitda", "net_income", "balance"]
"""The measure whose breakdown is ranked (`balance` for a balance-sheet group)."""


class Ranking(BaseModel):
    """A question that asks which part of a breakdown ranks first ("Which region had the worst topline
    performance?", "What was the largest liability in the balance sheet?") or which parts pass a share ("Are there
    any product categories that represent more than 20% of revenue?")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    group: RankGroup
    """The parts ranked (see `RankGroup`)."""
    by: RankBy
    """What is compared (see `RankBy`)."""
    order: Literal["highest", "lowest"] = "highest"
    """Which end of the ranking is asked ('worst', 'smallest', 'least' read as `lowest`)."""
    measure: RankMeasure = "revenue"
    """The measure broken down ("top line", "sales" -> revenue; "EBITDAR" -> ebitda)."""
    over: Optional[float] = None
    """A share threshold in percent ("more than 20% of revenue" -> 20.0): every part above it is asked."""
    kind_word: str = ""
    """The breakdown's noun as the question writes it, singular ('region', 'product category', 'liability')."""


Scale = Literal["thousands", "millions", "billions"]
"""A scale the question asks the answer in ("in millions")."""


class QuestionFacts(BaseModel):
    """One question's reading, built once (`finrag.tools.question.read_question`) and read by every node."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    """The question as read: cut at `MAX_QUESTION_CHARS`, analysts' shorthand written out ("op mgn" -> "operating
    margin": `finrag.tools.question.shorthand`); what every reading below saw, and what the readers read."""
    head: str = ""
    """The question before a definition clause ("... defined as ...", "calculate X using ..."), whitespace
    collapsed: what it asks, without how to compute it."""

    # ----- periods, dates, forms (routing) -----------------------------------
    years: list[int] = Field(default_factory=list)
    """Every year the question names as a period (fiscal years, quarters' years, bare years; not the years of
    dates), sorted."""
    periods: list[str] = Field(default_factory=list)
    """Fiscal periods in order of appearance: '2023Q2' for a quarter, 'FY2022' for a year marked as fiscal."""
    dates: list[str] = Field(default_factory=list)
    """ISO dates the question names ("May 26, 2023" -> '2023-05-26'), in order of appearance."""
    month_quarters: list[str] = Field(default_factory=list)
    """The last days of the months quarters are named by ("the June 2024 quarter" -> '2024-06-30'): routing
    takes them as the asked filings' period ends; not `dates` (no value is asked as of them)."""
    forms: list[str] = Field(default_factory=list)
    """Form types named: '10K', 'ANNUALREPORT', '10Q', '8K', 'EARNINGS'."""
    cues: list[str] = Field(default_factory=list)
    """Soft hints for the document choice: 'EARNINGS' (earnings-release vocabulary), '8K' (corporate events)."""
    forward_years: list[int] = Field(default_factory=list)
    """Years asked about as expected ("guidance for FY2023"): answered by filings published before them."""
    event_items: list[str] = Field(default_factory=list)
    """8-K items the question asks about ('5.02' officers, '5.07' votes, ...), sorted."""

    # ----- periods as the readers take them -----------------------------------
    years_written: list[int] = Field(default_factory=list)
    """Four-digit years written anywhere in the question (dates' included) and 'FY22'-style years, in order of
    appearance, without repeats."""
    head_years: list[int] = Field(default_factory=list)
    """`years_written` of `head` only."""
    year_mentions: int = 0
    """How many times a year is written (a quarter named for fewer years than written cannot be one column)."""
    quarters: list[int] = Field(default_factory=list)
    """The fiscal quarters (1-4) written ("Q2", "second quarter"), each time one is written."""
    asks_ytd: bool = False
    """The question names a year-to-date period ("six months", "year to date", "first half")."""
    asks_quarter: bool = False
    """The question names a quarter ("Q2", "quarter", "three months")."""
    asks_annual: bool = False
    """The question names a year ("fiscal", "FY23", "annual", "full year", "in 2023")."""
    ytd_months: Optional[int] = None
    """6 or 9 when the question's words say the year-to-date length ("nine months", "first half")."""
    as_of: Optional[str] = None
    """The ISO date of an "as of" / "ended" date ("as of September 28, 2024"), the first one given."""
    year_range: list[int] = Field(default_factory=list)
    """A span of years in `head` ("FY2019 - FY2021", "from 2016 to 2018"), as [first, last] written."""

    # ----- what is asked -------------------------------------------------------
    metric: Optional[str] = None
    """The metric of the reader's registry the question asks for (`finrag.tools.vocabulary.metrics.METRICS`:
    'gross_margin', 'current_ratio', ...), read from `head` without parentheses, else `head`, else the text."""
    line_item: Optional[str] = None
    """Without a metric: the line item `head` names first (`finrag.tools.vocabulary.line_items.LINE_ITEMS`)."""
    cover: Optional[CoverFact] = None
    """The cover-page fact the question asks for (the auditor, shares outstanding, the public float, the CIK,
    the fiscal year's end), if any."""
    ranking: Optional[Ranking] = None
    """A ranking question (which segment, region, category or balance-sheet item ranks first, or passes a share of
    the total), if it is one (see `Ranking`)."""
    member_cue: Optional[MemberCue] = None
    """The breakdown the question names outright, if any (see `MemberCue`): when no member of the routed
    filing matches `words`, the answer says the member was not found instead of stating the total."""
    words: list[str] = Field(default_factory=list)
    """The question's words, lower-cased, a plural's "s" dropped ("Automotive sales" -> 'automotive', 'sale'):
    what a member's displayed label is matched against (`finrag.tools.answering.member_facts`)."""
    scope: QuestionScope = "open"
    """`line_item` or `open` (see `QuestionScope`)."""
    aggregate: Aggregate = "single"
    """From the question's words alone (the reader refines it with the years: see `Plan.aggregate`)."""
    series_years: Optional[int] = None
    """N of a question asking one value per fiscal year ("for each of the last three fiscal years", "in fiscal
    2022, 2023 and 2024"): answered as a small table, the latest year last."""
    average_years: Optional[int] = None
    """N of an "N-year average"."""
    averages_span: bool = False
    """The head says "average" (over a span of years, unless the metric itself averages balances)."""
    yesno: bool = False
    """A yes/no question ("Does ...", "Is ...") that is not an either-or ("improved or declined")."""
    direction: Direction = ""
    """What a yes/no (or improved-or-declined) question asks about the value."""
    drivers: bool = False
    """It asks what drove a value ("what drove", "why")."""
    form: AnswerForm = ""
    """The form of the answer a prose question asks for (see `AnswerForm`): which sentence answers it offline."""
    form_nouns: list[str] = Field(default_factory=list)
    """The words the noun a count or a list asks for may be written with ("how many employees" -> 'employees',
    'people', 'associates', ...; "what are the reportable segments" -> 'segments', 'segment')."""
    judgement: Optional[str] = None
    """The judgement the question asks, a key of the judgement catalog (`finrag.tools.vocabulary.judgements`:
    'capital_intensive', 'liquidity', 'positive', 'improving', ...): "Is 3M a capital-intensive business?", "Does Amcor
    have an improving gross margin profile?"; answered from computed figures against a stated convention."""
    applicability: bool = False
    """It asks to say so when the measure does not fit the company ("If operating margin is not a useful metric for
    a company like this, then state that and explain why")."""
    asks_percent: bool = False
    """It asks a percentage ("%", "percent", "percentage", "pct"): an amount is never its answer (an amount found
    for it is said to be another measure, not stated as the answer)."""
    share_of_total: bool = False
    """It asks a part's share of the total ("What share of Apple's net sales came from Services?", "AWS as a percent
    of Amazon's total net sales", "What percentage of revenue was generated in China?"): with a member named, the
    member's value over the consolidated total."""
    scale: Optional[Scale] = None
    """The scale the answer is asked in, if any."""
    decimals: Optional[int] = None
    """The decimals the answer is asked to be rounded to, if any."""
    formula: Optional[Formula] = None
    """The arithmetic the question asks for in its own terms (`finrag.state.formula.Formula`): a metric it defines
    ("Define working capital ratio as ..."), arithmetic it composes ("EBITDA less capex"), or a metric-like name it
    neither defines nor finrag knows; the readers compute it instead of finrag's formula for the name. None when the
    question does none of these (a catalog metric or a line item by name: `metric`, `line_item`)."""
