"""The routing benchmark's corpus and development questions (issue 9), generated deterministically.

* **Corpus**: every company of `data/routing_companies.txt` (410 real US registrants, above the
  "## not indexed" line) x fiscal years 2021-2024 in the paper's layout `{year}/{TICKER}.pdf`, each with
  a realistic 10-K cover page (`cover_page`: form header, fiscal year end, commission file number,
  registrant in one of several typographic styles, state and IRS number, address, the Section 12(b)
  table with trading symbols in one of three layouts, notes rows, check-mark boilerplate). The
  benchmark builds the registry from these cover texts and paths (`corpus_documents`); `write_pdf`
  writes a real PDF of a filing (cover page plus a short body) for the tests that index files.
* **Questions** (`dev_questions`): terse analyst-style queries from templates written for this project
  (tickers first or last, "$" and "ticker" mentions, short and legal names, finance abbreviations that
  look like tickers, lower-case words that are tickers, two-digit and apostrophe years, ranges,
  several companies, forward-looking and historical periods, dates, forms, companies that are not
  indexed, questions naming no company), each with its gold companies, filings and status.

    python -m finrag.eval.routing_corpus --out eval/data/routing_dev.jsonl   # (re)write the questions
"""
from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from finrag.tools.routing.documents import build_document_info
from finrag.tools.vocabulary.dates import MONTH_NAMES

__all__ = ["YEARS", "BenchCompany", "corpus_documents", "cover_page", "dev_questions", "load_companies", "write_pdf"]

DATA = Path(__file__).resolve().parent / "data"
COMPANIES_FILE = DATA / "routing_companies.txt"
YEARS = (2021, 2022, 2023, 2024)
MONTHS = list(MONTH_NAMES)
STATES = ["Delaware", "California", "New York", "Ohio", "Pennsylvania", "Texas", "Minnesota", "Ireland",
          "New Jersey", "Washington", "Virginia", "Maryland", "North Carolina", "Indiana", "Georgia"]
EXCHANGES = ["New York Stock Exchange", "The Nasdaq Stock Market LLC", "Nasdaq Global Select Market", "NYSE"]


@dataclass
class BenchCompany:
    ticker: str
    legal: str
    fye: tuple[int, int]  # month, day
    short: list[str] = field(default_factory=list)
    indexed: bool = True
    other_tickers: tuple[str, ...] = ()  # the registrant's other listed classes (GOOG beside GOOGL), on its cover

    def doc_id(self, year: int) -> str:
        return f"{self.ticker}_{year}"

    def fye_text(self, year: int) -> str:
        month, day = self.fye
        cal = year + 1 if month <= 2 and self.ticker not in ("WMT", "NVDA", "CRM", "ADSK", "WDAY") else year
        return f"{MONTHS[month - 1]} {day}, {cal}"


def load_companies(path: Path = COMPANIES_FILE) -> list[BenchCompany]:
    out, indexed = [], True
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## not indexed"):
            indexed = False
            continue
        if not line.strip() or line.startswith("#"):
            continue
        ticker, legal, fye, *rest = [p.strip() for p in line.split("|")]
        month, day = (int(x) for x in fye.split("-"))
        short = [s.strip() for s in (rest[0].split(";") if rest else []) if s.strip()]
        out.append(BenchCompany(ticker, legal, (month, day), short, indexed))
    return out


def _rng(*parts) -> random.Random:
    return random.Random("|".join(map(str, parts)))


