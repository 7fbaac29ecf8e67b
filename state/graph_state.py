"""The one typed state every graph shares, and its public input/output views.

Chunks travel as plain dicts (`RetrievedChunk.model_dump()`), and every other record as the dump of the
model that defines it (the `...Record` aliases below name it), so the whole state is JSON: LangGraph
Studio shows it, LangServe serialises it, checkpoints store it.
`llm_calls` and `timings_ms` have reducers, so nodes that run more than once
(Agentic retries) or in parallel (FTS and vector search) add to them.
"""
from __future__ import annotations

import operator
from typing import Annotated, Any, Optional

from typing_extensions import TypedDict

from finrag.state.contract import (
    ContextRule,
    ContextScope,
    ConversationStrategy,
    ReaderKind,
    RoutingStatus,
    SectionRule,
    VectorCoverage,
)
from finrag.state.question import QuestionFacts

# The values of the state's keys. Each is the JSON dump of the model that defines it (`Model(...).model_dump()`,
# built by the node that writes the key), so the model is the one definition of its keys and the state stays JSON;
# the TypedDicts below type what the nodes read back (`state.get("reranked")`: a list of `ChunkRecord`).
# `total=False`: a record read from a checkpoint or written by a custom node may lack a key, so readers use `.get`.


class ChunkRecord(TypedDict, total=False):
    """A chunk in retrieval: `finrag.state.schema.RetrievedChunk.model_dump()` plus the keys each step fills."""

    chunk_id: int
    """The chunk's id in the index."""
    doc_id: str
    """The filing, e.g. '3M_2018_10K'."""
    page_start: int
    """First page, zero-based."""
    page_end: int
    """Last page, zero-based, inclusive."""
    text: str
    """The chunk's text (without the index variant's prefix)."""
    score: float
    """The score of the last step that ranked it (BM25, similarity, RRF, rerank)."""
    fts_rank: Optional[int]
    """Rank among the BM25 hits, from 1 (`fts_search`)."""
    vector_rank: Optional[int]
    """Rank among the vector hits, from 1 (`vector_search`)."""
    vector_distance: Optional[float]
    """L2 distance of the unit vectors (`vector_search`)."""
    rrf_score: Optional[float]
    """Reciprocal rank fusion score (`rrf`)."""
    rerank_score: Optional[float]
    """The reranker's score, section bonus included (`rerank`)."""
    section: dict[str, Any]
    """Inside routed filings: the chunk's section labels (`item`, `note`, ...; `rerank`'s context plan)."""
    expanded_from: Optional[int]
    """Inside routed filings: the chunk id whose expansion brought this chunk (`rerank`), else absent or None."""


class ContextRecord(TypedDict, total=False):
    """One passage the generator saw: the fields of `finrag.state.contract.Context`."""

    chunk_id: Optional[int]
    """The chunk's id; None for SFR's whole pages."""
    doc_id: Optional[str]
    """The filing."""
    page_start: Optional[int]
    """First page, zero-based."""
    page_end: Optional[int]
    """Last page, zero-based, inclusive."""
    score: float
    """Rerank score (1.0 for SFR pages)."""
    text: str
    """The passage exactly as the generator saw it."""
    printed_start: Optional[str]
    """The page number the filing prints on the first page (`finrag.tools.answering.page_labels`), or None."""
    printed_end: Optional[str]
    """The number printed on the last page, or None."""


class LLMCallRecord(TypedDict, total=False):
    """One LLM call: `finrag.state.contract.LLMCall`'s fields, as `finrag.tools.llm.calls.call_record` and
    `error_record` build them (`model` is "error" for a failed call, `finrag.tools.llm.calls.failed_call`)."""

    role: str
    """router, rewriter, verifier, generator (or judge, contextualizer)."""
    model: str
    """The model's name; 'error' for a failed call."""
    prompt_tokens: int
    """Prompt tokens (the provider's usage, else finrag's count)."""
    completion_tokens: int
    """Completion tokens (the provider's usage, else finrag's count)."""
    error: str
    """Only on a failed call: 'ExceptionType: message'."""
    tokens_estimated: bool
    """Only when the provider reported no usage: the counts are finrag's estimate."""
    structured: str
    """Only on a structured call: how it asked for JSON."""
    ms: float
    """Milliseconds the call took."""


