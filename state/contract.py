"""The JSON contract: what `finrag ask --json`, each line of `finrag batch`, `finrag.run_query` and every
`finrag serve` route return (documented with examples in docs/contract.md).

    from finrag.state.contract import Answer, ROUTING_STATUSES
    answer = Answer.model_validate(json.loads(line))      # check an answer file
    Answer.model_json_schema()                            # the schema, with a description per field

`finrag.api.to_contract` builds every answer through `Answer` and returns `model_dump()`. Required
fields are always present, `null` included (`chunk_id` is `null` for SFR's whole pages); the optional fields
each model names in `_omit_if_none` (an answer's `verification`, `error`, `offline_fallback`, `reader` and
`retrieval`; a call's `error` and `tokens_estimated`; routing's `confidence`; ...) are left out of every dump
(`model_dump`, `model_dump_json`, FastAPI/LangServe encoding) when they are None, rather than written as `null`
(`model_dump(exclude_none=True)` would also drop `chunk_id: null`). Every model accepts extra keys, so
the contract can be extended without breaking readers (the evaluation runner adds `eval` to its files).

Keep it stable: evaluations depend on these names. Page numbers are zero-based, as PyMuPDF counts them.
"""
from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional, get_args

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from finrag.state.systems import BY_NAME, SYSTEMS, names

__all__ = ["ROUTING_STATUSES", "ROUTED_STATUSES", "NO_RETRIEVAL_STATUSES", "Answer", "Context", "ContextPlan",
           "ContextRule", "ContextScope", "Conversation", "ConversationStrategy", "Cost", "LLMCall", "Reader",
           "ReaderInput", "ReaderKind", "AskedKind", "Retrieval", "Routing", "RoutingStatus", "SectionRule", "Verification",
           "VectorCoverage"]

RoutingStatus = Literal[
    "exact_path", "filename_fallback", "default_year", "multi_doc", "forward_looking", "comparative_period",
    "company_scope", "period_not_in_index", "fallback_no_tickers", "fallback_low_confidence", "company_not_indexed",
    "which_company", "not_routed"]
"""The type of `routing.status`: the keys of `ROUTING_STATUSES`, in its order (checked when this module loads)."""

ROUTING_STATUSES: dict[RoutingStatus, str] = {
    # a route was found (routed_docs is not empty)
    "exact_path": "company and period select exactly one filing",
    "filename_fallback": "several filings of the company in the period (or a dated 8-K): the best-scoring one by form and cues",
    "default_year": "no period in the question: the filing of the form it names, else of `default_year`, else the latest year",
    "multi_doc": "several companies in the question: the best filing of each",
    "forward_looking": "the question asks what was expected for a period: the company's latest filing published before it",
    "comparative_period": "no filing of the asked year: the next annual filing, which still reports it as a comparative period",
    "company_scope": "routing is not sure between tied filings of the company (e.g. two 8-Ks that both fit): all of them",
    "period_not_in_index": "no filing of the company for (or reporting) the asked period: its nearest filing, never another company's",
    # no route (routed_docs is empty): HDRR searches the whole corpus (or one filing with fallback_scope=top_document),
    # SFR has no context; with fallback_scope=ask (the default) a question naming no company becomes `which_company`
    "fallback_no_tickers": "no known company or ticker in the question",
    "fallback_low_confidence": "only weak evidence for a company (e.g. a ticker-shaped word that is also an English word)",
    # no route and no retrieval: the answer says which company is missing and which close names the index holds
    "company_not_indexed": "the question names a company the index holds no filing of",
    "which_company": "no company in the question and fallback_scope=ask (the default): no retrieval, the answer asks which company (a mention routing could not resolve stays fallback_low_confidence)",
    # the system does not route
    "not_routed": f"the system has no routing step ({', '.join(names(routes=False))})",
}
"""Every `routing.status` a run can report, with its meaning (`finrag.tools.routing` produces all but
`not_routed`, which `to_contract` reports when no routing node ran; Agentic reports `company_not_indexed`
when its verifier stops a question about a company the index does not hold)."""