def cover_page(c: BenchCompany, year: int) -> str:
    """A 10-K cover page in one of several real-world typographic variants (deterministic per filing)."""
    r = _rng("cover", c.ticker, year)
    name = c.legal
    style = r.random()
    if style < 0.35:
        name = name.upper()
    elif style < 0.45:  # small caps extracted with a space after each capital
        name = " ".join(w[0] + " " + w[1:].upper() if len(w) > 3 and w[0].isupper() else w.upper() for w in name.split())
    state = r.choice(STATES)
    irs = f"{r.randint(10, 99)}-{r.randint(1000000, 9999999)}"
    file_no = f"{r.choice(['001', '1', '000'])}-{r.randint(1000, 39999)}"
    par = r.choice(["$0.01", "$0.001", "$1.00", "$0.00001", "no par value", "$.10"])
    exchange = r.choice(EXCHANGES)
    rows = [(f"Common Stock, {par} par value per share", c.ticker.replace(".", " "), exchange)]
    rows += [(f"Class {chr(66 + k)} Common Stock, {par} par value per share", t, exchange)
             for k, t in enumerate(c.other_tickers)]  # share classes: no random draw, other covers unchanged
    if r.random() < 0.3:
        coupon = r.choice(["0.875%", "1.125%", "1.500%", "2.250%", "3.000%"])
        rows.append((f"{coupon} Notes due {year + r.randint(3, 12)}", f"{c.ticker.split('.')[0]}{r.randint(25, 40)}",
                     "New York Stock Exchange"))
    layout = r.randrange(3)
    if layout == 0:
        table = ("Title of each class  Trading Symbol(s)  Name of each exchange on which registered\n"
                 + "".join(f"{a}  {b}  {x}\n" for a, b, x in rows))
    elif layout == 1:
        table = ("Title of each class\nTrading Symbol(s)\nName of each exchange on which registered\n"
                 + "".join(f"{a}\n{b}\n{x}\n" for a, b, x in rows))
    else:
        table = ("Title of each class | Trading Symbol | Name of each exchange on which registered\n"
                 + "".join(f"{a} | {b} | {x}\n" for a, b, x in rows))
    city = r.choice(["Boston, Massachusetts", "New York, New York", "Chicago, Illinois", "Houston, Texas",
                     "San Jose, California", "Atlanta, Georgia", "Dallas, Texas", "Seattle, Washington"])
    return (
        "UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\n"
        f"FORM 10-K\n(Mark One)\n\u2612 ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934\n"
        f"For the fiscal year ended {c.fye_text(year)}\nOR\n"
        "\u2610 TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934\n"
        "For the transition period from ____ to ____\n"
        f"Commission File Number {file_no}\n{name}\n(Exact name of registrant as specified in its charter)\n"
        f"{state}  {irs}\n(State or other jurisdiction of incorporation or organization)  (I.R.S. Employer "
        f"Identification No.)\n{r.randint(1, 9999)} Corporate Drive, {city} {r.randint(10000, 99999)}\n"
        "(Address of principal executive offices) (Zip Code)\n"
        f"({r.randint(200, 999)}) {r.randint(200, 999)}-{r.randint(1000, 9999)}\n"
        "(Registrant's telephone number, including area code)\n"
        "Securities registered pursuant to Section 12(b) of the Act:\n" + table
        + "Securities registered pursuant to Section 12(g) of the Act: None\n"
          "Indicate by check mark if the registrant is a well-known seasoned issuer, as defined in Rule 405 of the "
          "Securities Act. Yes \u2612 No \u2610\n")


def corpus_documents(companies: Sequence[BenchCompany], root: str = "/corpus", years: Sequence[int] = YEARS):
    """`DocumentInfo` of every generated filing, built by the registry's own code from path + cover text."""
    return [build_document_info(f"{root}/{y}/{c.ticker}.pdf", cover_page(c, y))
            for c in companies if c.indexed for y in years]


def write_pdf(path: Path, c: BenchCompany, year: int, body: Optional[list[str]] = None) -> Path:
    """A real PDF of one generated filing: the cover page, then `body` pages (a short MD&A by default)."""
    try:
        import pymupdf as fitz
    except ImportError:  # pragma: no cover
        import fitz  # type: ignore
    r = _rng("body", c.ticker, year)
    body = body or [f"Item 7. Management's Discussion and Analysis\nFiscal {year} compared with fiscal {year - 1}\n"
                    f"Net sales for fiscal {year} were ${r.randint(5000, 90000):,} million. Capital expenditures "
                    f"were ${r.randint(200, 9000):,} million in fiscal {year}."]
    doc = fitz.open()
    for text in [cover_page(c, year), *body]:
        page = doc.new_page()
        page.insert_textbox(fitz.Rect(50, 50, 560, 790), text, fontsize=8, fontname="helv")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path), garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


