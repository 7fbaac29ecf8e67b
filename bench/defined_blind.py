"""Issue 47's blind sets: metrics the question defines, composes or names, and metrics it cannot have, run through
HDRR offline and judged on the answer's first sentence.

    python -m bench.defined_blind --index runs/guard/edgar-index --questions bench/data/defined_blind47.jsonl \
        --out runs/defined_blind47.json
    python -m bench.defined_blind --index .finrag-fb --questions bench/data/defined_blind47_fb.jsonl --out runs/x.json

The sets were written blind (helpers who read no finrag code): `defined_blind47.jsonl` over the 15 EDGAR filings,
gold computed from their inline XBRL by `bench/defined_blind47_gold.py`; `defined_blind47_fb.jsonl` over the
FinanceBench dev filings' statement tables, gold from the printed inputs (pages recorded).

Per question (`expect`):
* `value`: **value stated**: the headline (the answer's first sentence) states the gold: a ratio to 0.01 (or to
  the asked decimals' half unit), a percent to 0.1 point, days to 0.1, an amount to 0.5% (either sign, any scale
  word). **Another measure stated**: the headline states a number that is not the gold and the answer does not
  say that something was not computed or not found.
* `refuse`: **said as such**: the answer says what was not computed (or not known) and why (it may write the
  formula it did not compute, numbers and all); **another measure stated**: its headline states a number and the
  answer does not say so. (The first runs' judge also required no number in a refusal's headline; rejudged with
  `--rejudge`, their refusal rates are 0.103 and 0.100 higher, see docs/defined_metrics.md.) A filing's name
  ("meta-10-k-2025-01-30") is no number stated, and "No tagged ... fact ... was found" says it was not computed.
Rates are printed per class and overall; `--show` prints the misses.
"""
from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict
from pathlib import Path

from finrag.tools.vocabulary.dates import MONTH_NAMES

_CITE = re.compile(r"\b[a-z]+-\d+-[a-z]-\d{4}-\d\d-\d\d\b|\b[A-Za-z]+\.\d+-[KQ]\b|\[[^\]]*\]|\b[a-z][a-z0-9-]*:[A-Z][A-Za-z0-9]+\b|\bp\.\s*\d+|\b\d{4}-\d\d-\d\d\b|\b(?:FY|Q[1-4]\s*)"
                   r"\d{2,4}\b|\b(?:" + "|".join(MONTH_NAMES) + r")\s+\d{1,2},?\s+\d{4}\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])(\(|-|\u2212)?\$?\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\)?"
                     r"(?:\s*(%|percent|x\b|days)|(?:\s+in)?\s+(billions?|millions?|thousands?|bn\b))?", re.I)
_SAID = re.compile(r"(?i)\bnot computed\b|\bnot found\b|\bcould not (?:compute|find)\b|\bcannot (?:compute|be computed)\b|"
                   r"\bnot a (?:metric|line item)\b|\bdoes not define\b|\bnot (?:defined|known)\b|\bno such\b|"
                   r"\bis zero\b|\bin terms of itself\b|\bis empty\b|\bterms, more than\b|\bis too long\b|"
                   r"\bno (?:tagged )?[\w ]{0,40}(?:was|were) found\b")
_SENTENCE_END = re.compile(r"(?<!\bInc)(?<!\bCo)(?<!\bCorp)(?<!\bLtd)(?<!\bp)(?<!\bvs)\.\s+(?=[A-Z(])")


def headline(answer: str) -> str:
    """The answer's first sentence (what it states as its answer)."""
    return _SENTENCE_END.split(answer or "", maxsplit=1)[0]


def numbers(text: str) -> list[tuple[float, str]]:
    """(value, kind) of each number the text states, scale words applied; citations, dates and years left out."""
    out: list[tuple[float, str]] = []
    for m in _NUMBER.finditer(_CITE.sub(" ", text or "")):
        digits, unit, scale = m.group(2), (m.group(3) or "").lower(), (m.group(4) or "").lower().rstrip("s")
        value = float(digits.replace(",", ""))
        if m.group(1) and m.group(1) != "(" or (m.group(1) == "(" and m.group(0).endswith(")")):
            value = -value
        if not scale and not unit and re.fullmatch(r"(19|20)\d\d", digits):
            continue
        kind = "pct" if unit in ("%", "percent") else "amount"
        out.append((value * {"billion": 1e9, "million": 1e6, "thousand": 1e3, "bn": 1e9}.get(scale, 1.0), kind))
    return out