class ExtractedRecord(TypedDict, total=False):
    """`finrag.state.schema.ExtractedMetadata.model_dump()`."""

    companies: list[str]
    """Company names as written or canonical."""
    tickers: list[str]
    """Ticker symbols, upper case."""
    years: list[int]
    """Fiscal years mentioned."""
    periods: list[str]
    """'FY2022' for a year, '2023Q2' for a quarter."""
    forms: list[str]
    """Form types ('10K', '10Q', '8K', ...)."""
    dates: list[str]
    """Calendar dates, ISO."""
    not_indexed: list[str]
    """Company-like names the index holds no filing of."""
    candidates: list[dict[str, Any]]
    """Every company the linker considered, with confidence and reason."""
    documents: list[str]
    """Doc ids an LLM router chose among the registry's candidates."""
    llm_overridden: list[str]
    """What an LLM router returned that was refused."""
    same_identity: list[dict[str, Any]]
    """Groups of indexed filings sharing a routed filing's identity (`resolve_docs`)."""


class VectorStatusRecord(TypedDict, total=False):
    """`finrag.state.contract.Retrieval.model_dump()` without `context` (which `to_contract` adds from
    `context_plan`)."""

    vectors: VectorCoverage
    """complete, embedded_on_demand, partial or none."""
    missing_vectors: list[str]
    """Searched filings without vectors (at most 20)."""
    missing_count: int
    """How many searched filings had no vectors."""
    embedded_on_demand: list[str]
    """Filings embedded on demand for this answer."""
    note: str
    """One line on what was not ready; '' when complete."""


class ContextPlanRecord(TypedDict, total=False):
    """The keys of `finrag.state.contract.ContextPlan` (`finrag.tools.retrieval.context_budget.plan_context`,
    completed by `rerank`)."""

    rule: ContextRule
    """'budget'."""
    scope: ContextScope
    """'line_item' or 'open'."""
    sections: list[str]
    """Section keys the question points to."""
    cues: list[str]
    """The question's words that named those sections."""
    budget_tokens: Optional[int]
    """The token budget of an open question (None for line items)."""
    floor: Optional[float]
    """Open questions: chunks stop below this share of the top score."""
    section_weight: float
    """Rerank bonus of a chunk inside a preferred section."""
    section_rule: SectionRule
    """prefer, require or off."""
    expand_top: int
    """How many top chunks bring their neighbours and section heading."""
    boosted: int
    """Candidates inside a preferred section."""
    expanded: int
    """Context chunks added by expansion."""
    chunks: int
    """Chunks in the context."""
    reason: str
    """One line: the scope, the budget and the preferred sections with their cues."""


class VerificationRecord(TypedDict, total=False):
    """`finrag.state.contract.Verification.model_dump(exclude={"retries"})` (`to_contract` adds `retries` from the
    state's `retries`)."""

    belongs: bool
    """Do the top reranked chunks belong to the target company?"""
    reason: str
    """Why."""
    anchor: str
    """Ticker (or name) a retry is anchored on."""
    retry: bool
    """Whether this verification asked for another attempt."""
    attempt: int
    """Which attempt this verification judged, from 1."""
    unverified_dropped: Optional[int]
    """When the last attempt failed: how many chunks of other companies were dropped."""
    overridden: bool
    """True when the chunks' owners overrode the LLM verifier's verdict (then `llm_verdict` is that verdict)."""
    llm_verdict: dict[str, Any]
    """The LLM verifier's overridden verdict (belongs, reason)."""
    overridden_attempts: list[int]
    """The attempts of the run whose LLM verdict was overridden."""