# ----------------------------------------------------------------------------------------- questions
METRICS = ["revenue", "gross margin", "capex", "FCF", "operating margin", "net income", "R&D spend", "SG&A",
           "opex", "EPS", "diluted EPS", "total debt", "cash from ops", "inventory", "buybacks", "dividends paid",
           "effective tax rate", "goodwill", "segment revenue", "headcount", "EBITDA", "interest expense",
           "D&A", "working capital", "ROE", "current ratio", "DSO", "deferred revenue", "lease liabilities"]
FICTIONAL = ["Zorblax Corporation", "Quillon Biotherapeutics Inc.", "Helvetic Dynamics AG", "Marrowgate Holdings",
             "Tessaline Foods Co.", "Brightwater Nautics plc", "Orvanta Systems", "Kelmscott Energy Corp.",
             "Vantrel Pharmaceuticals, Inc.", "Pylonix Semiconductor", "Draycott Mining Ltd.", "Ambervale Bancorp",
             "Sorrento Quarry Group", "Nordhaven Shipping", "Calderon Steelworks Inc."]
FICTIONAL_TICKERS = ["ZBLX", "QLBT", "HVDX", "MRWG", "TSLN", "BWNP", "ORVS", "KLME"]
TRAPS = [  # (template, note): finance abbreviations in capitals, lower-case words that are tickers
    "EPS growth {yr} {co}", "ROE vs ROA {co} {yr}", "NI margin {yr} {co}", "{co} FCF conversion {yr}",
    "DSO and DPO {co} {yr}", "{co} SG&A as % of sales {yr}", "CAPEX intensity {co} {yr}", "{co} EBIT {yr}",
    "all segments revenue {co} {yr}", "key risks {co} {yr}", "cost of sales {co} {yr}", "{co} low margin products {yr}",
    "now vs {yr}: {co} backlog", "{co} IT spending {yr}", "{co} GAAP vs non-GAAP EPS {yr}", "{co} NII {yr}",
    "on a per share basis {co} book value {yr}", "{co} YoY revenue {yr}", "{co} CEO pay {yr}", "{co} TTM EBITDA {yr}",
]
AMBIGUOUS = [  # real tickers that are also English words or abbreviations, written as tickers
    ("$ALL combined ratio {yr}", "ALL"), ("ON gross margin {yr}", "ON"), ("(NYSE: O) AFFO {yr}", "O"),
    ("$IT revenue growth {yr}", "IT"), ("KEY net interest income {yr}", "KEY"), ("ticker DE equipment sales {yr}", "DE"),
    ("$COST membership fees {yr}", "COST"), ("NOW subscription revenue {yr}", "NOW"), ("$MA cross-border volume {yr}", "MA"),
    ("GS investment banking fees {yr}", "GS"), ("MS wealth management revenue {yr}", "MS"),
    ("$CAT dealer inventory {yr}", "CAT"), ("HD comparable sales {yr}", "HD"), ("LOW comparable sales {yr}", "LOW"),
    ("MET variable investment income {yr}", "MET"), ("ICE data services revenue {yr}", "ICE"),
    ("$T wireless postpaid net adds {yr}", "T"), ("F North America EBIT {yr}", "F"), ("$V payments volume {yr}", "V"),
    ("C net interest margin {yr}", "C"),
]
GENERIC = ["which company had the highest gross margin in 2023", "average capex intensity of industrials FY2022",
           "how do 10-K risk factors change after a recession", "median revenue growth of software companies 2023",
           "what is a good current ratio for retailers", "explain deferred revenue in SaaS 10-Ks",
           "largest goodwill impairment in 2022", "compare REIT payout ratios 2024", "what drives bank NIM in 2023",
           "EBITDA margin leaders 2021"]


def _year_phrase(r: random.Random, y: int) -> str:
    yy = y % 100
    return r.choice([f"FY{y}", f"FY{yy}", f"{y}", f"fiscal {y}", f"'{yy}", f"FY {y}", f"in {y}", f"FY'{yy}",
                      f"{y} 10-K", f"fiscal year {y}"])