def _gold_units(q: dict) -> tuple[float, str]:
    """The gold in dollars for an amount (usd, usd_millions, usd_billions), as written otherwise."""
    unit, gold = q["unit"], float(q["gold"])
    scale = {"usd": 1.0, "usd_millions": 1e6, "usd_billions": 1e9}.get(unit)
    return (gold * scale, "amount") if scale else (gold, "pct" if unit == "percent" else "amount")


def states_gold(q: dict, text: str) -> bool:
    """Does `text` state the question's gold (see the module docstring)?"""
    gold, kind = _gold_units(q)
    unit = q["unit"]
    dec = q.get("decimals")
    for value, k in numbers(text):
        if unit == "percent":
            tol = max(0.1, 0.5 * 10 ** -(dec or 0) if dec is not None else 0.1) + 1e-9
            if (k == "pct" and abs(value - gold) <= tol) or (k == "amount" and abs(value * 100 - gold) <= tol):
                return True
        elif unit in ("ratio", "days"):
            tol = max(0.01 if unit == "ratio" else 0.1, 0.5 * 10 ** -dec if dec is not None else 0) + 1e-9
            if k == "amount" and abs(value - gold) <= tol:
                return True
        else:  # an amount: within 0.5%, or the asked rounding (in the asked scale)
            base = {"usd_millions": 1e6, "usd_billions": 1e9}.get(unit, 1.0)
            tol = max(0.005 * abs(gold), (0.5 * 10 ** -dec if dec is not None else 0) * base + 1e-9)
            if k == "amount" and (abs(value - gold) <= tol or abs(value * 1e6 - gold) <= tol and abs(value) < 1e6):
                return True
    return False


def judge(q: dict, res: dict) -> dict:
    answer = res.get("answer") or ""
    head = headline(answer)
    said = bool(_SAID.search(answer))
    stated = [v for v, _k in numbers(head)]
    if q["expect"] == "refuse":  # a refusal may write the formula it did not compute ("operating income / 0")
        return {"ok": said, "value": False, "said": said, "other": bool(stated) and not said, "answer": answer[:700]}
    value = states_gold(q, head)
    other = not value and bool(stated) and not said
    return {"ok": value, "value": value, "said": said and not value, "other": other, "answer": answer[:700]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", required=True, help="the index holding the set's filings")
    ap.add_argument("--questions", required=True, help="a blind set (JSONL)")
    ap.add_argument("--system", default="hdrr")
    ap.add_argument("--out", help="write every row and the rates here (JSON)")
    ap.add_argument("--show", action="store_true", help="print the misses")
    ap.add_argument("--rejudge", help="judge the answers of an earlier --out file again (no run)")
    args = ap.parse_args(argv)
    if args.rejudge:
        old = json.loads(Path(args.rejudge).read_text())["rows"]
        rows = [{**r, **judge(r, {"answer": r["answer"]})} for r in old]
        return _report(rows, args)
    from finrag.api import QuestionError, run_query

    questions = [json.loads(line) for line in Path(args.questions).read_text().splitlines() if line.strip()]
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        try:
            res = run_query(q["question"], system=args.system, index_dir=args.index)
        except QuestionError as err:  # refused before any retrieval (too long, empty): the error is the answer
            res = {"answer": f"Error: {err}", "routing": {"routed_docs": []}}
        routed = list(res["routing"]["routed_docs"])
        rows.append({**q, **judge(q, res), "routed": routed, "exact": routed == [q["doc"]],
                     "ms": round((time.perf_counter() - t0) * 1000)})
    return _report(rows, args)


def _report(rows: list[dict], args) -> int:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["class"]].append(r)
        by["value: all" if r["expect"] == "value" else "refuse: all"].append(r)
    rates = {c: {"n": len(rs), "exact": _rate(rs, "exact"), "value_stated": _rate(rs, "value"),
                 "said_as_such": _rate(rs, "said"), "other_measure": _rate(rs, "other")} for c, rs in sorted(by.items())}
    print(f"{'class':<28} {'n':>4} {'exact':>6} {'value':>6} {'said':>6} {'other':>6}")
    for c, r in rates.items():
        print(f"{c:<28} {r['n']:>4} {r['exact']:>6.3f} {r['value_stated']:>6.3f} {r['said_as_such']:>6.3f} "
              f"{r['other_measure']:>6.3f}")
    if args.show:
        for r in rows:
            if not r["ok"]:
                print(f"\n{r['id']} [{r['class']}] gold={r.get('gold')} {r['unit']} routed={r['routed']}\n  Q: "
                      f"{r['question']}\n  A: {r['answer'][:400]}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"rates": rates, "rows": rows}, indent=1))
    return 0


def _rate(rows: list[dict], key: str) -> float:
    return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else 0.0


if __name__ == "__main__":
    raise SystemExit(main())
