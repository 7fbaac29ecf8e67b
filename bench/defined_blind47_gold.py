"""Compute the gold of the defined_blind47 question sets from the filings' own inline XBRL.

Reads a spec (default bench/data/defined_blind47.spec.jsonl), evaluates each row's formula over the non-dimensional
ix:nonFraction facts of the named filing, and writes the set (default bench/data/defined_blind47.jsonl: the spec row
plus "gold" and "inputs"). Fails loudly (exit 1, one line per problem) when a concept/period is missing,
when two equally precise facts disagree, or when a formula divides by zero.

Formula syntax: arithmetic (+ - * / parentheses, numeric literals) over terms `prefix:Concept@period`:
  @end        instant at the document period end (balance sheet date)
  @prior_end  the comparative balance-sheet instant (prior fiscal year end)
  @fy         12-month duration ending at the period end (10-K)
  @py         12-month duration ending one year earlier (10-K comparative)
  @q          3-month duration ending at the period end (10-Q)
  @pq         3-month duration ending one year earlier
  @ytd        the filing's reporting period (fiscal year to date) ending at the period end
  @pytd       the same-length period ending one year earlier
Units: ratio/usd/days as computed; percent = x*100; usd_millions = x/1e6; usd_billions = x/1e9.
When "decimals" is an int the gold is rounded to it. Rows with "alt_formula" (borderline refusals)
also get "alt_gold" computed the same way.

Usage: python -m bench.defined_blind47_gold [--edgar DIR] [--spec FILE] [--out FILE]
  the third and fourth sets: --spec bench/data/defined_blind47c.spec.jsonl --out bench/data/defined_blind47c.jsonl
  (and 47d likewise)
"""

from __future__ import annotations

import argparse
import ast
import json
import operator
import re
import sys
from datetime import date, timedelta
from pathlib import Path

from bench.defined_blind47_xbrl import Filing, read

ROOT = Path(__file__).resolve().parent
SPEC = ROOT / "data" / "defined_blind47.spec.jsonl"
OUT = ROOT / "data" / "defined_blind47.jsonl"
TERM = re.compile(r"([A-Za-z][A-Za-z0-9_-]*:[A-Za-z][A-Za-z0-9_]*)@([a-z_]+)")
SCALE = {"ratio": 1.0, "usd": 1.0, "days": 1.0, "percent": 100.0, "usd_millions": 1e-6, "usd_billions": 1e-9}


class GoldError(Exception):
    pass


def _days(start: date, end: date) -> int:
    return (end - start).days


class Periods:
    """Resolves period tokens of one filing into (kind, start, end) keys."""

    def __init__(self, filing: Filing) -> None:
        self.f = filing
        ctx = filing.contexts[filing.dei_context["dei:DocumentType"]]
        if ctx.start is None or ctx.end is None:
            raise GoldError(f"{filing.stem}: DocumentType context is not a duration")
        self.start, self.end = ctx.start, ctx.end
        self.durations = {
            (c.start, c.end)
            for c in filing.contexts.values()
            if not c.has_dims and c.start is not None and c.end is not None
        }
        asset_dates = {
            filing.contexts[x.context].instant
            for x in filing.facts
            if x.name == "us-gaap:Assets" and x.context in filing.contexts and not filing.contexts[x.context].has_dims
        }
        earlier = [d for d in asset_dates if d is not None and d < self.end]
        self.prior_end = max(earlier) if earlier else None

    def _duration(self, months: int, shift_year: bool) -> tuple[date, date]:
        end = self.end - timedelta(days=365) if shift_year else self.end
        lo, hi = {3: (80, 100), 12: (350, 380)}.get(months, (0, 0))
        if months == 0:  # ytd
            want = _days(self.start, self.end)
            lo, hi = want - 10, want + 10
        cands = [(s, e) for s, e in self.durations if abs((e - end).days) <= 8 and lo <= _days(s, e) <= hi]
        if len(cands) != 1:
            raise GoldError(f"{self.f.stem}: {len(cands)} candidate periods for {months}m shift={shift_year}: {cands}")
        return cands[0]

    def resolve(self, token: str) -> tuple[str, date | None, date]:
        if token == "end":
            return ("instant", None, self.end)
        if token == "prior_end":
            if self.prior_end is None:
                raise GoldError(f"{self.f.stem}: no prior balance-sheet date")
            return ("instant", None, self.prior_end)
        table = {
            "fy": (12, False),
            "py": (12, True),
            "q": (3, False),
            "pq": (3, True),
            "ytd": (0, False),
            "pytd": (0, True),
        }
        if token not in table:
            raise GoldError(f"unknown period token @{token}")
        s, e = self._duration(*table[token])
        return ("duration", s, e)


