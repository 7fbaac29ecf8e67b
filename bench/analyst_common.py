"""Shared helpers of the analyst-question benchmarks (`bench/analyst_questions.py` and its classes, and the
hand-written sets of `bench/analyst_fresh.py`): read a filing's inline XBRL with its dimensional contexts and row
labels, name its members, its metadata, and build one question row.

The gold of a fact and a period, the line-item phrasings and the month names come from `finrag.eval.edgar_gold`
(as `bench/edgar_real.py`'s do): its underscore names are private to finrag, imported here once and given public
names for the other bench modules (making them public in finrag is eval/'s change, not bench/'s).
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from finrag.eval.edgar_gold import (  # private in finrag (eval/ is not bench's to change): public names below
    _TEMPLATES,
    CONCEPTS,
    LABELS,
    _date,
    _gold,
    _periods,
    _words,
)
from finrag.tools.documents.html import _FilingText  # private in finrag: the system's HTML reader, its pages
from finrag.tools.documents.xbrl import XbrlCollector
from finrag.tools.vocabulary.dates import MONTH_NAMES, dei_date

MONTHS = MONTH_NAMES
"""January to December."""
TEMPLATES = _TEMPLATES
"""`edgar_real`'s line-item question phrasings."""
parse_date = _date
"""An XBRL date ("2024-09-28") as a date, or None."""
date_words = _words
"""A date as written ("September 28, 2024")."""
fact_gold = _gold
"""The gold of one dimensionless fact: (facts, concepts, end, balance, months, years_back) -> dict | None."""
period_phrases = _periods
"""A filing's period phrasings: (form, fy, q, end) -> [(phrase, kind, months, years_back)]."""

__all__ = ["AXES", "CONCEPTS", "LABELS", "MEASURE_LABEL", "MONTHS", "REVENUE", "TEMPLATES", "FactCollector",
           "clean_label", "date_words", "fact_gold", "filing_meta", "make_question", "member_name", "owner",
           "period_phrases", "parse_date", "periodic", "read_filing", "revenue_members"]

AXES = {"srt:ProductOrServiceAxis": "product", "us-gaap:StatementBusinessSegmentsAxis": "segment",
        "srt:StatementGeographicalAxis": "region"}
REVENUE = CONCEPTS["revenue"][1] + ("RevenueFromContractWithCustomerIncludingAssessedTax",)
_COUNTRIES = {"US": "United States", "CN": "China", "DE": "Germany", "GB": "United Kingdom", "JP": "Japan",
              "CA": "Canada", "FR": "France", "IN": "India"}
MEASURE_LABEL = re.compile(r"(?i)^(?:net |total )?(?:sales|revenues?)$")
"""A row label that is the consolidated measure's own name ("Sales" beside IBM's product member): not a name for
the member (the question would read as the total's); the member's QName is used instead."""
_SKIP_MEMBERS = re.compile(r"(?i)(Eliminat|Corporate|Intersegment|Reconcil|Consolidat|AllOther)")


class FactCollector(XbrlCollector):
    """The system's collector, also keeping each context's explicit members (`members`: id -> [(axis, member)]),
    the period of every context, the text of the first label cell of the table row a fact is displayed in
    (`row`), and the page of every dei fact (`dei_pages`)."""

    def __init__(self) -> None:
        super().__init__()
        self.members: dict[str, list[tuple[str, str]]] = {}
        self.periods: dict[str, dict] = {}
        self.dei_pages: dict[str, int] = {}
        self._member: list[str] | None = None
        self._row: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def start(self, tag: str, attrs: list, page: int, hidden: bool) -> None:
        if tag == "tr":
            self._row, self._cell = [], None
        elif tag in ("td", "th"):
            if self._row is None:
                self._row = []
            self._cell = []
            self._row.append(self._cell)
        elif tag == "xbrldi:explicitmember" and self._ctx is not None:
            self._member = [next((v or "" for k, v in attrs if k and k.lower() == "dimension"), ""), ""]
        super().start(tag, attrs, page, hidden)

    def data(self, text: str) -> None:
        if self._member is not None:
            self._member[1] += text.strip()
        if self._cell is not None:
            self._cell.append(text)
        super().data(text)

    def end(self, tag: str) -> None:
        if tag == "xbrldi:explicitmember" and self._member is not None and self._ctx is not None:
            self._ctx.setdefault("_members", []).append(tuple(self._member))
            self._member = None
        elif tag == "xbrli:context" and self._ctx is not None:
            c = self._ctx
            self.members[c["id"]] = list(c.get("_members", []))
            self.periods[c["id"]] = {k: c[f] for k, f in (("start", "startdate"), ("end", "enddate"),
                                                          ("instant", "instant")) if c.get(f)}
        elif tag == "tr":
            self._row = self._cell = None
        elif tag in ("td", "th"):
            self._cell = None
        super().end(tag)

    def _finish(self, tag: str, a: dict, parts: list[str]) -> None:
        n = len(self.facts)
        name = a.get("name", "")
        if name.startswith("dei:") and name[4:] not in self.dei_pages:
            self.dei_pages[name[4:]] = a.get("_page", -1)
        super()._finish(tag, a, parts)
        if len(self.facts) > n and self._row:
            for cell in self._row[:-1] or self._row:
                text = re.sub(r"\s+", " ", "".join(cell).replace("\xa0", " ")).strip()
                if text and not re.fullmatch(r"[$()\d,.\s%\u2014\u2013-]*", text):
                    self.facts[-1]["row"] = text
                    break