def _mention(r: random.Random, c: BenchCompany, kind: Optional[str] = None) -> str:
    kind = kind or r.choice(["ticker", "ticker", "short", "short", "short", "legal", "dollar", "paren",
                             "ticker_word", "clean"])
    short = r.choice(c.short) if c.short else c.legal
    # how a question writes the legal name without its last suffix (not `text.clean_company_name`: the generated
    # questions, "JPMorgan Chase &" among them, are the routing benchmark's input and stay as they were)
    clean = re.sub(r",?\s+(Inc\.|Incorporated|Corporation|Company|Co\.|plc|PLC|Ltd\.|Limited|N\.V\.|SA|Corp\.)$",
                   "", c.legal).replace("The ", "", 1)
    return {"ticker": c.ticker, "short": short, "legal": c.legal, "dollar": f"${c.ticker}",
            "paren": f"{short} ({c.ticker})", "ticker_word": f"ticker {c.ticker}", "clean": clean}[kind]


_TEMPLATES = ["{co} {metric} {yr}", "{metric} {yr} {co}", "{yr} {metric} {co}", "{co} {yr} {metric}?",
              "what was {co}'s {metric} {yr}", "{metric} trend {co} {yr}", "{co}: {metric}, {yr}",
              "{metric} for {co} {yr}", "{co} {metric} vs prior year {yr}", "how much {metric} did {co} report {yr}"]


def _q(qid: str, question: str, category: str, companies: list[BenchCompany], docs: list[str],
       status: str = "", **extra) -> dict:
    return {"id": qid, "question": question, "category": category, "gold_tickers": [c.ticker for c in companies],
            "gold_docs": docs, "gold_status": status, **extra}


