"""bench/defined_perturb's transforms (round f55d): each rewrites one aspect of a question and keeps what the gold
depends on (the operands, the arithmetic, the period, the company, the decimals); a transform that finds nothing of
its aspect does not apply; the paraphrases are reproducible from the seed."""
from __future__ import annotations

import random
import re

from bench import defined_perturb as dp

Q = {"id": "t-1", "doc": "ba-10-k-2025-02-03", "unit": "ratio", "decimals": 2, "expect": "value",
     "inputs": [{"period": "2024-01-01..2024-12-31"}],
     "question": "Define working capital ratio as total current assets divided by total current liabilities. "
                 "What is Boeing's working capital ratio for FY2024? Round to two decimals."}


def _all(fn, q: dict, n: int = 40) -> set[str]:
    return {v for i in range(n) if (v := fn(q, random.Random(i)))}


def test_order_swaps_the_definition_and_the_question() -> None:
    out = dp.order(Q, random.Random(0))
    assert out == ("What is Boeing's working capital ratio for FY2024? Define working capital ratio as total current "
                   "assets divided by total current liabilities. Round to two decimals.")
    # a question that needs its definition first ("What is it?") is not moved
    assert dp.order({**Q, "question": "Define X as revenue over assets. What is it for FY2024?"}, random.Random(0)) is None


def test_operators_keep_the_operands_and_the_order() -> None:
    outs = _all(dp.operators, Q)
    assert outs and all("total current assets" in o and o.index("assets") < o.index("liabilities") for o in outs)
    assert {" over ", " / ", " relative to "} & {w for o in outs for w in (" over ", " / ", " relative to ") if w in o}
    assert all("divided by" not in o for o in outs)
    minus = {**Q, "question": "Net debt = long-term debt minus cash. USD millions."}
    assert all(re.search(r"debt (less|-|net of) cash", o) for o in _all(dp.operators, minus))
    # "as a % of" only where the gold is a percent
    assert not any("%" in o for o in _all(dp.operators, Q))


def test_syntax_rewrites_the_definition_not_its_operands() -> None:
    outs = _all(dp.syntax, Q)
    assert any(o.startswith("Let working capital ratio be ") for o in outs)
    assert any("take total current assets and divide it by total current liabilities" in o or
               "numerator total current assets and denominator total current liabilities" in o for o in outs)
    eq = {**Q, "question": "Coca-Cola FY2024: ETR = income taxes / income before income taxes. Percent."}
    assert any(":=" in o or "is defined as" in o for o in _all(dp.syntax, eq))


def test_units_rounding_keep_the_scale_and_the_decimals() -> None:
    q = {**Q, "unit": "usd_millions", "decimals": 0, "question": "Boeing FY2024 FCF = OCF less capex. USD millions."}
    outs = _all(dp.units, q)
    assert outs and all("illion" not in o or "millions" in o for o in outs) and not any("bn" in o for o in outs)
    assert all(re.search(r"\b2\b|two", o) for o in _all(dp.rounding, Q))
    assert dp.rounding({**Q, "decimals": None}, random.Random(0)) is None
    assert dp.units({**Q, "question": Q["question"] + " In times."}, random.Random(0)) is None


def test_periods_write_the_same_period() -> None:
    outs = _all(dp.periods, Q)
    assert "What is Boeing's working capital ratio for the fiscal year ended December 31, 2024?" in " ".join(outs)
    assert all(re.search(r"FY2024|FY24|fiscal (year )?2024|December 31, 2024", o) for o in outs)
    assert any(o.startswith("FY2024: ") for o in outs)  # moved to the front
    q = {**Q, "doc": "tsla-10-q-2025-07-24", "question": "Tesla, six months ended June 30, 2025: R&D / revenue."}
    assert all("June 30, 2025" in o and "six months" not in o for o in _all(dp.periods, q))


def test_company_is_the_same_company() -> None:
    outs = _all(dp.company, Q)
    assert {"BA's", "boeing's", "Boeing"} & {m for o in outs for m in re.findall(r"\b(?:BA's|boeing's|Boeing)(?=\s)", o)}
    assert all(re.search(r"(?i)\bBA\b|boeing", o) for o in outs)
    assert dp.company({**Q, "doc": "x-10-k"}, random.Random(0)) is None


def test_punctuation_and_case() -> None:
    outs = _all(dp.punctuation, Q)
    assert any("\n- " in o for o in outs) and any(o.endswith("Round to two decimals.") and "\n" in o for o in outs)
    lower = [o for o in outs if o.startswith("define ")]
    assert lower and all("Boeing" in o for o in lower)  # the company keeps its case


def test_seeded_and_reproducible() -> None:
    qs = dp.load()
    a, b = dp.perturb(qs, seed=3, per_family=5), dp.perturb(qs, seed=3, per_family=5)
    assert a == b and len(a) == 5 * len(dp.FAMILIES)
    assert dp.perturb(qs, seed=4, per_family=5) != a
    assert all(r["question"] != r["original"] and r["gold"] == next(q for q in qs if q["id"] == r["id"])["gold"] for r in a)


def test_new_syntax_writes_the_same_definition_another_way() -> None:
    outs = _all(dp.new_syntax, Q)
    assert outs and all("total current assets" in o and "total current liabilities" in o for o in outs)
    assert any("is given by" in o or "We compute" in o or "Read " in o or "here means" in o for o in outs)
    assert all(not o.startswith("Define ") or "÷" in o or "as a fraction of" in o for o in outs)
    named = {**Q, "question": "Acme's cash ratio, defined as cash divided by total current liabilities, for FY2024?"}
    assert any(", i.e. " in o or "which we take to be" in o or "worked out as" in o for o in _all(dp.new_syntax, named))
    total = {**Q, "unit": "usd_millions", "question": "Define gross debt as long-term debt plus current debt."}
    assert any("current debt plus long-term debt" in o or "added to" in o for o in _all(dp.new_syntax, total))
    # a label's own comma keeps the sum's operands in place
    label = {**Q, "question": "Opex = (research and development + selling, general and administrative) / revenue."}
    assert not any("selling + research" in o for o in _all(dp.new_syntax, label))
