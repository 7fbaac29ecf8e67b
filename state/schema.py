"""Typed records shared by every node, tool and report.

These are the nouns of finrag: what the metadata extractor finds in a question
(`ExtractedMetadata`), a document as the registry knows it (`DocumentInfo`),
and a retrieved chunk (`RetrievedChunk`). They are pydantic models so that
LLM structured output, LangServe schemas and the JSON contract share one
definition.
"""
from __future__ import annotations

from typing import Annotated, Any, Optional

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


class QuestionIdentity(BaseModel):
    """The identity fields a question names: companies, tickers, years, periods, forms, dates (the fields
    `ExtractedMetadata` and `RouterOutput` share; each adds its own after them)."""

    companies: list[str] = Field(default_factory=list, description="Company names as written or canonical, e.g. ['3M', 'Johnson & Johnson']")
    tickers: list[str] = Field(default_factory=list, description="Ticker symbols, upper case, e.g. ['MMM', 'JNJ']")
    years: list[int] = Field(default_factory=list, description="Fiscal years mentioned, four digits, e.g. [2022]")
    periods: list[str] = Field(default_factory=list, description="Fiscal periods: 'FY2022' for a year, '2023Q2' for a quarter")
    forms: list[str] = Field(default_factory=list, description="Form types: '10K', '10Q', '8K', 'EARNINGS', 'ANNUALREPORT'")
    dates: list[str] = Field(default_factory=list, description="Calendar dates mentioned, ISO 'YYYY-MM-DD'")


class ExtractedMetadata(QuestionIdentity):
    """Document identity found in a question (the SFR/HDRR router's output)."""

    not_indexed: list[str] = Field(default_factory=list, description="Company-like names the question names that the index holds no filing of, e.g. ['Zorblax Corporation'] (filled by the linker)")
    candidates: list[dict] = Field(default_factory=list, description="Every company the linker considered: name, key, in_index, text, confidence (0-1), kind, reason, and `alternative_to` on a reading ranking set aside (filled by the linker; accepted ones reach `companies`)")
    documents: list[str] = Field(default_factory=list, description="Doc ids an LLM router chose among the registry's candidates (only ids the registry holds are kept)")
    llm_overridden: list[str] = Field(default_factory=list, description="What an LLM router returned that was refused (a company, document, year, period, form or date the question's candidates or text do not support), e.g. [\"form '20K': not in the question\"]; the offline reading stands")
    left_out: list[str] = Field(default_factory=list, description="Filled by routing (issue 49): indexed companies the question lists that routing did not take (weak evidence), as 'Name (mention)'; the answer names them")
    fallback: dict = Field(default_factory=dict, description="Filled by routing when it chose no filing (issue 48): scope (what was searched: 'corpus', 'top_document', or 'none' for which_company), unresolved (the mentions it could not resolve) and candidates (the companies it set aside, most confident first: name, ticker, text, confidence, in_index, reason, key, question: the question asked about that company, and doc_ids for one the index holds: the filings that question is routed to); the answer leads with them")
    same_identity: list[dict] = Field(default_factory=list, description="Filled by routing (issue 34 case 7): each group of indexed filings that share a routed filing's identity (company, form, fiscal period, filing date), as identity ('Acme 10K FY2023'), doc_ids (all of them) and read (those the answer reads); the answer names them all")


ROUTER_WORDING: dict[str, str] = {
    "companies": "Companies the question is about, as written or as listed in the candidates; [] if none",
    "tickers": "Ticker symbols the question names, upper case",
    "years": "Fiscal years mentioned, four digits",
    "periods": "'FY2022' for a fiscal year, '2023Q2' for a fiscal quarter",
    "forms": "'10K', '10Q', '8K', 'EARNINGS', 'ANNUALREPORT'",
    "dates": "Calendar dates, ISO 'YYYY-MM-DD'",
}
"""How the LLM router's schema describes the shared `QuestionIdentity` fields (the words the model reads)."""


def _router_wording(schema: dict[str, Any]) -> None:
    """`RouterOutput`'s JSON schema (what the LLM is given) with the router's descriptions of the shared fields."""
    for name, text in ROUTER_WORDING.items():
        prop = (schema.get("properties") or {}).get(name)
        if isinstance(prop, dict):
            prop["description"] = text


def _cut_text(chars: int) -> Any:
    def cut(value: Any) -> Any:
        return value[:chars] if isinstance(value, str) else value
    return cut


def _cut_list(items: int) -> Any:
    def cut(value: Any) -> Any:
        return list(value)[:items] if isinstance(value, (list, tuple)) else value
    return cut