def dev_questions(companies: Sequence[BenchCompany], seed: int = 9) -> list[dict]:
    """The development questions with their gold labels (deterministic for a seed)."""
    r = random.Random(seed)
    idx = [c for c in companies if c.indexed]
    missing = [c for c in companies if not c.indexed]
    out: list[dict] = []

    def add(category: str, question: str, cos: list[BenchCompany], docs: list[str], status: str = "", **extra):
        out.append(_q(f"{category}-{len(out):03d}", question, category, cos, docs, status, **extra))

    for _ in range(170):  # one company, one explicit year, every way of writing both
        c, y = r.choice(idx), r.choice(YEARS)
        t = r.choice(_TEMPLATES)
        q = t.format(co=_mention(r, c), metric=r.choice(METRICS), yr=_year_phrase(r, y)).replace("'s's", "'s")
        add("single", q.replace("$$", "$"), [c], [c.doc_id(y)])
    for _ in range(40):  # ranges: the latest year's filing holds the comparatives
        c = r.choice(idx)
        a = r.choice([2019, 2020, 2021, 2022])
        b = r.choice([y for y in YEARS if y > a])
        form = r.choice([f"FY{a}-FY{b}", f"FY{a % 100}-{b % 100}", f"{a}-{b % 100}", f"{a}–{b}", f"{a} to {b}",
                         f"FY{a % 100}–FY{b % 100}", f"between {a} and {b}"])
        add("range", f"{_mention(r, c)} {r.choice(METRICS)} CAGR {form}", [c], [c.doc_id(b)])
    for _ in range(40):  # several companies
        cos = r.sample(idx, r.choice([2, 2, 3]))
        y = r.choice(YEARS)
        names = [_mention(r, c, r.choice(["ticker", "short", "short", "dollar"])) for c in cos]
        q = r.choice(["{a} vs {b} {m} {yr}", "compare {m} {yr}: {a}, {b}", "{m} {yr} {a} and {b}"]).format(
            a=names[0], b=" and ".join(names[1:]), m=r.choice(METRICS), yr=_year_phrase(r, y))
        add("multi", q, cos, [c.doc_id(y) for c in cos])
    for _ in range(30):  # forward-looking: the latest filing before the period
        c, y = r.choice(idx), r.choice([2022, 2023, 2024, 2025])
        q = r.choice(["{co} FY{y} capex guidance", "{co} {y} outlook revenue", "guidance for FY{yy} {co} EPS",
                      "{co} expected margin for {y}", "{co} FY{yy}E capex", "what does {co} expect for opex in {y}"]
                     ).format(co=_mention(r, c, r.choice(["ticker", "short"])), y=y, yy=y % 100)
        add("forward", q, [c], [c.doc_id(y - 1)], "forward_looking")
    for _ in range(25):  # past years only later filings still report
        c, y = r.choice(idx), r.choice([2019, 2020])
        q = r.choice(["{co} {m} {y}", "{m} FY{y} {co}", "{co} FY{yy} {m}"]).format(
            co=_mention(r, c, r.choice(["ticker", "short"])), m=r.choice(METRICS), y=y, yy=y % 100)
        add("historical", q, [c], [c.doc_id(2021)], "comparative_period")
    for _ in range(10):  # years no filing reports: stay inside the company
        c, y = r.choice(idx), r.choice([2010, 2012, 2014, 2016])
        add("out_of_range", f"{_mention(r, c, 'short')} {r.choice(METRICS)} {y}", [c], [c.doc_id(2021)],
            "period_not_in_index")
    for i in range(55):  # companies the index does not hold
        if i < 25:
            c = r.choice(missing)
            kind = r.choice(["short", "legal", "dollar", "ticker_word", "short"])
            name = _mention(r, c, kind)
        elif i < 45:
            name = r.choice(FICTIONAL)
        else:
            name = "$" + r.choice(FICTIONAL_TICKERS) if r.random() < 0.6 else f"ticker {r.choice(FICTIONAL_TICKERS)}"
        y = r.choice(YEARS)
        q = r.choice(["{co} {m} {yr}", "{m} {yr} for {co}", "what was {co}'s {m} in {yr}"]).format(
            co=name, m=r.choice(METRICS), yr=_year_phrase(r, y)).replace("'s's", "'s")
        add("not_indexed", q, [], [], "company_not_indexed", missing_name=name)
    for t in TRAPS * 2:  # abbreviations and lower-case words that look like tickers
        c, y = r.choice(idx), r.choice(YEARS)
        add("trap", t.format(co=_mention(r, c, r.choice(["ticker", "short", "short"])), yr=_year_phrase(r, y)),
            [c], [c.doc_id(y)])
    by_ticker = {c.ticker: c for c in idx}
    for t, tick in AMBIGUOUS:
        y = r.choice(YEARS)
        add("ambiguous_ticker", t.format(yr=_year_phrase(r, y)), [by_ticker[tick]], [by_ticker[tick].doc_id(y)])
    for _ in range(30):  # no period: the latest filing (the benchmark runs with default_year=2024)
        c = r.choice(idx)
        q = r.choice(["{co} {m}", "{m} {co}", "{co} latest {m}", "how is {co} doing on {m}"]).format(
            co=_mention(r, c, r.choice(["ticker", "short", "dollar"])), m=r.choice(METRICS))
        add("no_period", q, [c], [c.doc_id(2024)], "default_year")
    for _ in range(15):  # dates: the fiscal period that contains them
        c, y = r.choice(idx), r.choice(YEARS)
        add("date", f"{_mention(r, c, 'short')} cash and equivalents as of {c.fye_text(y)}", [c], [c.doc_id(y)])
    for _ in range(15):  # explicit forms
        c, y = r.choice(idx), r.choice(YEARS)
        q = r.choice(["{co} {y} 10-K risk factors", "annual report FY{yy} {co} segments",
                      "{co} form 10-K fiscal {y} legal proceedings"]).format(co=_mention(r, c), y=y, yy=y % 100)
        add("form", q, [c], [c.doc_id(y)])
    for g in GENERIC:
        add("no_company", g, [], [], "fallback_no_tickers")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(DATA / "routing_dev.jsonl"))
    ap.add_argument("--seed", type=int, default=9)
    args = ap.parse_args(argv)
    qs = dev_questions(load_companies(), seed=args.seed)
    Path(args.out).write_text("".join(json.dumps(q) + "\n" for q in qs), encoding="utf-8")
    print(f"{len(qs)} questions -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
