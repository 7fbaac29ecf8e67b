"""Typed records shared by every node, tool and report.

These are the nouns of finrag: what the metadata extractor finds in a question
(`ExtractedMetadata`), a document as the registry knows it (`DocumentInfo`),
and a retrieved chunk (`RetrievedChunk`). They are pydantic models so that
LLM structured output, LangServe schemas and the JSON contract share one
definition.
"""
from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, Field


class ExtractedMetadata(BaseModel):
    """Document identity found in a question (the SFR/HDRR router's output)."""

    companies: list[str] = Field(default_factory=list, description="Company names as written or canonical, e.g. ['3M', 'Johnson & Johnson']")
    tickers: list[str] = Field(default_factory=list, description="Ticker symbols, upper case, e.g. ['MMM', 'JNJ']")
    years: list[int] = Field(default_factory=list, description="Fiscal years mentioned, four digits, e.g. [2022]")
    periods: list[str] = Field(default_factory=list, description="Fiscal periods: 'FY2022' for a year, '2023Q2' for a quarter")
    forms: list[str] = Field(default_factory=list, description="Form types: '10K', '10Q', '8K', 'EARNINGS', 'ANNUALREPORT'")
    dates: list[str] = Field(default_factory=list, description="Calendar dates mentioned, ISO 'YYYY-MM-DD'")


class DocumentInfo(BaseModel):
    """One filing as the registry knows it (from its path AND its cover page)."""

    doc_id: str = Field(description="File name without extension, e.g. '3M_2018_10K'")
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
    aliases: list[str] = Field(default_factory=list)


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