class ReaderRecord(TypedDict, total=False):
    """`finrag.state.contract.Reader.model_dump()` plus `llm_calls_saved` (which the contract reports as
    `cost.llm_calls_saved`)."""

    kind: ReaderKind
    """item, metric, none or error."""
    confident: bool
    """Every input found in the asked year's column and the result computed."""
    fast_path: bool
    """The answer is the reader's; the generator call was skipped."""
    llm_calls_saved: int
    """LLM calls not made because the reader answered."""
    metric: Optional[str]
    """The metric's name."""
    item: Optional[str]
    """The line item's name."""
    years: list[int]
    """The fiscal years the answer is about."""
    inputs: list[dict[str, Any]]
    """Every input found, with its page (`ReaderInput` dumps)."""
    missing: list[str]
    """Inputs not found."""
    value: Optional[float]
    """The computed result, when confident."""
    asked: Optional[str]
    """For an answer from tagged facts: line_item, member, change, metric, cover or series."""
    member: Optional[str]
    """For a member answer: the member's QName and axis."""
    formula: Optional[str]
    """For a change or metric from tagged facts: the arithmetic stated."""
    question_formula: dict[str, Any]
    """A question with arithmetic of its own: the plan as read (`finrag.state.formula.Formula` dump)."""
    unmatched_numbers: list[str]
    """An LLM's figures that match none of the reader's inputs or results."""
    table_check: dict[str, Any]
    """Answers from an inline-XBRL fact: the statement table's reading beside it (`TableCheck` dump)."""
    error: str
    """kind 'error': why the reader could not run."""


class ConversationRecord(TypedDict, total=False):
    """Where a turn stands in its thread (`finrag.tools.conversation.resolve.Resolution.record`)."""

    thread_id: str
    """The LangGraph thread."""
    turn: int
    """The turn's number, 1 for the first."""
    typed: str
    """The question as typed."""
    resolved: str
    """The question as answered (standalone)."""
    inherited: dict[str, int]
    """{slot: turn it came from}."""
    slots: dict[str, Any]
    """{slot: {value, turn, ...}}: company, period, measure, form."""
    strategy: ConversationStrategy
    """offline, llm or none."""
    notes: list[str]
    """What the resolution refused or fell back from."""


class TurnRoutingRecord(TypedDict, total=False):
    """A finished turn's routing: status, routed_docs, reason."""

    status: RoutingStatus
    """The turn's `routing.status`."""
    routed_docs: list[str]
    """The filings it was routed to."""
    reason: str
    """How the route was found."""


class TurnRecord(TypedDict, total=False):
    """One finished turn of a thread (`finrag.tools.conversation.turns.turn_record`)."""

    turn: int
    """The turn's number, from 1."""
    question: str
    """The question as typed."""
    resolved_question: str
    """The question as answered."""
    inherited: dict[str, int]
    """{slot: turn it came from}."""
    slots: dict[str, Any]
    """The turn's slots."""
    strategy: ConversationStrategy
    """How the turn was resolved."""
    routing: TurnRoutingRecord
    """status, routed_docs, reason."""
    answer: str
    """The answer, with citations."""
    citations: list[str]
    """The answer's citations."""




