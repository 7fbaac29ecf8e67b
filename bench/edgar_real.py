"""Real EDGAR filings end to end (issue 20): routing, evidence and exact values on inline-XBRL HTML as downloaded.

    python bench/edgar_real.py                                   # ../shared/data/edgar, scratch index in runs/
    python bench/edgar_real.py --edgar DIR --index runs/edgar-idx --out docs/results/edgar_real.json
    python bench/edgar_real.py --write-questions q.jsonl         # the generated questions only
    python bench/edgar_real.py --questions q.jsonl --index IDX   # ask given questions (e.g. with older code)
    python bench/edgar_real.py --reader-only --no-rows --out docs/results/edgar_real_reader_only.json  # no iXBRL

The filings are indexed as they are, without renaming, into a scratch index (`finrag index`, MiniLM). Questions
are generated from each filing's own inline-XBRL facts, in analysts' phrasing: the company by short name, ticker
or legal name (`dei:EntityRegistrantName`), the period as a fiscal year or quarter in the registrant's calendar
("Q2 of fiscal 2025", "FY2024", "FY24", "in its 2024 fiscal year") or as a period-end date ("for the quarter
ended June 28, 2025", "as of September 28, 2024"); for a 10-Q both the quarter and the year to date, for a 10-K
also the prior fiscal year (its comparative column: no filing of that year is in the folder). The gold value is the fact of the
concept in the context without dimensions whose period is the one asked (duration of ~3 months, the year to
date or ~12 months ending at `dei:DocumentPeriodEndDate`; an instant at that date), with its scale and sign.

Each question is asked to HDRR offline (`run_query(system="hdrr")`, no LLM) and judged three ways:
* exact filing: the routed documents are exactly the gold filing;
* evidence: a context of the gold filing covers a page on which the gold fact is displayed;
* value: the answer states the gold value (a number in it, read with its "million"/"billion" word, within 0.5%;
  per-share values to the cent).
Prints the totals and tables per concept and per form; `--out` writes them with every question's outcome. For
answers from the tagged facts it also counts how often the table reader, run beside them, read the same question
and how often it disagreed (`table_check` of the answer's `reader`).

`--reader-only` measures the statement-table reader on EDGAR HTML without usable inline XBRL: the same questions
(generated from the original filings' facts) are asked of copies of the filings with the inline-XBRL markup
stripped (`strip_ixbrl`: the hidden `ix:header` removed, every other `ix:` tag unwrapped, the displayed text
untouched), indexed into their own scratch index. That is what a user has whose tool saved the HTML without the
`ix:` tags (or who has a pre-2019 HTML filing): no tagged facts and no `dei:` identity, so the filing is known
from its cover page and file name and every value comes from the statement tables. (Switching the fact answerer
off by configuration would keep the `dei:` identity, which such a user does not have.) The pages and their
numbering are the same as the originals', so the gold pages still apply.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

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
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _date(s: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(s[:10])
    except (TypeError, ValueError):
        return None


def _words(d: dt.date) -> str:
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


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
    from finrag.tools.indexing.html import html_document
    from finrag.tools.routing.dei import dei_date

    out: list[dict] = []
    for path in sorted(edgar.glob("*.htm*")):
        _pages, facts = html_document(path.read_text(encoding="utf-8", errors="replace"))
        dei = facts["dei"]
        form = dei["DocumentType"].replace("-", "")
        fy, fp = int(dei["DocumentFiscalYearFocus"]), dei.get("DocumentFiscalPeriodFocus", "FY")
        q = int(fp[1]) if fp.startswith("Q") else 4
        end = _date(dei_date(dei["DocumentPeriodEndDate"]) or "")
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


_IX_HEADER = re.compile(r"(?is)<ix:header\b.*?</ix:header\s*>")
_IX_TAG = re.compile(r"(?i)</?ix:[a-z]+\b[^>]*>")


def strip_ixbrl(markup: str) -> str:
    """The filing as a tool that drops inline XBRL saves it: no `ix:header`, the other `ix:` tags unwrapped."""
    return _IX_TAG.sub("", _IX_HEADER.sub("", markup))


def stripped_copies(edgar: Path, dest: Path) -> Path:
    """Copies of the folder's HTML filings without inline XBRL (same names), rewritten only when changed."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in sorted(edgar.glob("*.htm*")):
        text = strip_ixbrl(path.read_text(encoding="utf-8", errors="replace"))
        out = dest / path.name
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
    return dest


