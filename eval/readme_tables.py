"""The README's headline tables, generated from the committed quality baseline (issue 46).

    python -m finrag.eval.readme_tables           # rewrite the generated blocks of README.md and docs/benchmarks.md
    python -m finrag.eval.readme_tables --check   # exit 1 when a block differs from the baseline (a test runs this)

A generated block sits between `<!-- quality:begin -->` and `<!-- quality:end -->`; everything in it is rendered
from `docs/results/quality_baseline.json` (`python -m finrag.eval.guard --update`), so a number in it cannot go
stale: the CI guard fails when quality moves away from the file, and a test fails when the README moves away
from it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from finrag.eval.guard import BASELINE, load_baseline
from finrag.state.systems import DEFAULT_SYSTEM, REGISTRY

__all__ = ["BEGIN", "END", "TARGETS", "render", "rewrite", "stale"]

REPO = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- quality:begin -->", "<!-- quality:end -->"
TARGETS = (REPO / "README.md", REPO / "docs" / "benchmarks.md")

_LABELS = {s.name: f"**{s.label}**" if s.name == DEFAULT_SYSTEM else s.label for s in REGISTRY}
"""Each system's row label (the registry's label; the default system in bold)."""
_EDGAR_LABELS = {"revenue": "total revenue", "net_income": "net income", "eps_basic": "basic EPS",
                 "eps_diluted": "diluted EPS", "operating_income": "operating income", "cfo": "operating cash flow",
                 "capex": "capital expenditures", "rnd": "R&D expense", "total_assets": "total assets",
                 "all": "**all**"}


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{float(v) * 100:.1f}%"


def render(baseline: dict[str, Any], docs: str = "docs/") -> str:
    """The generated block's Markdown (without the markers); `docs` is the docs folder relative to the target."""
    fb = baseline["financebench_dev"]
    lines = [
        "Measured by `python -m finrag.eval.guard` (CI runs it in `tests/integration/test_quality_guard.py` and fails",
        "when a number moves beyond its tolerance), fully offline: the default embedder, the offline strategy of",
        "every LLM role, the offline judge. The numbers below are rendered from",
        f"[docs/results/quality_baseline.json]({docs}results/quality_baseline.json) by `python -m finrag.eval.readme_tables`.",
        "",
        "**FinanceBench dev** (86 questions, the 168-filing index):",
        "",
        "| system | exact routing | evidence page in context | wrong-document chunks | context tokens | LLM calls | judge P(s>=8) | answers quoting page furniture |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for system, label in _LABELS.items():
        row = fb.get(system)
        if row is None:
            continue
        routing = "n/a (no routing)" if row.get("exact_routing") is None else _pct(row["exact_routing"])
        lines.append(f"| {label} | {routing} | {_pct(row['evidence_hit'])} | {_pct(row['wrong_doc_share'])} | "
                     f"{float(row['context_tokens']):,.0f} | {row['llm_calls']:g} | {_pct(row['judge_p8'])} | "
                     f"{_pct(row.get('furniture'))} |")
    edgar = baseline.get("edgar") or {}
    if edgar:
        total = edgar.get("all", {})
        lines += ["", f"**Real EDGAR filings**, HDRR (15 inline-XBRL filings as downloaded, {total.get('n', 0)} questions "
                  "generated from their own XBRL facts, `finrag.eval.edgar_gold`):", "",
                  "| line item | questions | exact filing | fact's page in context | value stated |", "|---|---|---|---|---|"]
        for name in [*(k for k in _EDGAR_LABELS if k != "all" and k in edgar), "all"]:
            if name in edgar:
                r = edgar[name]
                lines.append(f"| {_EDGAR_LABELS.get(name, name)} | {r['n']} | {r['exact']:.3f} | {r['evidence']:.3f} | "
                             f"{r['value']:.3f} |")
    lat = baseline.get("latency") or {}
    if lat:
        lines += ["", f"**Latency**, warm, one question at a time, on the machine that wrote the baseline (2 cores): "
                  f"HDRR p50 {lat['hdrr_p50_ms']:.0f} ms, CBR p50 {lat['cbr_p50_ms']:.0f} ms; as ratios to a fixed "
                  f"reference computation timed in the same run ({lat['reference_p50_ms']:.1f} ms there): HDRR "
                  f"{lat['hdrr_ratio']:.2f}, CBR {lat['cbr_ratio']:.2f} (the guard flags a move over 30%)."]
    return "\n".join(lines)


def _replace(text: str, baseline: dict[str, Any], path: Path) -> str:
    block = render(baseline, "" if path.parent.name == "docs" else "docs/")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{path}: no {BEGIN} ... {END} block")
    return text[: start + len(BEGIN)] + "\n" + block + "\n" + text[end:]


def stale(baseline_path: Path = BASELINE, targets: tuple[Path, ...] = TARGETS) -> list[Path]:
    """The targets whose generated block differs from the baseline's rendering."""
    baseline = load_baseline(baseline_path)
    return [p for p in targets for text in [p.read_text(encoding="utf-8")] if _replace(text, baseline, p) != text]


def rewrite(baseline_path: Path = BASELINE, targets: tuple[Path, ...] = TARGETS) -> list[Path]:
    """Rewrite the targets' generated blocks; returns the files that changed."""
    baseline = load_baseline(baseline_path)
    changed = []
    for p in targets:
        old = p.read_text(encoding="utf-8")
        new = _replace(old, baseline, p)
        if new != old:
            p.write_text(new, encoding="utf-8")
            changed.append(p)
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m finrag.eval.readme_tables", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a generated block is stale")
    args = ap.parse_args(argv)
    if args.check:
        old = stale()
        for p in old:
            print(f"stale: {p.relative_to(REPO)} (run python -m finrag.eval.readme_tables)", file=sys.stderr)
        return 1 if old else 0
    for p in rewrite():
        print(f"rewrote {p.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