def fact_value(filing: Filing, periods: Periods, concept: str, token: str) -> tuple[str, float]:
    kind, start, end = periods.resolve(token)
    found = []
    for x in filing.facts:
        if x.name != concept:
            continue
        c = filing.contexts.get(x.context)
        if c is None or c.has_dims:
            continue
        if kind == "instant" and c.instant == end:
            found.append(x)
        elif kind == "duration" and c.start == start and c.end == end:
            found.append(x)
    label = str(end) if kind == "instant" else f"{start}..{end}"
    if not found:
        raise GoldError(f"{filing.stem}: no fact {concept} for {label} (@{token})")
    best = max(x.decimals for x in found)
    vals = {x.value for x in found if x.decimals == best}
    if len(vals) != 1:
        raise GoldError(f"{filing.stem}: conflicting facts {concept} {label}: {sorted(vals)}")
    return label, vals.pop()


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _eval(node: ast.AST, env: dict[str, float]) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, ast.Div) and right == 0:
            raise GoldError("division by zero in formula")
        return float(_OPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, env)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    raise GoldError(f"unsupported formula element: {ast.dump(node)}")


def evaluate(formula: str, filing: Filing, periods: Periods) -> tuple[float, list[dict]]:
    env: dict[str, float] = {}
    inputs: list[dict] = []
    names: dict[tuple[str, str], str] = {}

    def sub(m: re.Match[str]) -> str:
        key = (m.group(1), m.group(2))
        if key not in names:
            label, val = fact_value(filing, periods, *key)
            names[key] = f"v{len(names)}"
            env[names[key]] = val
            inputs.append({"concept": key[0], "period": label, "token": key[1], "value": val})
        return names[key]

    expr = TERM.sub(sub, formula)
    return _eval(ast.parse(expr, mode="eval"), env), inputs


def finish(raw: float, unit: str, decimals: int | None) -> float:
    if unit not in SCALE:
        raise GoldError(f"unknown unit {unit}")
    val = raw * SCALE[unit]
    return round(val, decimals) if decimals is not None else round(val, 6)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edgar", default=str(ROOT.parent.parent / "shared" / "data" / "edgar"))
    ap.add_argument("--spec", default=str(SPEC))
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    edgar = Path(args.edgar)
    rows = [json.loads(line) for line in Path(args.spec).read_text().splitlines() if line.strip()]
    cache: dict[str, tuple[Filing, Periods]] = {}
    errors: list[str] = []
    out = []
    ids = set()
    for row in rows:
        if row["id"] in ids:
            errors.append(f"{row['id']}: duplicate id")
        ids.add(row["id"])
        stem = row["doc"]
        try:
            if stem not in cache:
                path = edgar / f"{stem}.html"
                if not path.exists():
                    raise GoldError(f"missing filing {path}")
                fl = read(path)
                cache[stem] = (fl, Periods(fl))
            fl, per = cache[stem]
            gold, inputs = None, []
            if row["expect"] == "value":
                if not row.get("formula"):
                    raise GoldError("value row without formula")
                raw, inputs = evaluate(row["formula"], fl, per)
                gold = finish(raw, row["unit"], row.get("decimals"))
            elif row.get("formula"):
                raise GoldError("refuse row must have formula null")
            res = dict(row, gold=gold, inputs=inputs)
            if row.get("alt_formula"):
                raw, alt_inputs = evaluate(row["alt_formula"], fl, per)
                res["alt_gold"] = finish(raw, row.get("alt_unit", row["unit"]), row.get("decimals"))
                res["alt_inputs"] = alt_inputs
            out.append(res)
        except GoldError as exc:
            errors.append(f"{row['id']}: {exc}")
    if errors:
        for e in errors:
            print("ERROR", e, file=sys.stderr)
        return 1
    Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out))
    print(f"wrote {len(out)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
