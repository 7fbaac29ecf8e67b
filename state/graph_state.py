"""The one typed state every graph shares, and its public input/output views.

Chunks travel as plain dicts (`RetrievedChunk.model_dump()`), and every other record as the dump of the
model that defines it (the `...Record` aliases below name it), so the whole state is JSON: LangGraph
Studio shows it, LangServe serialises it, checkpoints store it.
`llm_calls` and `timings_ms` have reducers, so nodes that run more than once
(Agentic retries) or in parallel (FTS and vector search) add to them.
"""
from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, Optional

from typing_extensions import TypeAlias, TypedDict

# The values of the state's keys. Each is the JSON dump of the model that defines it (`Model(...).model_dump()`,
# built by the node that writes the key), so the model is the one definition of its keys and the state stays JSON.
ChunkRecord: TypeAlias = dict[str, Any]
"""A chunk in retrieval: `finrag.state.schema.RetrievedChunk.model_dump()` (chunk_id, doc_id, page_start,
page_end, text, score and the rank/score keys each step fills), plus what `rerank` adds inside routed filings
(`section`, `expanded_from`)."""

ContextRecord: TypeAlias = dict[str, Any]
"""One passage the generator saw: the fields of `finrag.state.contract.Context` (chunk_id, doc_id,
page_start, page_end, score, text)."""

LLMCallRecord: TypeAlias = dict[str, Any]
"""One LLM call: `finrag.state.contract.LLMCall`'s fields, as `finrag.tools.llm.calls.call_record` and
`error_record` build them (`model` is "error" for a failed call, `finrag.tools.llm.calls.failed_call`)."""

ExtractedRecord: TypeAlias = dict[str, Any]
"""`finrag.state.schema.ExtractedMetadata.model_dump()`."""

VectorStatusRecord: TypeAlias = dict[str, Any]
"""`finrag.state.contract.Retrieval.model_dump()` without `context` (which `to_contract` adds from
`context_plan`)."""

ContextPlanRecord: TypeAlias = dict[str, Any]
"""The keys of `finrag.state.contract.ContextPlan` (`finrag.tools.retrieval.context_budget.plan_context`, completed
by `rerank`)."""

VerificationRecord: TypeAlias = dict[str, Any]
"""`finrag.state.contract.Verification.model_dump(exclude={"retries"})` (`to_contract` adds `retries` from the
state's `retries`)."""

ReaderRecord: TypeAlias = dict[str, Any]
"""`finrag.state.contract.Reader.model_dump()` plus `llm_calls_saved` (which the contract reports as
`cost.llm_calls_saved`)."""

ConversationRecord: TypeAlias = dict[str, Any]
"""Where a turn stands in its thread (`finrag.tools.conversation.resolve.Resolution.record`): thread_id, turn (1 for
the first), inherited ({slot: turn it came from}), slots ({slot: {value, turn, ...}}: company, period, measure,
form), typed and resolved (the question as typed and as answered), strategy ("offline", "llm", "none")."""

TurnRecord: TypeAlias = dict[str, Any]
"""One finished turn of a thread (`finrag.tools.conversation.turns.turn_record`): turn, question (typed),
resolved_question, inherited, routing (status, routed_docs, reason), answer, citations."""

QuestionScope: TypeAlias = Literal["line_item", "open"]
"""How much context a question needs (`finrag.tools.retrieval.section_intent.question_scope`): `line_item` (one
figure of a primary statement) or `open` (drivers, lists, several years or metrics)."""


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

    routing_status: str
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

    # rewrite
    question_scope: QuestionScope
    """The question's scope, `line_item` or `open` (`section_intent.question_scope`), computed once by `rewrite`
    for the searches' candidate counts and `rerank`'s context plan inside routed filings (a node finding it
    absent, in a graph without `rewrite`, computes it: `finrag.nodes.common.scope_of_question`)."""

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

    routing_status: str
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
