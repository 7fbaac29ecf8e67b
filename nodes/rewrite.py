"""rewrite: a clarified query for vector search and keywords for BM25.

With an LLM (`rewriter` role) the paper's rewrite; offline a deterministic
extractor: expand common financial abbreviations and statement names, drop
instruction boilerplate ("answer in USD millions", "round to one decimal"),
keep financial terms, names and numbers. Agentic retries arrive with
`retries > 0` and the entity-anchored prefix is put in front of the question.
"""
from __future__ import annotations

import re

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from finrag.nodes.common import config_of, timed
from finrag.nodes.prompts import REWRITE_SYSTEM
from finrag.tools.llm import get_chat_model, try_structured

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

STOPWORDS = frozenset(
    """a about above according after again against all also am an and any are as at based basing be because been
    before being below between both but by can could did do does doing down during each few for from further had has
    have having he her here how i if in into is it its itself just let me more most my no nor not now of off on once
    only or other our out over own please primarily question respond response same she should so some such than that
    the their them then there these they this those through to too under until up us using very was we were what
    when where which while who whom why will with would you your yours details shown clearly outlined information
    provided plainly judgments judgment base answer following best abilities perspective relying drawing conclusions
    stated only reasonable approximation exact possible number metric company's fy usd millions billions
    thousands defined define definition give solution round rounded decimal decimals place places units unit
    percents percent percentage calculate calculation compute amount data assume assuming analyst banker
    investment resource resources help want need approximately roughly""".split())

_TOKEN = re.compile(r"[A-Za-z][A-Za-z&'.-]*[A-Za-z&]|\d{4}|\d+(?:\.\d+)?%?|[A-Za-z]")


class Rewrite(BaseModel):
    query: str = Field(description="The question restated as a clear search query")
    keywords: list[str] = Field(default_factory=list, description="3-12 search keywords")


def offline_rewrite(question: str) -> Rewrite:
    core = BOILERPLATE.sub(" ", question)
    low = core.lower()
    expansions = [v for k, v in {**ABBREVIATIONS, **STATEMENTS}.items()
                  if re.search(r"(?<![a-z])" + re.escape(k) + r"(?![a-z])", question.lower())]
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
    return Rewrite(query=query, keywords=keywords[:32])


def anchored_question(state: dict, prefix_template: str) -> str:
    """The question, with the Agentic retry prefix when this is a retry."""
    question = state.get("question", "")
    if not state.get("retries"):
        return question
    who = (state.get("verification") or {}).get("anchor")
    if not who:
        extracted = state.get("extracted") or {}
        who = (extracted.get("tickers") or extracted.get("companies") or ["the company"])[0]
    return prefix_template.format(ticker=who) + question


@timed("rewrite")
def rewrite(state: dict, config=None) -> dict:
    cfg = config_of(config)
    question = anchored_question(state, cfg.retry_prefix)
    model = get_chat_model("rewriter", cfg)
    calls = []
    result = None
    if model is not None:
        result, rec = try_structured("rewriter", model, Rewrite, [SystemMessage(REWRITE_SYSTEM), HumanMessage(question)])
        calls.append(rec)
    if result is None or not (result.query or "").strip():
        result = offline_rewrite(question)
    elif state.get("retries"):
        result.query = question if question not in result.query else result.query
    return {"query": result.query, "keywords": list(result.keywords), "llm_calls": calls}
