"""Questions whose company the index cannot resolve (issue 48): does any answer state another company's figure
as the answer?

    python -m bench.fallback_blind --index runs/guard/edgar-index --out docs/results/fallback_blind48.json

The 20 questions (bench/data/fallback_blind48.jsonl) were written by a helper that read no finrag code: figures
(gross margin, revenue, current ratio, free cash flow) of companies that none of the 15 EDGAR filings in
../shared/data/edgar is (Salesforce, Visa, Walmart, J&J, private firms, typos, names that contain an indexed
company's name: "Apple Hospitality REIT", "Coca-Cola Consolidated"). Each is asked to HDRR and CBR offline over an
index of those 15 filings. An answer states another company's figure as the answer when it states a figure (an
amount, a percentage or a ratio) outside what it marks as not the answer: the passages it labels with their
company and filing after a fallback's lead, and an answer given only "If you meant" a candidate. Counted per
system, with the answers.
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data" / "fallback_blind48.jsonl"
_FIGURE = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?(?:\s*(?:million|billion|thousand))?|\b\d[\d,]*(?:\.\d+)?\s?%|"
                     r"\b\d+\.\d+x?\b(?=[^\d]|$)")


def as_the_answer(answer: str, fallback: bool) -> list[str]:
    """The figures the answer states as its answer (see the module docstring)."""
    text = answer
    if fallback:  # the lead says what could not be resolved; the passages after it are labelled, not answers
        lead = text.split("\n\n", 1)[0]
        text = "" if lead.lower().startswith(("did you mean", "no filing")) else lead
    text = re.sub(r"(?s)If you meant [^:]+:.*?(?=\n\n|$)", "", text)  # a candidate's answer, marked as conditional
    text = re.sub(r"\[[^\]]*\]", "", text)  # citations carry page numbers, not figures
    return _FIGURE.findall(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", default=str(REPO / "runs" / "guard" / "edgar-index"))
    ap.add_argument("--questions", default=str(DATA))
    ap.add_argument("--systems", nargs="+", default=["hdrr", "cbr"])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    from finrag.api import run_query

    questions = [json.loads(ln) for ln in Path(args.questions).read_text(encoding="utf-8").splitlines() if ln.strip()]
    rows, summary = [], {}
    for system in args.systems:
        stated = 0
        for q in questions:
            res = run_query(q["question"], system, index=args.index)
            routing = res["routing"]
            fallback = bool((routing.get("extracted") or {}).get("fallback"))
            figures = as_the_answer(res["answer"], fallback)
            stated += bool(figures)
            rows.append({"system": system, "question": q["question"], "named": q.get("named"),
                         "status": routing["status"], "routed": list(routing["routed_docs"]), "fallback": fallback,
                         "figures_as_answer": figures, "answer": res["answer"][:700]})
        summary[system] = {"questions": len(questions), "states_another_company_s_figure": stated}
        print(f"{system}: {stated} of {len(questions)} answers state a figure as the answer")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