def read_filing(markup: str) -> dict:
    """The facts of one filing: `xbrl` (the system's shape: dimensionless contexts and facts, dei), `all` (every
    numeric fact, with its context's `members` and period), `dei_pages` and the number of pages."""
    collector = FactCollector()
    parser = _FilingText(collector)
    parser.feed(markup)
    parser.close()
    data = collector.data_dict() or {"contexts": {}, "facts": [], "dei": {}}
    facts = [{**f, "members": collector.members.get(f["context"], []), **collector.periods.get(f["context"], {})}
             for f in collector.facts]
    return {"xbrl": data, "all": facts, "dei_pages": collector.dei_pages, "pages": len(parser.pages())}


def member_name(member: str) -> str:
    """How a member QName reads ("aapl:GreaterChinaSegmentMember" -> "Greater China"; "country:DE" -> "Germany")."""
    prefix, _, local = member.partition(":")
    if prefix == "country":
        return _COUNTRIES.get(local, "")
    local = re.sub(r"(Segment)?Member$", "", local)
    words = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", local).split()
    return " ".join(w.lower() if w in ("And", "Of", "The") else w for w in words)


def clean_label(row: str) -> str:
    """A displayed row label as analysts say it: footnote marks, trademarks and a leading "Total" dropped."""
    text = re.sub(r"\s*\(\d\)|[\u00ae\u2122*]", "", row or "")
    return re.sub(r"(?i)^total\s+", "", text).strip(" :,")


def periodic(filing: dict, facts: list[dict]) -> dict:
    """A facts dict of `fact_gold`'s shape holding only `facts` (their contexts' periods as contexts)."""
    return {"contexts": {f["context"]: {k: f[k] for k in ("start", "end", "instant") if k in f} for f in facts},
            "facts": facts}


def filing_meta(path: Path, filing: dict) -> dict | None:
    dei = filing["xbrl"]["dei"]
    if not dei.get("DocumentType") or not dei.get("DocumentPeriodEndDate"):
        return None
    form = dei["DocumentType"].replace("-", "")
    fy, fp = int(dei["DocumentFiscalYearFocus"]), dei.get("DocumentFiscalPeriodFocus", "FY")
    end = parse_date(dei_date(dei["DocumentPeriodEndDate"]) or "")
    if end is None:
        return None
    legal = dei["EntityRegistrantName"]
    short = re.sub(r"(?i),?\s+(?:inc\.?|corporation|company|co\.?|platforms, inc\.)$", "", legal).strip()
    names = [re.sub(r"(?i)^the\s+", "", short), (dei.get("TradingSymbol") or [short])[0], legal]
    names = [n.title().replace(".Com", ".com") if n.isupper() and len(n) > 5 else n for n in names]
    return {"doc_id": path.stem, "form": form, "fy": fy, "q": int(fp[1]) if fp.startswith("Q") else 4, "end": end,
            "names": names}


def owner(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def make_question(meta: dict, cls: str, sub: str, text: str, gold: dict, k: int) -> dict:
    return {"id": f"{meta['doc_id']}:{cls}:{sub}:{k}", "question": text[0].upper() + text[1:], "cls": cls,
            "sub": sub, "doc_id": meta["doc_id"], "form": meta["form"], **gold}


def revenue_members(filing: dict) -> tuple[dict[str, list[tuple[str, str]]], dict[tuple[str, str], list[dict]]]:
    """The revenue facts of one-member contexts of the breakdown axes (reconciling members left out): the members
    of each axis in the filing's order, and each (axis, member)'s facts."""
    by_axis: dict[str, list[tuple[str, str]]] = defaultdict(list)
    facts: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for f in filing["all"]:
        if len(f["members"]) == 1 and f["members"][0][0] in AXES and f["concept"][8:] in REVENUE \
                and f["concept"].startswith("us-gaap:") and not _SKIP_MEMBERS.search(f["members"][0][1]):
            key = f["members"][0]
            if key not in facts:
                by_axis[key[0]].append(key)
            facts[key].append(f)
    return by_axis, facts