# What an LLM writes is bounded in its schema (issue 38): `maxLength` / `maxItems`, so a server that turns the
# schema into a grammar (llama.cpp's) cannot generate more, and a reply ends inside its role's completion limit
# even from a model that would repeat itself for ever; a longer value from a server that ignores the bounds is
# cut to them when read (the BeforeValidator), never a failed call.
LLMName = Annotated[str, BeforeValidator(_cut_text(60)), Field(max_length=60)]
LLMCode = Annotated[str, BeforeValidator(_cut_text(12)), Field(max_length=12)]
LLMQuery = Annotated[str, BeforeValidator(_cut_text(240)), Field(max_length=240)]
LLMKeyword = Annotated[str, BeforeValidator(_cut_text(32)), Field(max_length=32)]
LLMReason = Annotated[str, BeforeValidator(_cut_text(300)), Field(max_length=300)]
LLMNames = Annotated[list[LLMName], BeforeValidator(_cut_list(4)), Field(max_length=4)]
LLMCodes = Annotated[list[LLMCode], BeforeValidator(_cut_list(4)), Field(max_length=4)]
LLMYears = Annotated[list[int], BeforeValidator(_cut_list(4)), Field(max_length=4)]
LLMKeywords = Annotated[list[LLMKeyword], BeforeValidator(_cut_list(10)), Field(max_length=10)]


class RouterOutput(QuestionIdentity):
    """What an LLM router returns: the identity in the question and its verdict on the linker's candidates.
    Every list and string is bounded in its schema, so the reply ends well inside the router's completion limit
    even from a model that would repeat itself for ever (the `LLM*` types above)."""

    model_config = ConfigDict(json_schema_extra=_router_wording)

    companies: LLMNames = Field(default_factory=list)  # type: ignore[assignment]
    tickers: LLMCodes = Field(default_factory=list)  # type: ignore[assignment]
    years: LLMYears = Field(default_factory=list)  # type: ignore[assignment]
    periods: LLMCodes = Field(default_factory=list)  # type: ignore[assignment]
    forms: LLMCodes = Field(default_factory=list)  # type: ignore[assignment]
    dates: LLMCodes = Field(default_factory=list)  # type: ignore[assignment]
    documents: LLMNames = Field(default_factory=list, description="Doc ids from the candidate filings listed in the prompt that the question needs; [] to leave the choice to the registry")
    rejected: LLMNames = Field(default_factory=list, description="Candidate names from the prompt that the question does NOT mean (e.g. 'ON' used as a word)")


class RouteAndRewrite(RouterOutput):
    """The merged router + rewriter call: routing identity plus the search query and keywords."""

    query: LLMQuery = Field("", description="The question restated as a clear search query, abbreviations expanded")
    keywords: LLMKeywords = Field(default_factory=list, description="3-10 search keywords (line items, metrics, years, sections)")


class DocumentInfo(BaseModel):
    """One filing as the registry knows it (from its path AND its cover page)."""

    doc_id: str = Field(description="Unique id: the file name without extension ('3M_2018_10K'); the paper's "
                                    "'{year}/{TICKER}.pdf' gives 'TICKER_year', a bare period name in a company "
                                    "folder gives 'FOLDER_name'")
    path: str = ""
    company: str = Field("", description="Display name, e.g. 'Johnson & Johnson'")
    company_key: str = Field("", description="Normalised key from the path, e.g. 'JOHNSON_JOHNSON'")
    registrant: str = Field("", description="Exact name of registrant from the cover page")
    tickers: list[str] = Field(default_factory=list)
    fiscal_year: Optional[int] = None
    quarter: Optional[int] = None
    period: str = Field("", description="'2022' for a fiscal year, '2023Q2' for a quarter")
    form: str = Field("", description="'10K', '10Q', '8K', 'EARNINGS', 'ANNUALREPORT', or '' if unknown")
    filed_date: Optional[str] = Field(None, description="ISO date for dated filings (8-Ks)")
    fiscal_year_end: Optional[str] = Field(None, description="e.g. 'December 31' from the cover page")
    period_end: Optional[str] = Field(None, description="ISO end of the fiscal year or quarter the filing covers, from the cover page")
    items: list[str] = Field(default_factory=list, description="8-K items the filing reports, from its cover, e.g. ['5.02', '9.01']")
    cik: str = Field("", description="SEC Central Index Key (sidecar or dei:EntityCentralIndexKey)")
    sources: dict[str, str] = Field(default_factory=dict, description="Where each identity field came from: "
                                    "'sidecar', 'dei' (the inline-XBRL facts), 'cover' or 'filename'")
    identity_conflicts: list[str] = Field(default_factory=list, description="Where the file name (or the sidecar) "
                                          "and the filing's own facts (dei, cover) disagree on company, fiscal period "
                                          "or form, one line each, e.g. \"the file name says AAPL, the filing's dei "
                                          "facts say Microsoft Corp (MSFT); using the filing's\"; the filing's win")
    aliases: list[str] = Field(default_factory=list)
    alias_ids: list[str] = Field(default_factory=list, description="Ids other files with identical content would have had (indexed once)")
    alias_paths: list[str] = Field(default_factory=list, description="Other paths with identical content (indexed once, under this id)")


class RetrievedChunk(BaseModel):
    """A chunk as it travels through retrieval, fusion, reranking and generation."""

    chunk_id: int
    doc_id: str
    page_start: int
    page_end: int
    text: str
    score: float = 0.0
    fts_rank: Optional[int] = None
    vector_rank: Optional[int] = None
    vector_distance: Optional[float] = None
    rrf_score: Optional[float] = None
    rerank_score: Optional[float] = None