ROUTED_STATUSES: tuple[RoutingStatus, ...] = ("exact_path", "filename_fallback", "default_year", "multi_doc", "forward_looking",
                   "comparative_period", "company_scope", "period_not_in_index")
"""The statuses that come with at least one routed document."""

NO_RETRIEVAL_STATUSES: tuple[RoutingStatus, ...] = ("company_not_indexed", "which_company")
"""The statuses that end routing without any retrieval: the answer says what is missing instead."""

if tuple(ROUTING_STATUSES) != get_args(RoutingStatus):  # one list of statuses: the Literal is the table's keys
    raise AssertionError(f"RoutingStatus {get_args(RoutingStatus)} is not ROUTING_STATUSES {tuple(ROUTING_STATUSES)}")

ReaderKind = Literal["item", "metric", "none", "error"]
AskedKind = Literal["line_item", "member", "change", "metric", "cover", "series", "ranking", "share"]
"""What an answer from a filing's tagged facts answered: one line item, a segment/product/region member of one,
the change of one between two periods, a metric of the registry, a cover-page fact, one line item for each of
several fiscal years, the part of a breakdown that ranks first (or the parts past a share of the total), one
member's share of the total."""
"""What the statement reader did (`reader.kind`)."""

ContextRule = Literal["budget"]
"""`retrieval.context.rule`: the context plan's rule (`routed_context="paper"` writes no plan)."""

ContextScope = Literal["line_item", "open"]
"""How much context a question needs (`retrieval.context.scope`, the state's `question_scope`)."""

SectionRule = Literal["prefer", "require", "off"]
"""How preferred sections act inside routed filings (`retrieval.context.section_rule`, `Configuration.section_rule`)."""

VectorCoverage = Literal["complete", "embedded_on_demand", "partial", "none"]
"""Whether the searched filings had vectors (`retrieval.vectors`)."""

ConversationStrategy = Literal["none", "offline", "llm"]
"""How a follow-up was resolved (`conversation.strategy`)."""