def ask(questions: list[dict], index: Path) -> list[dict]:
    from finrag.api import run_query

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


def _groups(rows: list[dict], key: str) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    return dict(sorted(groups.items()))


def table(rows: list[dict], key: str) -> list[str]:
    """A Markdown table of the three rates per value of `key` (concept, form or period)."""
    groups = _groups(rows, key)
    lines = [f"| {key} | n | exact filing | evidence | value |", "|---|---|---|---|---|"]
    for g in sorted(groups):
        rs = groups[g]
        lines.append(f"| {g} | {len(rs)} | " + " | ".join(f"{sum(r[m] for r in rs) / len(rs):.3f}"
                                                       for m in ("exact", "evidence", "value")) + " |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", default=str(REPO.parent / "shared" / "data" / "edgar"))
    ap.add_argument("--index", help="scratch index (default runs/edgar-real-idx; --reader-only: runs/edgar-real-noix-idx)")
    ap.add_argument("--reader-only", action="store_true",
                    help="ask copies of the filings with the inline XBRL stripped (the table reader's measurement)")
    ap.add_argument("--questions", help="ask these questions (JSONL) instead of generating them")
    ap.add_argument("--write-questions", help="write the generated questions (JSONL) and stop")
    ap.add_argument("--out", help="write the summary and every outcome as JSON")
    ap.add_argument("--no-rows", action="store_true", help="with --out: the summary tables only (what docs/results holds)")
    args = ap.parse_args(argv)
    if args.questions:
        questions = [json.loads(ln) for ln in Path(args.questions).read_text().splitlines() if ln.strip()]
    else:
        questions = generate(Path(args.edgar))
    if args.write_questions:
        Path(args.write_questions).write_text("".join(json.dumps(q) + "\n" for q in questions))
        print(f"{len(questions)} questions -> {args.write_questions}")
        return 0
    index = Path(args.index or REPO / "runs" / ("edgar-real-noix-idx" if args.reader_only else "edgar-real-idx"))
    folder = args.edgar
    if args.reader_only:
        folder = str(stripped_copies(Path(args.edgar), REPO / "runs" / "edgar-real-noix-files"))
    from finrag.cli import main as finrag_main

    if finrag_main(["index", folder, "--index", str(index), "-q"]) not in (0, None):
        print("indexing failed", file=sys.stderr)
        return 1
    rows = ask(questions, index)
    n = len(rows)
    summary = {m: round(sum(r[m] for r in rows) / n, 3) for m in ("exact", "evidence", "value")} if n else {}
    mode = "; inline XBRL stripped (table reader only)" if args.reader_only else ""
    print(f"{n} questions over {len({r['doc_id'] for r in rows})} filings; HDRR offline{mode}")
    print(f"exact filing {summary.get('exact')}  evidence {summary.get('evidence')}  value {summary.get('value')}")
    checked = [r for r in rows if r.get("table_agrees") is not None]
    if checked:  # answers from the tagged facts that the table reader also read (issue 20: say when they differ)
        summary["table_checked"] = len(checked)
        summary["table_disagrees"] = sum(1 for r in checked if r["table_agrees"] is False)
        print(f"table reader beside the facts: {len(checked)} read, {summary['table_disagrees']} disagree")
    for key in ("concept", "form", "period"):
        print()
        print("\n".join(table(rows, key)))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        groups = {key: {g: {m: round(sum(r[m] for r in rs) / len(rs), 3) for m in ("exact", "evidence", "value")}
                        | {"n": len(rs)} for g, rs in _groups(rows, key).items()} for key in ("concept", "form", "period")}
        out = {"summary": summary, "n": n, "reader_only": args.reader_only, **groups}
        Path(args.out).write_text(json.dumps(out if args.no_rows else {**out, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
