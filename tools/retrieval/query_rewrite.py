"""The offline query rewriter: expand financial abbreviations and statement names, drop instruction
boilerplate ("answer in USD millions", "round to one decimal"), keep financial terms, names and numbers."""
from __future__ import annotations

import functools
import re

from pydantic import BaseModel, Field

from finrag.state.schema import LLMKeywords, LLMQuery
from finrag.tools.retrieval.vocabulary import STOPWORDS

ABBREVIATIONS = {
    "pp&e": "property plant and equipment", "ppne": "property plant and equipment",
    "fcf": "free cash flow", "cogs": "cost of goods sold cost of sales", "capex": "capital expenditures",
    "sg&a": "selling general and administrative expenses", "r&d": "research and development",
    "eps": "earnings per share", "roa": "return on assets net income total assets",
    "roe": "return on equity", "dpo": "days payable outstanding accounts payable cost of sales",
    "dso": "days sales outstanding accounts receivable", "dio": "days inventory outstanding inventories",
    "ccc": "cash conversion cycle", "ebitda": "ebitda depreciation amortization operating income",
    "ebit": "ebit operating income", "ebitdar": "ebitdar", "yoy": "year over year",
    "cagr": "compound annual growth revenue", "d&a": "depreciation and amortization",
    "m&a": "mergers and acquisitions", "opex": "operating expenses", "fx": "foreign exchange",
    "gaap": "gaap", "capital expenditure": "capital expenditures purchases of property",
    "working capital": "working capital total current assets total current liabilities",
    "quick ratio": "quick ratio cash marketable securities receivables current liabilities",
    "gross margin": "gross margin gross profit net sales cost of sales",
    "operating margin": "operating margin operating income net sales",
    "free cash flow": "free cash flow net cash provided by operating activities capital expenditures",
    "effective tax rate": "effective tax rate income taxes",
    "inventory turnover": "inventory turnover cost of sales inventories",
    "capital-intensive": "capital expenditures purchases of property plant and equipment total assets",
    "capital intensive": "capital expenditures purchases of property plant and equipment total assets",
}

PHRASES = {  # analysts' words -> the words filings use for the same thing (regular expressions over the question)
    r"legal (?:battles?|disputes?|cases?|matters|issues|challenges)|lawsuits?|litigations?|sued":
        "legal proceedings litigation claims contingencies",
    r"geograph(?:y|ies|ical)|regions?(?! of)|countries": "geographic regions countries international",
    r"drove|drivers?|driving|caused": "driven primarily due",
    r"(?:primary|main|key|largest|biggest|principal) customers?": "major customers principal customers",
}

STATEMENTS = {
    "balance sheet": "consolidated balance sheets total assets liabilities equity",
    "statement of financial position": "consolidated balance sheets total assets liabilities",
    "cash flow statement": "consolidated statements of cash flows operating investing financing activities",
    "statement of cash flows": "consolidated statements of cash flows operating investing financing activities",
    "income statement": "consolidated statements of operations income revenue net income",
    "statement of income": "consolidated statements of income revenue net income",
    "p&l": "consolidated statements of operations income",
}

BOILERPLATE = re.compile(
    r"(answer in [^.?]*|round(?:ed)? to [^.?]*|(?:please )?(?:state|give|provide) (?:your )?(?:answer|a response)[^.?]*"
    r"|in units of [^.?]*|calculate what was asked[^.?]*|if [^.?]* is not (?:a )?(?:useful|relevant)[^.?]*"
    r"|assume that you are [^.?]*|you are an? [^.?]*analyst[^.?]*|as if you are [^.?]*)",
    re.I)

_TOKEN = re.compile(r"[A-Za-z][A-Za-z&'.-]*[A-Za-z&]|\d{4}|\d+(?:\.\d+)?%?|[A-Za-z]")


_NAME_WORD = re.compile(r"[a-z0-9&]+")


