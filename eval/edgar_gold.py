"""Gold values of real EDGAR filings from their own inline XBRL, and HDRR's outcome on them.

The questions and their gold (`generate`), the value judge (`states_value`) and one HDRR pass (`ask`) behind
`bench/edgar_real.py` and the quality guard's EDGAR classes (`finrag.eval.guard`). Questions are generated from
each filing's own inline-XBRL facts, in analysts' phrasing: the company by short name, ticker or legal name
(`dei:EntityRegistrantName`), the period as a fiscal year or quarter in the registrant's calendar or as a
period-end date; for a 10-Q both the quarter and the year to date, for a 10-K also the prior fiscal year. The
gold value is the fact of the concept in the context without dimensions whose period is the one asked, with
its scale and sign.
"""
from __future__ import annotations

import datetime as dt
import re
import time
from pathlib import Path

from finrag.api import run_query
from finrag.tools.documents.html import html_document
from finrag.tools.vocabulary.dates import MONTH_NAMES, dei_date

__all__ = ["CONCEPTS", "LABELS", "ask", "generate", "states_value"]

# concept key -> (how analysts name it, us-gaap concepts in the order the gold takes them, balance item?)
# how else analysts name each concept (the question rotates through them)
LABELS = {
    "revenue": ("total revenue", "revenue", "net sales", "total revenues"),
    "net_income": ("net income", "net earnings", "net income attributable to shareholders"),
    "eps_basic": ("basic EPS", "basic earnings per share"),
    "eps_diluted": ("diluted EPS", "diluted earnings per share", "EPS"),
    "operating_income": ("operating income", "income from operations", "operating profit"),
    "cfo": ("operating cash flow", "cash from operations", "net cash provided by operating activities"),
    "capex": ("capital expenditures", "capex", "purchases of property and equipment"),
    "rnd": ("R&D expense", "research and development expense", "R&D spending"),
    "total_assets": ("total assets",),
}
CONCEPTS = {
    "revenue": ("total revenue", ("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax"), False),
    "net_income": ("net income", ("NetIncomeLoss",), False),
    "eps_basic": ("basic EPS", ("EarningsPerShareBasic",), False),
    "eps_diluted": ("diluted EPS", ("EarningsPerShareDiluted",), False),
    "operating_income": ("operating income", ("OperatingIncomeLoss",), False),
    "cfo": ("operating cash flow", ("NetCashProvidedByUsedInOperatingActivities",), False),
    "capex": ("capital expenditures", ("PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"),
              False),
    "rnd": ("R&D expense", ("ResearchAndDevelopmentExpense",), False),
    "total_assets": ("total assets", ("Assets",), True),
}


