"""Primary financial statements: which one a question needs, which ones a chunk contains."""
from __future__ import annotations

import re

STATEMENT_TITLES = {
    "cash_flow": re.compile(r"statements?\s+of\s+(?:consolidated\s+)?cash\s+flows?|cash\s+flows?\s+statements?", re.I),
    "income": re.compile(r"statements?\s+of\s+(?:consolidated\s+)?(?:income|operations|earnings|comprehensive\s+income)"
                         r"|income\s+statements?", re.I),
    "balance": re.compile(r"balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?financial\s+position", re.I),
}
STATEMENT_CUES = {
    "cash_flow": re.compile(r"cash\s*flow|capex|capital\s+expenditure|purchases?\s+of\s+property|dividends?\s+paid"
                            r"|cash\s+from\s+operations|operating\s+activities|investing|financing|repurchase|d&a"
                            r"|depreciation", re.I),
    "income": re.compile(r"income\s+statement|statement\s+of\s+(?:income|operations)|p&l|revenue|net\s+sales|net\s+income"
                         r"|operating\s+income|cogs|cost\s+of\s+(?:goods|sales|revenue)|gross\s+(?:margin|profit)"
                         r"|operating\s+margin|ebitda?|interest\s+expense|earnings\s+per\s+share|\beps\b|sg&a"
                         r"|effective\s+tax\s+rate|dpo|days\s+payable|inventory\s+turnover", re.I),
    "balance": re.compile(r"balance\s+sheet|financial\s+position|total\s+assets|current\s+assets|current\s+liabilities"
                          r"|inventor(?:y|ies)|accounts\s+payable|receivables?|pp&?n?e|property,?\s+plant|working\s+capital"
                          r"|quick\s+ratio|total\s+debt|shareholders.?\s+equity|return\s+on\s+assets|\broa\b|dpo"
                          r"|days\s+payable", re.I),
}
DIGITS = re.compile(r"\d")
_TITLES_LOWER = {name: re.compile(rx.pattern) for name, rx in STATEMENT_TITLES.items()}  # for lower-cased text


def statement_intent(question: str) -> set[str]:
    """Which primary financial statements a question needs (by its metric words)."""
    return {name for name, rx in STATEMENT_CUES.items() if rx.search(question)}


def statements_in(text: str) -> set[str]:
    """The primary statements whose titles `text` mentions."""
    low = text.lower()
    if "statement" not in low and "sheet" not in low:  # every title contains one of the two: skip the regexes
        return set()
    return {name for name, rx in _TITLES_LOWER.items() if rx.search(low)}  # case-sensitive search: literal prefix scan
