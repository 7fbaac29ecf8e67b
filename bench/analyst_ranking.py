"""The ranking class of `bench/analyst_questions.py` (issue 33): which segment, region or product line ranks first.

* `ranking_questions(meta, filing)`: for each breakdown axis of a filing (`srt:ProductOrServiceAxis`,
  `us-gaap:StatementBusinessSegmentsAxis`, `srt:StatementGeographicalAxis`) with at least three members whose
  revenue is tagged for the filing's own period (the fiscal year of a 10-K, the quarter of a 10-Q), one question
  in turn: the member with the highest revenue, the lowest, the fastest growth against the same period a year
  earlier (members tagged for both periods), the largest share of the consolidated revenue. The member is named
  as `analyst_questions` names a segment (its displayed row label, else its QName's words). Gold: the member's
  names (`gold_names`); a member whose revenue is the sum of other members ("Products" beside iPhone and Mac) is
  not ranked; a question whose first two members are within 0.5% of each other is not asked.
* `states_member(q, answer)`: the answer's headline (first sentence) names the gold member;
  `other_member(q, answer)`: it names another member of the axis instead (the wrong-measure count of this class).
"""
from __future__ import annotations

import re

from bench.analyst_common import (
    AXES,
    MEASURE_LABEL,
    REVENUE,
    clean_label,
    fact_gold,
    make_question,
    member_name,
    owner,
    periodic,
    revenue_members,
)

__all__ = ["ranking_questions", "states_member", "other_member", "sum_of_others"]

_NOUNS = {"region": ("region", "geographic region"), "segment": ("segment", "reportable segment"),
          "product": ("product line", "product category")}
_ASKS = ("highest", "growth", "lowest", "share")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ]", " ", (text or "").lower().replace("&", " and "))).strip()


def _names_in(text: str, names: list[str]) -> bool:
    t = f" {_norm(text)} "
    return any(n and f" {_norm(n)} " in t for n in names)


def ranking_questions(meta: dict, filing: dict, limit: int = 3) -> list[dict]:
    """Questions of the ranking class for one filing (see the module docstring)."""
    months = 12 if meta["form"] == "10K" else 3
    fy, q = meta["fy"], meta["q"]
    phrases = (f"in fiscal {fy}", f"for FY{fy}") if months == 12 else (f"in Q{q} of fiscal {fy}",
                                                                       f"for Q{q} FY{fy}")
    by_axis, facts = revenue_members(filing)
    out: list[dict] = []
    total = fact_gold(filing["xbrl"], REVENUE, meta["end"], False, months, 0)
    for a, (axis, keys) in enumerate(sorted(by_axis.items())):
        if len(out) >= limit:
            break
        rows: list[dict] = []
        for key in keys:
            cur = fact_gold(periodic(filing, facts[key]), REVENUE, meta["end"], False, months, 0)
            prior = fact_gold(periodic(filing, facts[key]), REVENUE, meta["end"], False, months, 1)
            if cur is None or cur["value"] <= 0 or (total and abs(total["value"] - cur["value"]) < 1):
                continue
            labels = [clean_label(f.get("row", "")) for f in facts[key] if f.get("row")]
            others = {clean_label(g.get("row", "")) for k2 in keys if k2 != key for g in facts[k2]}
            label = next((r for r in labels if r and r not in others and not MEASURE_LABEL.match(r)), "") \
                or member_name(key[1])
            if not label or "." in label:
                continue
            names = list(dict.fromkeys(n for n in [label, member_name(key[1]), *labels] if n and n not in others))
            rows.append({"label": label, "names": names, "member": key[1], "value": cur["value"],
                         "pages": cur["pages"], "prior": prior["value"] if prior and prior["value"] > 0 else None})
        rows = [r for i, r in enumerate(rows) if not sum_of_others(r["value"], [o["value"] for o in rows if o is not r])]
        if len(rows) < 3:
            continue
        kind = AXES[axis]
        ask = _ASKS[(meta["n"] + a) % len(_ASKS)]
        if ask == "growth":
            rows = [r for r in rows if r["prior"]]
            if len(rows) < 3:
                ask, rows = "highest", rows
        if len(rows) < 2:
            continue
        key_of = {"growth": lambda r: (r["value"] - r["prior"]) / r["prior"], "lowest": lambda r: -r["value"]}
        ranked = sorted(rows, key=key_of.get(ask, lambda r: r["value"]), reverse=True)
        first, second = key_of.get(ask, lambda r: r["value"])(ranked[0]), key_of.get(ask, lambda r: r["value"])(ranked[1])
        if abs(first - second) <= 0.005 * max(abs(first), 1e-9):
            continue
        noun = _NOUNS[kind][(meta["n"] + a) % 2]
        name, phrase = meta["names"][(meta["n"] + a) % 2], phrases[a % 2]
        text = {"highest": f"Which {noun} had the highest revenue for {name} {phrase}?",
                "lowest": f"Which of {owner(name)} {noun}s had the lowest revenue {phrase}?",
                "growth": f"Which {noun} grew revenue the fastest for {name} {phrase}?",
                "share": f"Which {noun} contributed the largest share of {owner(name)} revenue {phrase}?"}[ask]
        gold = {"gold_value": ranked[0]["label"], "gold_names": ranked[0]["names"], "gold_kind": "rank",
                "gold_pages": ranked[0]["pages"], "member": ranked[0]["member"],
                "other_names": [n for r in ranked[1:] for n in r["names"]],
                "period": "annual" if months == 12 else "quarter"}
        out.append(make_question(meta, "ranking", f"{kind}_{ask}", text, gold, len(out)))
    return out


def sum_of_others(value: float, others: list[float]) -> bool:
    """An aggregate member ("Products" beside iPhone and Mac): `value` is the sum of two or more of `others`."""
    from itertools import combinations

    return any(abs(sum(c) - value) <= 0.0001 * value for n in range(2, len(others) + 1) for c in combinations(others, n))


def states_member(q: dict, headline: str) -> bool:
    """The headline names the gold member."""
    return _names_in(headline, q["gold_names"])


def other_member(q: dict, headline: str) -> dict | None:
    """Another member of the axis named by the headline (and not the gold), or None."""
    if _names_in(headline, q["gold_names"]):
        return None
    for n in q["other_names"]:
        if _names_in(headline, [n]):
            return {"concept": "another member", "value": n, "members": []}
    return None