def without_company_words(keywords: list[str], question: str, extracted: dict | None) -> list[str]:
    """The keywords of a search scoped to the routed filing(s), without the words that name the company.

    Inside one company's filings its name, short name and ticker are on nearly every page, so as BM25 terms
    and in the reranker's keyword coverage they only add noise. Dropped: the words of the linker's mention
    spans ("JnJ", "American Express"), of the routed companies' names and of their tickers, unless the rest
    of the question (the spans removed) still yields them as keywords, e.g. "general" in "General Mills'
    SG&A" (from selling, general and administrative expenses).
    """
    ex = extracted or {}
    spans = [str(c.get("text") or "") for c in ex.get("candidates") or [] if c.get("in_index")]
    named = " ".join([*spans, *map(str, ex.get("companies") or []), *map(str, ex.get("tickers") or [])]).lower()
    rest = question
    for span in sorted(spans, key=len, reverse=True):
        rest = rest.replace(span, " ") if span else rest
    drop = set(_NAME_WORD.findall(named)) - {k.lower() for k in offline_rewrite(rest).keywords}
    if not drop:
        return list(keywords)
    return [k for k in keywords if k.lower().removesuffix("'s") not in drop]


class SearchTerms(BaseModel):
    """A rewrite as the searches use it: the query (vector search) and the keywords (BM25). What the offline
    strategy returns is kept whole: its limits are its own (`offline_rewrite`: 32 keywords, chosen by
    measurement). The bounds of an LLM's reply (`Rewrite`) apply to LLM replies only: a 10-keyword bound meant
    for them once cut the offline keywords too and took 19 points of evidence from CBR unnoticed (issue 46)."""

    query: str = Field(description="The question restated as a clear search query")
    keywords: list[str] = Field(default_factory=list, description="Search keywords")


class Rewrite(BaseModel):
    """What an LLM rewriter returns (its structured-output schema, named so to the server): bounded like the
    router's (`state.schema.LLMQuery`, `LLMKeywords`), so a reply ends inside the rewriter's completion limit."""

    query: LLMQuery = Field(description="The question restated as a clear search query")
    keywords: LLMKeywords = Field(default_factory=list, description="3-10 search keywords")


_COMPOUNDS = re.compile(r"\b(cash)(flows?)\b", re.I)  # "cashflow" is written "cash flow" in filings


def offline_rewrite(question: str) -> SearchTerms:
    """The offline rewrite of `question`: the question without boilerplate, with the expansions of the
    abbreviations, statement names and analysts' phrases it uses, and up to 32 keywords. A fresh `SearchTerms`
    each call; the work is done once per question text (a pure function of it, memoised): a run asks for it
    in `rewrite`, in `fts_search` and `rerank` (`without_company_words`) and in `generate`."""
    query, keywords = _offline_rewrite(question)
    return SearchTerms(query=query, keywords=list(keywords))


@functools.lru_cache(maxsize=4096)
def _offline_rewrite(question: str) -> tuple[str, tuple[str, ...]]:
    """`offline_rewrite`'s (query, keywords), memoised on the question text."""
    question = _COMPOUNDS.sub(r"\1 \2", question)
    core = BOILERPLATE.sub(" ", question)
    low = core.lower()
    expansions = [v for k, v in {**ABBREVIATIONS, **STATEMENTS}.items()
                  if re.search(r"(?<![a-z])" + re.escape(k) + r"(?![a-z])", question.lower())]
    expansions += [v for k, v in PHRASES.items() if re.search(r"(?<![a-z])(?:" + k + r")(?![a-z])", question.lower())]
    keywords: list[str] = []
    for tok in _TOKEN.findall(low):
        tok = tok.strip(".'-")
        if len(tok) < 2 or tok in STOPWORDS or tok.endswith("'s") and tok[:-2] in STOPWORDS:
            continue
        tok = tok[:-2] if tok.endswith("'s") else tok
        if tok not in keywords:
            keywords.append(tok)
    for exp in expansions:
        for tok in exp.split():
            if tok not in keywords and tok not in STOPWORDS:
                keywords.append(tok)
    query = " ".join(core.split())
    if expansions:
        query += " (" + "; ".join(expansions) + ")"
    return query, tuple(keywords[:32])
