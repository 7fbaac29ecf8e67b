"""The JSON contract: what `finrag ask --json`, each line of `finrag batch`, `finrag.run_query` and every
`finrag serve` route return (documented with examples in docs/contract.md).

    from finrag.state.contract import Answer, ROUTING_STATUSES
    answer = Answer.model_validate(json.loads(line))      # check an answer file
    Answer.model_json_schema()                            # the schema, with a description per field

`finrag.api.to_contract` builds every answer through `Answer` and returns `model_dump()`. Required
fields are always present, `null` included (`chunk_id` is `null` for SFR's whole pages); the three
optional fields (`verification`, `error`, a call's `error`) are left out of every dump (`model_dump`,
`model_dump_json`, FastAPI/LangServe encoding) when they are None, rather than written as `null`
(`model_dump(exclude_none=True)` would also drop `chunk_id: null`). Every model accepts extra keys, so
the contract can be extended without breaking readers (the evaluation runner adds `eval` to its files).

Keep it stable: evaluations depend on these names. Page numbers are zero-based, as PyMuPDF counts them.
"""
from __future__ import annotations

from typing import Any, ClassVar, Optional

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

__all__ = ["ROUTING_STATUSES", "ROUTED_STATUSES", "Answer", "Context", "Cost", "LLMCall", "Routing", "Verification"]

ROUTING_STATUSES: dict[str, str] = {
    # a route was found (routed_docs is not empty)
    "exact_path": "company and period select exactly one filing",
    "filename_fallback": "several filings of the company in the period (or a dated 8-K): the best-scoring one by form and cues",
    "default_year": "no period in the question: the company's filing of `default_year`, else its latest year",
    "multi_doc": "several companies in the question: the best filing of each",
    # no route (routed_docs is empty): HDRR searches the whole corpus (or one filing with fallback_scope=top_document), SFR has no context
    "fallback_no_tickers": "no known company or ticker in the question",
    "fallback_no_files_on_disk": "a known company, but no filing of it (or none of the asked period) in the index",
    # the system does not route
    "not_routed": "the system has no routing step (cbr, cbr_meta, cbr_llm_ctx, agentic)",
}
"""Every `routing.status` a run can report, with its meaning (`finrag.tools.routing` produces all but
`not_routed`, which `to_contract` reports when no routing node ran)."""

ROUTED_STATUSES = ("exact_path", "filename_fallback", "default_year", "multi_doc")
"""The statuses that come with at least one routed document."""


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

    status: str = Field(description="One of ROUTING_STATUSES, e.g. 'exact_path', 'fallback_no_tickers', 'not_routed'")
    routed_docs: list[str] = Field(description="Doc ids the routing chose, in order; empty when nothing was routed")
    reason: str = Field(description="One human-readable line on how the route was found or why there is none; '' when not routed")
    extracted: dict[str, Any] = Field(
        description="The identity found in the question (ExtractedMetadata: companies, tickers, years, periods, forms, "
                    "dates); {} for systems without extract_metadata (cbr, cbr_meta, cbr_llm_ctx)")


class Context(_Open):
    """One passage the generator saw: a chunk (CBR family, HDRR, Agentic) or a whole page (SFR)."""

    chunk_id: Optional[int] = Field(description="The chunk's id in the index; null for SFR, whose contexts are whole pages")
    doc_id: Optional[str] = Field(description="The document's id: its file name without extension, e.g. '3M_2018_10K'")
    page_start: Optional[int] = Field(description="First page of the passage, zero-based (as PyMuPDF counts pages)")
    page_end: Optional[int] = Field(description="Last page of the passage, zero-based, inclusive")
    score: float = Field(description="Rerank score (rounded to 6 decimals), higher is better; 1.0 for SFR pages")
    text: str = Field(description="The passage text exactly as given to the generator (without the index variant's prefix)")


class LLMCall(_Open):
    """One LLM call of the run (or a failed one, which the offline strategy replaced)."""

    _omit_if_none = ("error",)

    role: str = Field(description="router, rewriter, verifier or generator")
    model: str = Field(description="The model's name; 'error' when the call failed")
    prompt_tokens: int = Field(description="Prompt tokens: the provider's usage, else our own count")
    completion_tokens: int = Field(description="Completion tokens: the provider's usage, else our own count")
    error: Optional[str] = Field(None, description="Only on a failed call: 'ExceptionType: message' (at most 200 characters)")


class Cost(_Open):
    """What the answer cost; offline runs make no LLM calls."""

    llm_calls: int = Field(description="Successful LLM calls (failed ones are in `calls` but not counted)")
    prompt_tokens: int = Field(description="Sum of prompt tokens over `calls`")
    completion_tokens: int = Field(description="Sum of completion tokens over `calls`")
    context_tokens: int = Field(description="Tokens of the context the generator saw (the contexts with their citation labels)")
    calls: list[LLMCall] = Field(description="Every LLM call in order; [] offline")


class Verification(_Open):
    """Agentic only: the last verification of the top chunks."""

    belongs: bool = Field(description="Do the top three reranked chunks belong to the target company?")
    reason: str = Field(description="Why (the verifier's reason, or which filings the chunks came from)")
    anchor: str = Field(description="Ticker (or name) a retry is anchored on ('In {ticker}'s 10-K annual report: ')")
    retry: bool = Field(description="Whether this verification asked for another attempt (false on the last one)")
    attempt: int = Field(description="Which attempt this verification judged, from 1")
    retries: int = Field(description="How many retries ran (0 to max_retries)")


class Answer(_Open):
    """One answer: `finrag ask --json`, a line of `finrag batch`, `run_query(...)`, `/{system}/invoke`'s output."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True, title="Answer")
    _omit_if_none = ("verification", "error")

    id: str = Field(description="The question's id: given by the caller (batch line `id`), else a random 12-hex id")
    system: str = Field(description="cbr, sfr, hdrr, cbr_meta, cbr_llm_ctx or agentic")
    question: str = Field(description="The question as answered (whitespace collapsed)")
    answer: str = Field(description="The answer; never empty (the offline generator is extractive, with [doc, p. N] citations)")
    routing: Routing = Field(description="Routing outcome")
    contexts: list[Context] = Field(description="Exactly the passages the generator saw, in order")
    cost: Cost = Field(description="LLM calls and tokens")
    timings_ms: dict[str, float] = Field(
        description="Wall time per node in ms (a node that runs more than once is summed) and `total` for the whole run")
    verification: Optional[Verification] = Field(None, description="Agentic only: the last verification and the retry count")
    error: Optional[str] = Field(None, description="Only when the run recorded an error")

    def to_dict(self) -> dict[str, Any]:
        """The contract as a plain dict (what `to_contract` returns); optional fields only when not None."""
        return self.model_dump()