def _date(s: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(s[:10])
    except (TypeError, ValueError):
        return None


def _words(d: dt.date) -> str:
    return f"{MONTH_NAMES[d.month - 1]} {d.day}, {d.year}"


def _gold(facts: dict, concepts: tuple, end: dt.date, balance: bool, months: int, years_back: int = 0) -> dict | None:
    """The first concept's fact in a dimensionless context for the period (see the module docstring); with
    `years_back`, the comparative period that many years before (its end within a week of the same date)."""
    ctxs = facts["contexts"]
    want = end.replace(year=end.year - years_back) if years_back else end
    for concept in concepts:
        hits = []
        for f in facts["facts"]:
            c = ctxs.get(f["context"])
            if f["concept"] != f"us-gaap:{concept}" or not c:
                continue
            if balance:
                e = _date(c.get("instant", ""))
                if not e or abs((e - want).days) > (7 if years_back else 0):
                    continue
            else:
                s, e = _date(c.get("start", "")), _date(c.get("end", ""))
                if not s or not e or abs((e - want).days) > (7 if years_back else 0) \
                        or abs((e - s).days - months * 30.44) > 12:
                    continue
            hits.append(f)
        if hits:
            pages = sorted({f["page"] for f in hits if f["page"] >= 0})
            return {"concept": concept, "value": hits[0]["value"], "text": hits[0]["text"], "pages": pages}
    return None


_TEMPLATES = ("What was {owner} {label} {phrase}?", "{name} {label} {phrase}", "How much was {owner} {label} {phrase}?",
              "{label} of {name} {phrase}")
_ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth"}


def _periods(form: str, fy: int, q: int, end: dt.date) -> list[tuple[str, str, int, int]]:
    """(phrase, kind, months, years back) of the periods asked about one filing; a balance uses its own phrases."""
    if form == "10K":
        return [(f"in fiscal {fy}", "annual", 12, 0), (f"for FY{fy}", "annual", 12, 0),
                (f"in its {fy} fiscal year", "annual", 12, 0), (f"for FY{str(fy)[2:]}", "annual", 12, 0),
                (f"for the fiscal year ended {_words(end)}", "annual", 12, 0),
                (f"in fiscal {fy - 1}", "prior_annual", 12, 1)]
    out = [(f"in Q{q} of fiscal {fy}", "quarter", 3, 0), (f"for the quarter ended {_words(end)}", "quarter", 3, 0),
           (f"in the {_ORDINAL[q]} quarter of fiscal {fy}", "quarter", 3, 0),
           (f"for the three months ended {_words(end)}", "quarter", 3, 0)]
    month_end = (end.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(days=1)
    if month_end != end:  # a 52/53-week year: analysts write the calendar quarter end
        out.append((f"for the quarter ended {_words(month_end)}", "quarter", 3, 0))
    if q > 1:
        out += [(f"for the {('six', 'nine')[q - 2]} months ended {_words(end)}", "ytd", 3 * q, 0),
                (f"year to date through Q{q} of fiscal {fy}", "ytd", 3 * q, 0)]
    if q == 2:
        out.append((f"in the first half of fiscal {fy}", "ytd", 6, 0))
    return out


def _balance_phrases(form: str, fy: int, q: int, end: dt.date) -> list[tuple[str, str, int, int]]:
    if form == "10K":
        return [(f"as of {_words(end)}", "annual", 0, 0), (f"at the end of fiscal {fy}", "annual", 0, 0),
                (f"at the end of fiscal {fy - 1}", "prior_annual", 0, 1)]
    return [(f"as of {_words(end)}", "quarter", 0, 0), (f"at the end of Q{q} of fiscal {fy}", "quarter", 0, 0)]


def generate(edgar: Path) -> list[dict]:
    """Questions with gold values from the filings' facts (the module docstring says how)."""
    out: list[dict] = []
    for path in sorted(edgar.glob("*.htm*")):
        _pages, facts = html_document(path.read_text(encoding="utf-8", errors="replace"))
        if facts is None:  # no inline XBRL: no gold to take
            continue
        dei = facts["dei"]
        form = dei["DocumentType"].replace("-", "")
        fy, fp = int(dei["DocumentFiscalYearFocus"]), dei.get("DocumentFiscalPeriodFocus", "FY")
        q = int(fp[1]) if fp.startswith("Q") else 4
        end = _date(dei_date(dei["DocumentPeriodEndDate"]) or "")
        if end is None:
            continue
        ticker = (dei.get("TradingSymbol") or [""])[0]
        legal = dei["EntityRegistrantName"]
        short = re.sub(r"(?i),?\s+(?:inc\.?|corporation|company|co\.?|platforms, inc\.)$", "", legal).strip()
        short = re.sub(r"(?i)^the\s+", "", short)
        names = [short, ticker, legal]
        k = 0
        for key, (_label, concepts, balance) in CONCEPTS.items():
            for j, (phrase, kind, months, back) in enumerate((_balance_phrases if balance else _periods)(form, fy, q, end)):
                label = LABELS[key][j % len(LABELS[key])]
                gold = _gold(facts, concepts, end, balance, months, back)
                if gold is None:
                    continue
                name = names[k % 3]
                owner = f"{name}'s" if not name.endswith("s") else f"{name}'"
                q_text = _TEMPLATES[k % len(_TEMPLATES)].format(owner=owner, name=name, label=label, phrase=phrase)
                k += 1
                out.append({"id": f"{path.stem}:{key}:{kind}:{k}", "question": q_text[0].upper() + q_text[1:],
                            "doc_id": path.stem, "form": form, "concept": key, "period": kind,
                            **{f"gold_{a}": b for a, b in gold.items()}})
    return out


_NUM = re.compile(r"\(?-?\$?\s?(\d[\d,]*(?:\.\d+)?)\)?(?:\s*(billion|million|thousand))?", re.I)
_SCALE = {"billion": 1e9, "million": 1e6, "thousand": 1e3}


def states_value(answer: str, gold: float, per_share: bool) -> bool:
    """Does the answer state the gold value? (a number with its scale word within 0.5%; per share: to the cent)"""
    for m in _NUM.finditer(answer or ""):
        try:
            v = float(m.group(1).replace(",", "")) * _SCALE.get((m.group(2) or "").lower(), 1.0)
        except ValueError:
            continue
        if per_share and abs(abs(v) - abs(gold)) < 0.005:
            return True
        if not per_share and gold and abs(abs(v) - abs(gold)) <= 0.005 * abs(gold):
            return True
    return False



def ask(questions: list[dict], index: Path) -> list[dict]:
    """Each question asked to HDRR offline: routed exactly to the gold filing, a context of that filing on a page
    showing the gold fact, the gold value stated (with the answer's first 400 characters and its time)."""
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        res = run_query(q["question"], system="hdrr", index_dir=str(index))
        routed = list(res["routing"]["routed_docs"])
        pages = set(q["gold_pages"])
        evidence = any(c["doc_id"] == q["doc_id"] and any(c["page_start"] <= p <= c["page_end"] for p in pages)
                       for c in res["contexts"])
        check = (res.get("reader") or {}).get("table_check") or {}
        rows.append({**q, "routed": routed, "status": res["routing"]["status"], "exact": routed == [q["doc_id"]],
                     "table_agrees": check.get("agrees"),
                     "evidence": evidence, "value": states_value(res["answer"], q["gold_value"],
                                                                 q["concept"].startswith("eps")),
                     "answer": res["answer"][:400], "ms": round((time.perf_counter() - t0) * 1000)})
    return rows

