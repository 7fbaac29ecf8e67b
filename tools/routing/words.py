"""Evidence about words: how common an English word is, and which tokens are finance abbreviations.

The linker never decides from a fixed list of "ambiguous tickers" or "common words": it asks how
common a token is as an English word (`zipf`, from the `wordfreq` package: 0 for "zorblax", ~4.8 for
"target", ~6.9 for "on") and whether it is an accounting or finance abbreviation analysts write in
capitals (`FINANCE_ABBREVIATIONS`: EPS, ROE, FCF, DSO, NI, GM ...). Both are features of a score,
not vetoes: "$ON", "(NYSE: ALL)" or "ticker IT" still name companies.
"""
from __future__ import annotations

import functools
import re

from finrag.tools.routing.text import LEGAL_SUFFIXES
from finrag.tools.routing.zipf_table import PLAIN, table

__all__ = ["FINANCE_ABBREVIATIONS", "LEGAL_SUFFIXES", "QUESTION_WORDS", "english_penalty", "is_finance_abbreviation",
           "is_shouting", "zipf"]

FINANCE_ABBREVIATIONS = frozenset("""
EPS DEPS BPS DPS BVPS TBV BV ROE ROA ROIC ROI ROCE RONA ROTE FCF FCFF FCFE OCF CFO CFI CFF NI OI GP GM OM NIM NII
EBIT EBITDA EBITDAR EBT NOPAT CAPEX OPEX COGS COS SGA SGNA RD DA DNA DPO DSO DIO DOH CCC AR AP PPE PPNE WC NWC NCI
OCI AOCI DTA DTL NOL RSU PSU SBC GAAP IFRS ASC FASB SEC IPO LBO EV TEV PE PB PS EVS YOY QOQ TTM LTM NTM YTD MTD
QTD FY CY YE FYE CAGR AUM NAV ARPU ARPA ARR MRR LTV CAC DAU MAU GMV TAM ASP SKU RPO CET LCR NSFR RWA TCE ALLL ACL
NPL CECL KPI ESG CEO CFO COO CTO CIO CAO CMO CHRO HR IT AI ML USD EUR GBP JPY CNY CAD AUD CHF US USA UK EU EMEA
APAC LATAM IRS FDA DOJ FTC EPA FX LIFO FIFO WACC DCF IRR NPV REIT ETF GDP CPI PPI LLC INC LP LTD PLC NA DSCR SOTP
FFO AFFO NOI ADR OCC MLR PBM CMS API SAAS SG NRR GRR PPA MD MDA IR PR CSR EBITA OPM NPM GPM TSR PEG EY DY
ICR IC SOX ERP CRM MSRP BOM OEM ODM MRO RFP GMS YE QE HY IG CDS ABS MBS CLO CP CD FHLB FDIC OCC FRB FOMC BPS
CF ASR COMP COMPS DIST REV MGMT MGT DIV DIVS EVOL ADJ OPS EXP EXPS AMORT DEPR CONS GUIDE SEG SEGS AUC AUA
""".split())
"""Accounting, finance and business abbreviations an analyst writes in capitals (a token feature); the last line
is analysts' shorthand (issue 35: cash flow, accelerated share repurchase, comparable sales or compensation,
distribution, revenue, management, dividend, evolution, expense, assets under custody ...), several of them tickers."""

QUESTION_WORDS = frozenset("""what whats how which who whom whose when where why did does do is are was were has have
had can could should would will shall may might please compare list show give tell explain describe
calculate compute find provide state according based using as in for of on at by from to the a an and or
between during since per among across vs versus total net""".split())
"""Lower-cased words that open or glue a question; never company names by themselves."""


@functools.lru_cache(maxsize=1)
def _frequency():
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # pragma: no cover - wordfreq is a dependency; keep routing alive without it
        return None
    return zipf_frequency


@functools.lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """How common `word` is in English on the Zipf scale (0 = unseen, 3 = rare, 5 = common, 7 = 'the')."""
    w = str(word or "").strip().lower()
    if not w or not re.search(r"[a-z]", w):
        return 0.0
    if PLAIN.fullmatch(w):  # plain words from the cached copy of wordfreq's list: no wordfreq import
        fast = table()
        if fast is not None:
            return fast(w)
    fn = _frequency()
    if fn is None:  # pragma: no cover
        return 6.0 if w in QUESTION_WORDS else 0.0
    try:
        return float(fn(w, "en"))
    except Exception:  # pragma: no cover - odd tokens
        return 0.0


@functools.lru_cache(maxsize=65536)
def is_finance_abbreviation(token: str) -> bool:
    """'EPS', 'ROE', 'SG&A', 'PP&E' ... (case-insensitive, '&' and '/' ignored)."""
    return re.sub(r"[&/.\-]", "", str(token or "").upper()) in FINANCE_ABBREVIATIONS


def english_penalty(word: str) -> float:
    """0 for non-words ('AAPL'), up to 0.45 for the commonest English words ('ON', 'IT', 'ALL')."""
    return max(0.0, min(0.45, (zipf(word) - 4.8) * 0.25))


def is_shouting(text: str) -> bool:
    """Mostly capitals over more than 20 letters: a question typed in capitals, whose words are not tickers."""
    upper, lower = len(re.findall(r"[A-Z]", text)), len(re.findall(r"[a-z]", text))
    return upper + lower > 20 and upper > 0.6 * (upper + lower)