def add_timings(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    """Reducer of `timings_ms`: add each node's milliseconds to what earlier runs of it took."""
    out = dict(left or {})
    for k, v in (right or {}).items():
        out[k] = round(out.get(k, 0.0) + float(v), 3)
    return out


class InputState(TypedDict):
    """What a caller gives a graph: the question."""

    question: str
    """The question, e.g. "What was 3M's FY2018 capital expenditure?" (the public entry points collapse
    whitespace and reject empty or over-long questions before a run starts)."""


class FinragState(TypedDict, total=False):
    """Everything the nodes read and write during one run; each node returns a partial update."""

    question: str
    """The question the graph answers: as the caller gave it, or on a thread the standalone question
    `resolve_question` made of a follow-up (never rewritten later; retries and the rewriter work on copies)."""

    # resolve_question (conversations on a LangGraph thread; without a thread the node changes nothing)
    typed_question: str
    """On a thread: the question as typed (before `resolve_question` made it standalone)."""

    resolved_question: str
    """On a thread: the standalone question answered, e.g. "What was Acme Widgets' total revenue in FY2023?"
    for "And in FY2023?"; equal to `typed_question` when the question named everything itself."""

    conversation: ConversationRecord
    """On a thread: the turn number, the slots (company, period, measure, form) and which earlier turn each
    inherited slot came from (`ConversationRecord`)."""

    turns: Annotated[list[TurnRecord], operator.add]
    """On a thread: the thread's earlier turns, oldest first (each appended by `resolve_question` at the start
    of the next turn; `finrag.threads.read` adds the last one from the state); kept across turns."""

    # extract_metadata / resolve_docs
    extracted: ExtractedRecord
    """Document identity found in the question (`ExtractedMetadata` as a dict: companies, tickers,
    years, periods, forms, dates), from `extract_metadata`."""

    routed_docs: list[str]
    """Ids of the indexed filings the question is routed to, from `resolve_docs`; empty when routing
    failed (scoped retrieval then searches the whole corpus)."""

    routing_status: RoutingStatus
    """How the route was found or why there is none: one of `finrag.state.contract.ROUTING_STATUSES`
    (`exact_path`, `comparative_period`, ..., `fallback_no_tickers`, `company_not_indexed`)."""

    routing_reason: str
    """One human-readable sentence explaining the route."""

    routing_confidence: float
    """How sure routing is of company and period, 0-1 (`Resolution.confidence`), from `resolve_docs`."""

    query_from_router: bool
    """True when `extract_metadata`'s merged router + rewriter call (`router_rewrite`) wrote `query` and
    `keywords`; the first `rewrite` then keeps them and makes no call. False when it did not (no router LLM,
    `router_rewrite` off, a failed call, an empty query); absent in graphs without `extract_metadata`."""

    # extract_metadata or rewrite, whichever runs first
    question_facts: Optional[QuestionFacts]
    """The question's one reading (`finrag.tools.question.read_question`): periods, dates, forms, cues, the
    measure, the aggregate, the scope. The first node that reads the question (`extract_metadata`, else
    `rewrite`) puts it here; routing, the searches' candidate counts, `rerank`'s context plan, the reader and the
    fact answerer take it from here (a node finding it absent reads the question itself:
    `finrag.nodes.common.question_facts`). Reset on each turn of a thread."""

    query: str
    """The search query for vector search and reranking, from `rewrite` (on an Agentic retry it
    starts with the entity-anchored prefix)."""

    keywords: list[str]
    """Search keywords for BM25 and the offline reranker and generator, from `rewrite`."""

    # retrieval
    fts_results: list[ChunkRecord]
    """BM25 hits (`RetrievedChunk` dicts with `fts_rank`), best first, from `fts_search`."""

    vector_results: list[ChunkRecord]
    """Vector hits (`RetrievedChunk` dicts with `vector_rank` and `vector_distance`), nearest first,
    from `vector_search`."""

    vector_status: VectorStatusRecord
    """Whether the searched filings had vectors (`vectors`: complete, embedded_on_demand, partial, none),
    which did not (`missing_vectors`, `missing_count`), which were embedded on demand, and a `note`; from
    `vector_search` (the answer's `retrieval`)."""

    fused: list[ChunkRecord]
    """The union of both hit lists ordered by reciprocal rank fusion (`rrf_score`), from `rrf`."""

    reranked: list[ChunkRecord]
    """The chunks kept by the reranker's adaptive cutoff (`rerank_score`), best first, from `rerank`;
    these are the generator's context."""

    context_plan: ContextPlanRecord
    """Inside routed filings (`routed_context="budget"`): how `rerank` chose the context (`ContextPlan`:
    scope line_item/open, budget, preferred sections and the cue words, chunks expanded, reason); the
    answer's `retrieval.context`."""

    # verify (Agentic)
    verification: VerificationRecord
    """The last verdict of `verify`: belongs, reason, anchor (the ticker or name a retry is anchored
    on), retry (whether the graph goes back to `rewrite`) and attempt."""

    retries: int
    """How many anchored retries the Agentic graph has made so far."""

    # generate
    contexts: list[ContextRecord]
    """Exactly what the generator saw, in order: chunk_id, doc_id, page_start, page_end, score, text
    (for SFR, the routed filings page by page)."""

    answer: str
    """The answer, with `[document, p. N]` citations; never empty."""

    context_tokens: int
    """Tokens of the context text sent to the generator."""

    rejected_citations: list[str]
    """Citations the generator LLM wrote that are not of a context it was given (a filing not in the index,
    another company's page), removed from `answer`, e.g. ['[FAKECO_2099_10K, p. 42]']; set only when there
    were some."""

    reader: ReaderRecord
    """What the statement reader did in `generate` (`finrag.tools.answering.fast_path.reader_summary`): kind,
    confident, fast_path (the generator LLM call was skipped), llm_calls_saved, inputs with their pages."""

    # accounting
    llm_calls: Annotated[list[LLMCallRecord], operator.add]
    """One record per LLM call (role, model, tokens, milliseconds); nodes append to it."""

    timings_ms: Annotated[dict[str, float], add_timings]
    """Wall time per node in milliseconds; a node that runs again adds to its entry."""

    error: Optional[str]
    """A one-line error to report with the answer (copied to the JSON contract's `error`); the
    built-in nodes do not set it."""


class OutputState(TypedDict, total=False):
    """What a graph returns to callers (the JSON contract is built from it)."""

    question: str
    """The question the graph answered (on a thread: the resolved, standalone question)."""

    typed_question: str
    """On a thread: the question as typed."""

    resolved_question: str
    """On a thread: the standalone question answered."""

    conversation: ConversationRecord
    """On a thread: turn number, slots and where each inherited slot came from."""

    turns: list[TurnRecord]
    """On a thread: the earlier turns of the thread, oldest first."""

    answer: str
    """The answer, with citations."""

    extracted: ExtractedRecord
    """Document identity found in the question (routing systems only)."""

    routed_docs: list[str]
    """The filings the question was routed to (routing systems only)."""

    routing_status: RoutingStatus
    """How the route was found, or why there is none (routing systems only)."""

    routing_reason: str
    """One sentence explaining the route (routing systems only)."""

    routing_confidence: float
    """How sure routing is, 0-1 (routing systems only)."""

    contexts: list[ContextRecord]
    """Exactly what the generator saw, in order."""

    # retrieval (chunk-retrieval systems only): output keys so that a LangGraph API client's
    # `stream_mode="updates"` (Studio's step view) shows what each retrieval node produced, not only its timing
    query: str
    """The search query, from `rewrite`."""

    keywords: list[str]
    """The search keywords, from `rewrite`."""

    fts_results: list[ChunkRecord]
    """BM25 hits, best first, from `fts_search`."""

    vector_results: list[ChunkRecord]
    """Vector hits, nearest first, from `vector_search`."""

    fused: list[ChunkRecord]
    """Both hit lists fused by reciprocal rank, from `rrf`."""

    reranked: list[ChunkRecord]
    """The chunks the reranker's cutoff kept, best first, from `rerank` (the generator's context)."""

    vector_status: VectorStatusRecord
    """Whether the searched filings had vectors (chunk-retrieval systems only)."""

    context_plan: ContextPlanRecord
    """How the context of a routed filing was chosen (HDRR with a route; the answer's `retrieval.context`)."""

    context_tokens: int
    """Tokens of the context sent to the generator."""

    rejected_citations: list[str]
    """Citations the generator LLM wrote of no context it was given, removed from the answer (only when some)."""

    reader: ReaderRecord
    """What the statement reader did (kind, confident, fast_path, llm_calls_saved, inputs)."""

    verification: VerificationRecord
    """Agentic only: the last verification verdict."""

    retries: int
    """Agentic only: how many anchored retries were made."""

    llm_calls: list[LLMCallRecord]
    """One record per LLM call (role, model, tokens, milliseconds)."""

    timings_ms: dict[str, float]
    """Wall time per node in milliseconds."""

    error: Optional[str]
    """A one-line error, when a run reports one."""
