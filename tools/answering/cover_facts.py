"""Cover facts from an inline-XBRL filing's dei facts: the auditor, shares outstanding (with their as-of date),
the public float, the CIK, the fiscal year's end, the principal executive offices' address, the telephone number,
the state of incorporation, the IRS employer identification number and the exchange (issue 33).

`answer_cover(asked, facts, doc_id, info)` answers the cover fact the question's reading names
(`QuestionFacts.cover`) from the routed filing's facts: the tagged `dei:EntityCommonStockSharesOutstanding` /
`dei:EntityPublicFloat` facts (value, as-of date, the page they are displayed on) and the dei text facts
(`AuditorName`, `AuditorLocation`, `EntityCentralIndexKey`, `CurrentFiscalYearEndDate`). None when the filing
does not tag it: the other strategies answer, never another fact presented as this one.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.question import CoverFact, QuestionFacts
from finrag.tools.answering.fact_sources.cover import CoverFacts
from finrag.tools.answering.reader import Found, ReaderResult
from finrag.tools.answering.xbrl_facts import owner
from finrag.tools.vocabulary.dates import MONTH_NAMES

__all__ = ["answer_cover"]

_YEAR_END = re.compile(r"^-?-?(\d{2})-(\d{2})$|^(\d{1,2})[/-](\d{1,2})$")


def _year_end(text: str) -> str:
    """'--09-28', '12/31', '12-31' or 'DECEMBER 31' -> 'September 28' / 'December 31' (as written otherwise)."""
    t = text.strip()
    m = _YEAR_END.match(t)
    if m:
        month, day = int(m.group(1) or m.group(3)), int(m.group(2) or m.group(4))
        if 1 <= month <= 12 and 1 <= day <= 31:
            return f"{MONTH_NAMES[month - 1]} {day}"
    return t.title() if t.isupper() else t


_ENDED = re.compile(r"(?i)\b(?:quarter|year|period|months|weeks)\s+end(?:ed|ing)\b")


def _text(value: object) -> str:
    """A dei text fact as one string (a list of values joined), whitespace and trailing commas tidied."""
    items = value if isinstance(value, list) else [value]
    return ", ".join(dict.fromkeys(" ".join(str(v).split()).strip(" ,") for v in items if str(v or "").strip()))


_ADDRESS = ("EntityAddressAddressLine1", "EntityAddressAddressLine2", "EntityAddressAddressLine3",
            "EntityAddressCityOrTown", "EntityAddressStateOrProvince", "EntityAddressPostalZipCode",
            "EntityAddressCountry")


def _entity_text(cover: CoverFact, dei: dict, whose: str) -> Optional[tuple[str, str]]:
    """(the sentence, the dei concepts) of a cover fact the filing tags as text, or None when it does not."""
    if cover == "address":
        parts = [(k, _text(dei.get(k))) for k in _ADDRESS if _text(dei.get(k))]
        if not any(k.endswith(("Line1", "CityOrTown")) for k, _v in parts):
            return None
        line = ", ".join(v for k, v in parts if not k.endswith(("PostalZipCode", "StateOrProvince")))
        state_zip = " ".join(v for k, v in parts if k.endswith(("StateOrProvince", "PostalZipCode")))
        address = ", ".join(x for x in (line, state_zip) if x)
        return (f"{whose} principal executive offices are at {address}",
                "dei:" + ", dei:".join(k for k, _v in parts))
    if cover == "phone":
        number = " ".join(x for x in (_text(dei.get("CityAreaCode")), _text(dei.get("LocalPhoneNumber"))) if x)
        return (f"{whose} telephone number is {number}", "dei:CityAreaCode, dei:LocalPhoneNumber") \
            if _text(dei.get("LocalPhoneNumber")) else None
    if cover == "incorporation":
        where = _text(dei.get("EntityIncorporationStateCountryCode"))
        return (f"{whose} state (or country) of incorporation is {_STATES.get(where, where)}",
                "dei:EntityIncorporationStateCountryCode") if where else None
    if cover == "tax_id":
        ein = _text(dei.get("EntityTaxIdentificationNumber"))
        return (f"{whose} IRS employer identification number is {ein}", "dei:EntityTaxIdentificationNumber") \
            if ein else None
    exchange, symbols = _text(dei.get("SecurityExchangeName")), dei.get("TradingSymbol")
    if not exchange:
        return None
    first = (symbols[0] if isinstance(symbols, list) and symbols else _text(symbols)) or ""
    more = f" ({len(symbols) - 1} other registered securities, such as notes, have their own symbols)" \
        if isinstance(symbols, list) and len(symbols) > 1 else ""
    venue = _EXCHANGES.get(exchange.upper()) or (exchange if exchange.lower().startswith("the ") else f"the {exchange}")
    return (f"{whose} registered securities trade on {venue}"
            + (f" under the trading symbol {first}{more}" if first else ""),
            "dei:SecurityExchangeName, dei:TradingSymbol")


_STATES = {"DE": "Delaware", "CA": "California", "NY": "New York", "NV": "Nevada", "WA": "Washington",
           "TX": "Texas", "NJ": "New Jersey", "MD": "Maryland", "PA": "Pennsylvania", "OH": "Ohio", "GA": "Georgia"}
_EXCHANGES = {"NYSE": "the New York Stock Exchange", "NASDAQ": "the Nasdaq Stock Market"}


def answer_cover(asked: QuestionFacts, facts: Optional[dict], doc_id: str,
                 info: Optional[dict]) -> Optional[ReaderResult]:
    """The cover fact `asked.cover` from the filing's dei facts, or None (see the module docstring)."""
    cover: Optional[CoverFact] = asked.cover
    if cover is None or not facts:
        return None
    info = info or {}
    source = CoverFacts(facts, doc_id)
    dei = source.dei
    whose = owner(info)
    if source.reads(cover):
        fact = source.fact(cover, asked)
        if fact is None:  # absent, or one per class of stock without a total: not one number to state
            return None
        instant, value, page = fact.period.instant, fact.value, fact.citation.page
        cite = fact.citation.text
        # a date the question gives as the filing's period ("its 10-Q for the quarter ended August 31, 2024") names
        # the filing, not the count's date
        period_end = str(info.get("period_end") or "")
        dates = [d for d in asked.dates if not (d == period_end and _ENDED.search(asked.text))]
        if dates and instant not in dates:  # another date's count is not the one asked
            what = "shares outstanding" if cover == "shares_outstanding" else "public float"
            return ReaderResult(answer=(f"No {what} as of {', '.join(dates)} was found in {doc_id}: its cover "
                                        f"gives the count as of {instant} {cite}."), confident=False, kind="item", asked="cover")
        if cover == "shares_outstanding":
            stated = f"{whose} shares of common stock outstanding as of {instant}: {value:,.0f}"
        else:
            stated = (f"{whose} public float (the aggregate market value of the voting stock held by non-affiliates) "
                      f"as of {instant}: ${value:,.0f} (${value / 1e9:,.2f} billion)")
        answer = (f"{stated} {cite}. Source: the filing's cover page, inline XBRL fact {fact.concept} "
                  f"(displayed as {fact.text or value}).")
        found = Found(item=cover, year=int(info.get("fiscal_year") or 0), value=value, label=fact.concept,
                      raw=fact.text, header=f"as of {instant}", doc_id=doc_id, page=max(page, 0),
                      scale=None, statement=None, score=1.0)
        return ReaderResult(answer=answer, confident=True, kind="item", asked="cover", found=[found] if page >= 0 else [],
                            pages_added=[(doc_id, page)] if page >= 0 else [], value=value)
    cite = f"[{doc_id}, inline XBRL]"
    if cover == "auditor":
        name = str(dei.get("AuditorName") or "").strip()
        if not name:
            return None
        where = str(dei.get("AuditorLocation") or "").strip()
        stated = f"{whose} independent registered public accounting firm is {name}" + (f" ({where})" if where else "")
        concept = "dei:AuditorName"
    elif cover == "cik":
        cik = str(dei.get("EntityCentralIndexKey") or "").strip()
        if not cik.isdigit():
            return None
        stated, concept = f"{whose} CIK (SEC Central Index Key) is {cik}", "dei:EntityCentralIndexKey"
    elif cover == "fiscal_year_end":
        end = str(dei.get("CurrentFiscalYearEndDate") or "").strip()
        if not end:
            return None
        stated, concept = f"{whose} fiscal year ends on {_year_end(end)}", "dei:CurrentFiscalYearEndDate"
    else:
        told = _entity_text(cover, dei, whose)
        if told is None:
            return None
        stated, concept = told
    answer = f"{stated} {cite}. Source: the filing's cover page, inline XBRL fact{'s' if ',' in concept else ''} {concept}."
    return ReaderResult(answer=answer, confident=True, kind="item", asked="cover")
