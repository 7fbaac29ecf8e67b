"""Demo questions whose answers are stated verbatim in the demo filings.

The question templates are data (`data/questions.yaml`); `demo_questions` assigns them to a corpus's
filings round-robin and takes each answer's evidence pages from the filing's layout (the pages on
which the tracked fact is drawn). `write_demo_questions` writes them as JSONL.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Sequence, Union

from .companies import DEMO_COMPANIES, CompanyRef, DemoCompany, DemoFiling, check_year, company_by, demo_filings
from .data_files import load_data
from .financials import demo_financials
from .pages import fact_answer, filing_layout

__all__ = ["demo_questions", "write_demo_questions"]

QUESTIONS_FILE = "questions.yaml"

_NAME_RE = re.compile(r"^([A-Z0-9]+)_(\d{4})_10K$")


def _templates() -> list[tuple[str, str]]:
    """(metric, question template) pairs, in order."""
    return [(t["metric"], t["question"]) for t in load_data(QUESTIONS_FILE)["templates"]]


def _question_type(metric: str) -> str:
    data = load_data(QUESTIONS_FILE)
    return data["question_types"].get(metric, data["default_question_type"])


def _filings_from(corpus) -> list[DemoFiling]:
    """The demo filings named by a directory of PDFs, one path or a list of paths (others ignored)."""
    if isinstance(corpus, (str, Path)) and Path(corpus).is_dir():
        corpus = sorted(Path(corpus).glob("*.pdf"))
    elif isinstance(corpus, (str, Path)):
        corpus = [corpus]
    found = []
    for item in corpus:
        m = _NAME_RE.match(Path(str(item)).stem)
        if not m:
            continue
        try:
            found.append(DemoFiling(company_by(m.group(1)), check_year(int(m.group(2)))))
        except (KeyError, ValueError):
            continue
    return found


def _answer(metric: str, c: DemoCompany, year: int) -> str:
    return fact_answer(metric, c, demo_financials(c, year))


def _pick_filing(metric: str, template: str, j: int,
                 filings: list[DemoFiling]) -> tuple[str, str, DemoFiling]:
    """The filing template `j` asks about (round-robin), and the metric and template actually asked:
    an acquisition question goes to a filing of an acquisition year, or becomes a segment question if
    there is none; a headquarters question (no year) goes to the company's latest filing."""
    n = len(filings)
    fl = filings[j % n]
    if metric == "acquisition":
        cands = [filings[(j + k) % n] for k in range(n)]
        cands = [x for x in cands if x.year == x.company.acquisition_year]
        if not cands:
            metric = "seg2_revenue"
            template = next(t for m, t in _templates() if m == metric)
        else:
            fl = cands[0]
    if metric == "hq":
        fl = max((x for x in filings if x.company == fl.company), key=lambda x: x.year)
    return metric, template, fl


def _unique_id(base: str, out: list[dict]) -> str:
    qid, k = base, 2
    while any(q["id"] == qid for q in out):
        qid, k = f"{base}_{k}", k + 1
    return qid


def _question(qid: str, metric: str, template: str, fl: DemoFiling) -> dict:
    c, year = fl.company, fl.year
    layout = filing_layout(c.key, year)
    pages = sorted(layout.facts[metric])
    return {
        "id": qid,
        "question": template.format(name=c.name, short=c.short, poss=c.possessive, ticker=c.ticker,
                                    year=year, seg2=c.segments[1]),
        "answer": _answer(metric, c, year),
        "doc_id": fl.doc_id,
        "evidence_pages": pages,
        "company": c.name,
        "ticker": c.ticker,
        "fiscal_year": year,
        "metric": metric,
        "question_type": _question_type(metric),
        "doc_name": fl.doc_id,
        "evidence": [{"doc_name": fl.doc_id, "evidence_page_num": pg,
                      "evidence_text": layout.fact_text[(metric, pg)]} for pg in pages],
    }


def demo_questions(corpus=None, *, companies: Union[int, Sequence[CompanyRef]] = 3,
                   years: Iterable[int] = (2022, 2023)) -> list[dict]:
    """About 12 questions whose answers are stated verbatim in the demo filings.

    `corpus` may be a directory, a list of PDF paths (names `{KEY}_{YEAR}_10K.pdf`) or None (then
    `companies` x `years`). Each question: id, question, answer, doc_id, evidence_pages (zero-based),
    plus company, ticker, fiscal_year, metric, question_type and a FinanceBench-like `evidence` list.
    """
    filings = _filings_from(corpus) if corpus is not None else demo_filings(companies, years)
    order = {c.key: i for i, c in enumerate(DEMO_COMPANIES)}
    filings = sorted(set(filings), key=lambda fl: (fl.year, order[fl.company.key]))
    if not filings:
        return []
    out: list[dict] = []
    for j, (metric, template) in enumerate(_templates()):
        metric, template, fl = _pick_filing(metric, template, j, filings)
        qid = _unique_id(f"demo_{fl.company.ticker}_{fl.year}_{metric}", out)
        out.append(_question(qid, metric, template, fl))
    return out


def write_demo_questions(path: Union[str, Path], corpus=None, *,
                         companies: Union[int, Sequence[CompanyRef]] = 3,
                         years: Iterable[int] = (2022, 2023)) -> Path:
    """Write `demo_questions(...)` as JSONL (one object per line) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    qs = demo_questions(corpus, companies=companies, years=years)
    with path.open("w", encoding="utf-8") as fh:
        for q in qs:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    return path
