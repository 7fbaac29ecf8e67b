"""Prose questions written blind (issue 50): does the answer's first sentence state the gold fact?

    python -m bench.prose_blind --fb-index .finrag-fb --edgar-index runs/guard/edgar-index --out docs/results/prose_blind50.json

The questions (bench/data/prose_blind50.jsonl, 65: counts, dates, names, yes/no, drivers, lists, and 5 whose
filing does not hold the answer) were written by a helper that read no finrag code, from the FinanceBench PDFs and
the EDGAR filings in ../shared/data, each with the filing's sentence that answers it and the short facts a correct
answer states (`gold_facts`, found in that sentence). Each is asked to HDRR offline, over the FinanceBench index or
the EDGAR index by where its filing is. Measured, per form:

* lead states the gold: every gold fact (case-insensitive, as whole words; a "Yes"/"No" verdict only as the
  answer's first word) is in the answer's first sentence, that is its text up to the end of its first citation
  (`[doc, p. N]`) or its first 400 characters (`states`; before session 54 a fact was matched as a substring, so
  "No" was found in "not");
* anywhere: every gold fact is somewhere in the answer;
* evidence: a context of the gold filing covers the gold page (PDFs);
* furniture: the answer quotes page furniture (`furniture.furniture_in`);
* for the unanswerable ones: the answer says it did not find it (no sentence states it, or nothing retrieved);
* another company (`lead_other_company`, session 57): the answer's first sentence cites a filing of another company
  than the gold filing's (a corpus-wide system, `--system cbr`, quoting another company's passage).
"""
from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

from finrag.tools.answering.furniture import furniture_in

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data" / "prose_blind50.jsonl"
_CITATION_END = re.compile(r"\[[^\]]*(?:p\.|pp\.)[^\]]*\]")
_SAYS_MISSING = re.compile(r"(?i)no sentence of the retrieved passages|could not find|not (?:stated|found|disclosed)|"
                           r"does not (?:state|say|disclose)|no relevant context")


_VERDICTS = {"yes", "no"}


def states(fact: str, text: str) -> bool:
    """Does `text` state the gold fact? A verdict ("Yes"/"No") only as the text's first word (an answer leads with
    its verdict; "says yes or no" or "not" state neither), any other fact as whole words, case-insensitive
    ("no" is not in "not", "10" is not in "2010")."""
    fact, text = fact.strip().lower(), text.lower()
    if fact in _VERDICTS:
        return re.match(rf"\W*{fact}\b", text) is not None
    return re.search(rf"(?<![\w]){re.escape(fact)}(?![\w])" if fact[:1].isalnum() and fact[-1:].isalnum()
                     else re.escape(fact), text) is not None


def scored(facts: list[str], answer: str) -> dict[str, bool]:
    """Does the answer's first sentence (`lead_states`), and does the answer anywhere, state every gold fact?"""
    lead = lead_of(answer)
    return {"lead_states": bool(facts) and all(states(f, lead) for f in facts),
            "anywhere": bool(facts) and all(states(f, answer) for f in facts)}


def lead_of(answer: str) -> str:
    """The answer's first sentence: up to the end of its first citation, else its first 400 characters."""
    m = _CITATION_END.search(answer)
    return answer[: m.end()] if m and m.end() <= 900 else answer[:400]


def lead_other_company(answer: str, doc: str) -> bool:
    """Does the answer's first sentence cite a filing of another company than `doc`'s (the ids' first part)?"""
    company = re.split(r"[_-]", doc)[0].lower()
    return any(re.split(r"[_-]", d.strip())[0].lower() != company
               for d in re.findall(r"\[([^,\]]+),\s*pp?\.", lead_of(answer)))


def summarize(rows: list[dict]) -> dict:
    """The set's rates: overall (answerable questions) and per form."""
    forms: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        forms[r["form"]].append(r)
    answerable = [r for r in rows if r["form"] != "unanswerable"]

    def rate(rs: list[dict], key: str) -> float | None:
        vals = [r[key] for r in rs if r[key] is not None]
        return round(sum(map(bool, vals)) / len(vals), 3) if vals else None

    return {"questions": len(rows), "answerable": len(answerable),
               "lead_states": rate(answerable, "lead_states"), "anywhere": rate(answerable, "anywhere"),
               "evidence": rate(answerable, "evidence"), "furniture_answers": sum(r["furniture"] for r in rows),
               "lead_other_company": sum(bool(r.get("lead_other_company")) for r in answerable),
               "unanswerable_said": rate(forms.get("unanswerable", []), "says_missing"),
               "by_form": {f: {"n": len(rs), "lead_states": rate(rs, "lead_states"), "anywhere": rate(rs, "anywhere"),
                               "evidence": rate(rs, "evidence")} for f, rs in sorted(forms.items())}}


def rescore(result: Path, questions: Path) -> dict:
    """An earlier run's stored answers scored again with `states` (an answer was stored to its first 600
    characters, so "anywhere" can only be lower than a fresh run's)."""
    gold = {q["id"]: q for q in (json.loads(ln) for ln in questions.read_text(encoding="utf-8").splitlines() if ln.strip())}
    rows = json.loads(result.read_text(encoding="utf-8"))["rows"]
    for r in rows:
        facts = gold[r["id"]].get("gold_facts") or []
        r.update(scored(facts, r["answer"]))
    return {"summary": summarize(rows), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fb-index", default=str(REPO / ".finrag-fb"))
    ap.add_argument("--edgar-index", default=str(REPO / "runs" / "guard" / "edgar-index"))
    ap.add_argument("--questions", default=str(DATA))
    ap.add_argument("--system", default="hdrr")
    ap.add_argument("--out")
    ap.add_argument("--rescore", type=Path, help="score an earlier run's --out file again (no questions asked)")
    args = ap.parse_args(argv)
    if args.rescore:
        again = rescore(args.rescore, Path(args.questions))
        print(json.dumps(again["summary"], indent=1))
        if args.out:
            Path(args.out).write_text(json.dumps(again, indent=1) + "\n", encoding="utf-8")
        return 0
    from finrag.api import run_query

    questions = [json.loads(ln) for ln in Path(args.questions).read_text(encoding="utf-8").splitlines() if ln.strip()]
    rows = []
    for q in questions:
        edgar = q.get("page") is None and not re.match(r"^[A-Z0-9_]+_\d{4}", q["doc"])
        res = run_query(q["question"], args.system, index=args.edgar_index if edgar else args.fb_index)
        answer = res["answer"]
        facts = [f.lower() for f in q.get("gold_facts") or []]
        evidence = None
        if q.get("page") is not None:
            evidence = any(c["doc_id"] == q["doc"] and c["page_start"] <= q["page"] <= c["page_end"]
                           for c in res["contexts"])
        rows.append({"id": q["id"], "form": q["form"], "question": q["question"], "doc": q["doc"],
                     "routed": list(res["routing"]["routed_docs"]),
                     **scored(facts, answer),
                     "evidence": evidence, "furniture": furniture_in(answer),
                     "lead_other_company": lead_other_company(answer, q["doc"]),
                     "says_missing": bool(_SAYS_MISSING.search(answer)), "answer": answer[:600]})
    summary = summarize(rows)
    print(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