class _Open(BaseModel):
    """Extra keys pass through; the fields named in `_omit_if_none` are left out of a dump when None."""

    model_config = ConfigDict(extra="allow")
    _omit_if_none: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _drop_unset_optionals(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in self._omit_if_none:
                if name in data and data[name] is None:
                    del data[name]
        return data


class Routing(_Open):
    """Which filings the question was routed to, and why (SFR, HDRR; `not_routed` for the others)."""

    _omit_if_none = ("confidence",)

    status: RoutingStatus = Field(description="One of ROUTING_STATUSES, e.g. 'exact_path', 'fallback_no_tickers', 'not_routed'")
    routed_docs: list[str] = Field(description="Doc ids the routing chose, in order; empty when nothing was routed")
    reason: str = Field(description="One human-readable line on how the route was found or why there is none; '' when not routed")
    extracted: dict[str, Any] = Field(
        description="The identity found in the question (ExtractedMetadata: companies, tickers, years, periods, forms, "
                    "dates, and the linker's not_indexed names and candidates with confidence and reason); {} for "
                    f"systems without extract_metadata ({', '.join(names(extracts_metadata=False))})")
    confidence: Optional[float] = Field(default=None, description=f"How sure routing is of company and period, 0-1 ({', '.join(BY_NAME[n].label for n in names(routes=True))}); "
                                                          "left out for systems that do not route")


class Context(_Open):
    """One passage the generator saw: a chunk (CBR family, HDRR, Agentic) or a whole page (SFR)."""

    chunk_id: Optional[int] = Field(description="The chunk's id in the index; null for SFR, whose contexts are whole pages")
    doc_id: Optional[str] = Field(description="The document's id: its file name without extension, e.g. '3M_2018_10K'")
    page_start: Optional[int] = Field(description="First page of the passage, zero-based (as PyMuPDF counts pages)")
    page_end: Optional[int] = Field(description="Last page of the passage, zero-based, inclusive")
    score: float = Field(description="Rerank score (rounded to 6 decimals), higher is better; 1.0 for SFR pages")
    text: str = Field(description="The passage text exactly as given to the generator (without the index variant's prefix)")
    viewer_page_start: Optional[int] = Field(default=None, description="First page as a PDF viewer counts it (1-based: "
                                             "page_start + 1); what the answer's citations show")
    viewer_page_end: Optional[int] = Field(default=None, description="Last page as a PDF viewer counts it (1-based)")
    printed_page_start: Optional[str] = Field(default=None, description="The page number the filing prints on the first "
                                              "page (footer or header, e.g. '55', 'F-3'), null when none is printed")
    printed_page_end: Optional[str] = Field(default=None, description="The number printed on the last page, or null")
    pages: str = Field(default="", description="The pages as the answer cites them: 'p. 57', 'pp. 57-58', "
                                               "'p. 45 (printed 43)'")


class LLMCall(_Open):
    """One LLM call of the run (or a failed one, which the offline strategy replaced)."""

    _omit_if_none = ("error", "tokens_estimated", "structured", "finish_reason", "max_tokens")

    role: str = Field(description="router, rewriter, verifier or generator")
    model: str = Field(description="The model's name; 'error' when the call failed")
    prompt_tokens: int = Field(description="Prompt tokens: the provider's usage, else our own count")
    completion_tokens: int = Field(description="Completion tokens: the provider's usage, else our own count")
    error: Optional[str] = Field(default=None, description="Only on a failed call: 'ExceptionType: message' (at most 200 characters)")
    tokens_estimated: Optional[bool] = Field(
        None, description="Only when the provider reported no usage for this call: true, the token counts are "
                          "finrag's own estimate (tiktoken's o200k, else ~4 characters a token)")
    structured: Optional[str] = Field(
        None, description="Only on a structured call (router, rewriter, verifier, judge): how it asked for JSON, "
                          "'json_schema', 'tools', 'json_object' or 'prompt' (`structured_output`)")
    finish_reason: Optional[str] = Field(
        None, description="Only on the generator's plain-text call: how the reply ended as the server said, 'stop' "
                          "or 'length' (cut at its completion limit: the answer is the text so far and says so)")
    max_tokens: Optional[int] = Field(None, description="Only on a reply cut at its limit: the limit it reached")


class Cost(_Open):
    """What the answer cost; offline runs make no LLM calls."""

    llm_calls: int = Field(description="Successful LLM calls (failed ones are in `calls` but not counted)")
    prompt_tokens: int = Field(description="Sum of prompt tokens over `calls`")
    completion_tokens: int = Field(description="Sum of completion tokens over `calls`")
    context_tokens: int = Field(description="Tokens of the context the generator saw (the contexts with their citation labels)")
    calls: list[LLMCall] = Field(description="Every LLM call in order; [] offline")
    llm_calls_saved: int = Field(default=0, description="LLM calls the run did not make because finrag's statement reader "
                                                "answered (the generator fast path); 0 offline, where no call is made")


class ReaderInput(_Open):
    """One input the statement reader used: a line item of one fiscal year, as printed, with its page."""

    item: str = Field(description="Canonical line item, e.g. 'capex', 'total_current_liabilities'")
    year: int = Field(description="Fiscal year of the column it was read from")
    value: float = Field(description="The value as printed in the table (in `scale`), sign included")
    label: str = Field(description="The row label as printed, e.g. 'Purchases of property, plant and equipment (PP&E)'")
    doc_id: str = Field(description="The filing")
    page: int = Field(description="Zero-based page of the table")
    scale: Optional[str] = Field(default=None, description="'thousands', 'millions', 'billions' as stated on the page, or null")


class TableCheck(_Open):
    """An answer from an inline-XBRL fact beside the statement-table reader's reading of the same question."""

    doc_id: str = Field(description="The filing")
    page: int = Field(description="Zero-based page of the statement table the reader read")
    label: str = Field(description="The table row's label as printed")
    table_text: str = Field(description="The cell as printed, with the table's scale, e.g. '391,035 (millions)'")
    table_value: float = Field(description="The table reader's value in currency units (per share for EPS)")
    fact_value: float = Field(description="The tagged fact's value, scale and sign applied")
    concept: str = Field(description="The fact's concept, e.g. 'us-gaap:Revenues'")
    agrees: bool = Field(description="The two agree within rounding (0.1%, a cent per share); when false the "
                                     "answer says so in one sentence")


class Reader(_Open):
    """What the statement reader did (every system's generate node runs it unless `reader` is off)."""

    _omit_if_none = ("table_check", "asked", "member", "formula", "unmatched_numbers", "question_formula")

    kind: ReaderKind = Field(description="'item' (a line item), 'metric' (a metric of the registry), 'none' (not a "
                                  "question the reader answers: the extractive or LLM answer is used), or 'error' "
                                  "(the reader could not run; its extra key `error` says why)")
    confident: bool = Field(description="Every input was found, in the asked fiscal year's column, and the result computed")
    fast_path: bool = Field(description="The answer is the reader's and the generator LLM call was skipped")
    metric: Optional[str] = Field(default=None, description="The metric's name, e.g. 'dpo', 'gross_margin'")
    item: Optional[str] = Field(default=None, description="The line item's name for line-item questions")
    years: list[int] = Field(default_factory=list, description="The fiscal years the answer is about")
    inputs: list[ReaderInput] = Field(default_factory=list, description="Every input found, with its page")
    missing: list[str] = Field(default_factory=list, description="Inputs not found (then the reader is not confident)")
    value: Optional[float] = Field(default=None, description="The computed result (percent for percent metrics), when confident")
    table_check: Optional[TableCheck] = Field(default=None, description="Answers from an inline-XBRL fact only: the statement "
                                                                "table's reading of the same question beside it")
    asked: Optional[AskedKind] = Field(default=None, description="Answers from a filing's tagged facts only: what was "
                                                               "answered ('line_item', 'member', 'change', 'metric', "
                                                               "'cover', 'series', 'ranking')")
    member: Optional[str] = Field(default=None, description="A member answer only: the member's QName and axis, e.g. "
                                                          "'aapl:IPhoneMember (srt:ProductOrServiceAxis)'")
    formula: Optional[str] = Field(default=None, description="A change or metric from tagged facts: the arithmetic "
                                                           "stated, e.g. '(391,035 - 383,285) / 383,285 = +2.0%'")
    question_formula: Optional[dict] = Field(default=None, description="A question that defines, composes or names "
                                                                     "a metric of its own only: its plan "
                                                                     "(`finrag.state.formula.Formula`: name, source, "
                                                                     "expression, unit, and the problems that kept it "
                                                                     "from being computed); the operands are `inputs`, "
                                                                     "the result `value`, what was not found `missing`")
    unmatched_numbers: Optional[list[str]] = Field(default=None, description="An LLM's answer only: the figures it "
                                                                           "states that match none of the inputs or "
                                                                           "results the reader computed (the answer "
                                                                           "says so in a last sentence)")


class Verification(_Open):
    """Agentic only: the last verification of the top chunks."""

    _omit_if_none = ("unverified_dropped",)

    belongs: bool = Field(description="Do the top three reranked chunks belong to the target company?")
    reason: str = Field(description="Why (the verifier's reason, or which filings the chunks came from)")
    anchor: str = Field(description="Ticker (or name) a retry is anchored on ('In {ticker}'s 10-K annual report: ')")
    retry: bool = Field(description="Whether this verification asked for another attempt (false on the last one)")
    attempt: int = Field(description="Which attempt this verification judged, from 1")
    retries: int = Field(description="How many retries ran (0 to max_retries)")
    unverified_dropped: Optional[int] = Field(
        None, description="When the last attempt still failed: how many reranked chunks of other companies were "
                          "dropped before generating (the answer uses the target company's chunks only, or says "
                          "none was found); left out otherwise")


class ContextPlan(_Open):
    """HDRR inside routed filings (`routed_context="budget"`): how the context was chosen, and why."""

    rule: ContextRule = Field(description="'budget' (the question's budget; `routed_context='paper'` leaves this record out)")
    scope: ContextScope = Field(description="'line_item' (one figure of a primary statement: the adaptive cutoff) or 'open' "
                                   "(drivers, lists, several years: up to `budget_tokens`)")
    sections: list[str] = Field(description="Section keys the question points to (items such as 'mdna', "
                                            "'legal_proceedings'; notes such as 'acquisitions', 'income_taxes')")
    cues: list[str] = Field(description="The question's words that named those sections")
    budget_tokens: Optional[int] = Field(default=None, description="The token budget of an open question (null for line items)")
    floor: Optional[float] = Field(default=None, description="Open questions: chunks stop below this share of the top score")
    section_weight: float = Field(description="Rerank bonus of a chunk inside a preferred section")
    section_rule: SectionRule = Field(default="prefer", description="'prefer' (the bonus), 'require' (only chunks inside those "
                                                    "sections, when there are any) or 'off'")
    expand_top: int = Field(description="How many top chunks brought their neighbours and section heading")
    boosted: int = Field(default=0, description="Candidates inside a preferred section (given the bonus, or kept by 'require')")
    expanded: int = Field(default=0, description="Context chunks added by expansion (a hit's neighbour or its section's first chunk)")
    chunks: int = Field(default=0, description="Chunks in the context")
    reason: str = Field(description="One line: the scope, the budget and the preferred sections with their cues")


class Retrieval(_Open):
    """Whether the vector half of retrieval could run (chunk-retrieval systems; left out for SFR).

    `finrag index` stores a filing's text first (routable and BM25-searchable at once) and its vectors after;
    a question asked meanwhile is answered with what is there, and this record says what that was."""

    _omit_if_none = ("context",)

    vectors: VectorCoverage = Field(description="'complete' (every searched filing had vectors), 'embedded_on_demand' (HDRR "
                                     "embedded its routed filing(s) for this question), 'partial' (some searched "
                                     "filings have no vectors yet: BM25 only for them) or 'none' (BM25 only)")
    missing_vectors: list[str] = Field(description="Searched filings without vectors (at most 20 listed)")
    missing_count: int = Field(description="How many searched filings had no vectors")
    embedded_on_demand: list[str] = Field(description="Filings embedded on demand for this answer")
    note: str = Field(description="One line on what was not ready and how to complete it; '' when complete")
    context: Optional[ContextPlan] = Field(default=None, description="HDRR inside routed filings: how the context was chosen "
                                                             "(left out otherwise)")


class Conversation(_Open):
    """Where an answer stands in its conversation (runs with a `thread_id` only)."""

    thread_id: str = Field(description="The LangGraph thread the turn ran on")
    turn: int = Field(description="The turn's number in the thread, 1 for the first")
    inherited: dict[str, int] = Field(default_factory=dict, description="The slots the question took from earlier "
                                      "turns, each with the turn it came from, e.g. {'company': 1, 'measure': 1} "
                                      "(slots: company, period, measure, form); {} when it named everything itself")
    strategy: ConversationStrategy = Field("offline", description="How the follow-up was resolved: 'none' (first turn), 'offline' "
                                                 "(the previous turn's slots) or 'llm' (the condenser's question, checked)")
    notes: list[str] = Field(default_factory=list, description="What the resolution refused or fell back from (e.g. "
                                                               "a condensed question naming a company of no turn)")


class Answer(_Open):
    """One answer: `finrag ask --json`, a line of `finrag batch`, `run_query(...)`, `/{system}/invoke`'s output."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True, title="Answer")
    _omit_if_none = ("verification", "error", "offline_fallback", "reader", "retrieval", "rejected_citations",
                     "resolved_question", "conversation", "finish_reason")

    id: str = Field(description="The question's id: given by the caller (batch line `id`), else a random 12-hex id")
    system: str = Field(description=f"{', '.join(SYSTEMS[:-1])} or {SYSTEMS[-1]}")
    question: str = Field(description="The question as asked (whitespace collapsed)")
    resolved_question: Optional[str] = Field(default=None, description="Only on a thread: the standalone question "
                                             "answered, e.g. \"What was Acme Widgets' total revenue in FY2023?\" for "
                                             "'And in FY2023?' (equal to `question` when it named everything itself)")
    conversation: Optional[Conversation] = Field(default=None, description="Only on a thread: thread_id, turn and "
                                                 "the slots inherited from earlier turns ({slot: turn})")
    answer: str = Field(description="The answer; never empty (the offline generator is extractive, with [doc, p. N] citations)")
    routing: Routing = Field(description="Routing outcome")
    contexts: list[Context] = Field(description="Exactly the passages the generator saw, in order")
    cost: Cost = Field(description="LLM calls and tokens")
    timings_ms: dict[str, float] = Field(
        description="Wall time per node in ms (a node that runs more than once is summed) and `total` for the whole run")
    verification: Optional[Verification] = Field(default=None, description="Agentic only: the last verification and the retry count")
    retrieval: Optional[Retrieval] = Field(default=None, description="Chunk-retrieval systems: whether the searched filings had "
                                                             "vectors (BM25 only where they did not); absent for SFR")
    error: Optional[str] = Field(default=None, description="Only when the run recorded an error")
    offline_fallback: Optional[list[str]] = Field(
        None, description="Only with on_llm_error=offline, when an LLM call failed: the roles (router, rewriter, "
                          "verifier, generator) whose offline strategy answered instead; their errors are in "
                          "cost.calls")
    reader: Optional[Reader] = Field(default=None, description="What the statement reader did: its kind, whether it was "
                                                       "confident, the inputs it read and whether it answered on "
                                                       "the fast path; absent when the reader did not run")
    finish_reason: Optional[str] = Field(
        default=None, description="Only when a generator LLM wrote the answer: how its reply ended, 'stop' or "
                                  "'length' (cut at its completion limit; the answer then ends '(cut at N tokens)')")
    rejected_citations: Optional[list[str]] = Field(
        default=None, description="Only when the generator LLM cited what it was not given (a filing not in the "
                                  "index, a page of no context): those citations, removed from `answer`, e.g. "
                                  "['[FAKECO_2099_10K, p. 42]']")

    def to_dict(self) -> dict[str, Any]:
        """The contract as a plain dict (what `to_contract` returns); optional fields only when not None."""
        return self.model_dump()

    # Read-only mapping access over `model_dump()`, so code written for the dict `run_query` used to return
    # keeps working: `res["answer"]`, `res["cost"]["llm_calls"]`, `res.get("error")`, `"verification" in res`,
    # `{**res}`, `set(res)` (iteration gives the keys, as a dict's does); `json.dumps` needs `res.model_dump()`.
    def __getitem__(self, key: str) -> Any:
        """The dumped contract's value at `key` (a nested part as plain dicts and lists)."""
        return self.model_dump()[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The dumped contract's value at `key`, else `default` (optional fields left out read as absent)."""
        return self.model_dump().get(key, default)

    def keys(self):
        """The dumped contract's keys, in contract order."""
        return self.model_dump().keys()

    def items(self):
        """The dumped contract's (key, value) pairs."""
        return self.model_dump().items()

    def values(self):
        """The dumped contract's values."""
        return self.model_dump().values()

    def __contains__(self, key: object) -> bool:
        """Whether the dumped contract has `key` (optional fields only when set)."""
        return key in self.model_dump()

    def __iter__(self):  # type: ignore[override]
        """The dumped contract's keys, as a dict's iteration gives them (`set(res)`, `for key in res`)."""
        return iter(self.model_dump())

    def __len__(self) -> int:
        """How many keys the dumped contract has."""
        return len(self.model_dump())
