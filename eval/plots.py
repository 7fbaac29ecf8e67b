"""Plots of a run (matplotlib, Agg backend, PNG): score distributions per system, paired per-group
differences (HDRR - X), and cost (context tokens per query) against quality (mean score, evidence
recall). `make_plots(records, tables, out_dir)` returns {name: path} for the plots it could draw."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401

from finrag.eval import metrics as M  # noqa: E402
from finrag.state.systems import BY_NAME, System  # noqa: E402

__all__ = ["make_plots", "plot_score_distributions", "plot_paired_differences", "plot_cost_quality"]

def _color(system: str) -> str:
    """The system's colour in the registry (a system outside it: the registry's default colour)."""
    return BY_NAME[system].color if system in BY_NAME else System.color


def plot_score_distributions(records: Sequence[dict], path: Path, score_key: str = "score") -> Path | None:
    """One panel per system: share of answers at each score 1..10, bands shaded, mean marked."""
    systems = [s for s in M.systems_of(records) if any(r["system"] == s and r.get(score_key) is not None for r in records)]
    if not systems:
        return None
    n = len(systems)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False, sharey=True)
    for ax in axes.flat[n:]:
        ax.axis("off")
    for ax, system in zip(axes.flat, systems):
        scores = [int(r[score_key]) for r in records if r["system"] == system and r.get(score_key) is not None]
        st = M.score_stats(scores)
        shares = [sum(s == k for s in scores) / len(scores) for k in range(1, 11)]
        ax.axvspan(0.5, 3.5, color="#f4cccc", alpha=0.5, lw=0)
        ax.axvspan(3.5, 7.5, color="#fff2cc", alpha=0.5, lw=0)
        ax.axvspan(7.5, 10.5, color="#d9ead3", alpha=0.6, lw=0)
        ax.bar(range(1, 11), shares, color=_color(system), width=0.75)
        ax.axvline(st["mean"], color="black", ls="--", lw=1)
        ax.set_title(f"{system}  (n={st['n']}, mean {st['mean']:.2f}, P(s≥8) {100 * st['correct_rate']:.0f}%)",
                     fontsize=9)
        ax.set_xticks(range(1, 11))
        ax.set_xlim(0.5, 10.5)
        ax.set_xlabel("judge score")
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    for ax in axes[:, 0]:
        ax.set_ylabel("share of answers")
    fig.suptitle("Score distribution per system (bands: ≤3, 4–7, ≥8; dashed = mean)", fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_paired_differences(paired_rows: Sequence[dict], path: Path, title: str = "mean score") -> Path | None:
    """Per comparison (HDRR - X): one dot per group, the mean with a ±1 std bar, zero line."""
    rows = [r for r in paired_rows if r.get("n_groups")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(rows) + 2), 3.8))
    for i, r in enumerate(rows):
        ds = [v for k, v in sorted(r.items()) if k.startswith("d_g") and v is not None]
        jitter = [(j - (len(ds) - 1) / 2) * 0.06 for j in range(len(ds))]
        ax.scatter([i + x for x in jitter], ds, color=_color(r["system"]), s=22, alpha=0.8, zorder=3,
                   label="per group" if i == 0 else None)
        std = r.get("std_diff") or 0.0
        ax.errorbar([i + 0.28], [r["mean_diff"]], yerr=[std], fmt="D", color="black", ms=5, capsize=4, zorder=4,
                    label="mean ± std over groups" if i == 0 else None)
    ax.axhline(0, color="grey", lw=1)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["comparison"] for r in rows], rotation=20, ha="right", fontsize=9)
    ax.set_ylabel(f"difference in {title}")
    if title.startswith("P("):
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax.set_title(f"Paired per-group differences in {title} (above 0: {rows[0]['reference']} better)", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_cost_quality(quality_rows: Sequence[dict], retrieval_rows: Sequence[dict], path: Path) -> Path | None:
    """Context tokens per query (x) against mean score and against evidence page recall (y), per system."""
    ret = {r["system"]: r for r in retrieval_rows}
    qual = {r["system"]: r for r in quality_rows}
    panels = [("mean score (judge)", lambda s: qual.get(s, {}).get("mean")),
              ("evidence page recall", lambda s: ret.get(s, {}).get("evidence_recall"))]
    panels = [(t, f) for t, f in panels if any(f(s) is not None and ret.get(s, {}).get("mean_context_tokens")
                                              for s in ret)]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.0), squeeze=False)
    for ax, (title, fn) in zip(axes.flat, panels):
        xs, ys = [], []
        for s in ret:
            x, y = ret[s].get("mean_context_tokens"), fn(s)
            if x is None or y is None:
                continue
            xs.append(x)
            ys.append(y)
            ax.scatter([x], [y], s=60, color=_color(s), zorder=3, edgecolor="black", lw=0.5)
            ax.annotate(s, (x, y), textcoords="offset points", xytext=(6, 5), fontsize=9)
        if xs and max(xs) / max(min(xs), 1) > 20:
            ax.set_xscale("log")
        ax.set_xlabel("context tokens per query (mean)")
        ax.set_ylabel(title)
        if "recall" in title:
            ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
            ax.set_ylim(-0.05, 1.12)
        else:
            ax.margins(y=0.2)
        ax.grid(alpha=0.3)
        ax.set_title(f"Cost vs {title}", fontsize=10)
        if xs:
            lo, hi = min(xs), max(xs)
            pad = (hi - lo) * 0.15 or max(hi * 0.15, 1)
            if ax.get_xscale() != "log":
                ax.set_xlim(max(0, lo - pad), hi + 2 * pad)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def make_plots(records: Sequence[dict], tables: dict, out_dir: Path) -> dict[str, Path]:
    out_dir = Path(out_dir)
    made: dict[str, Path] = {}
    for name, fn in (
        ("score_distributions", lambda p: plot_score_distributions(records, p)),
        ("paired_differences_mean", lambda p: plot_paired_differences(tables.get("paired_mean") or [], p, "mean score")),
        ("paired_differences_correct", lambda p: plot_paired_differences(tables.get("paired_correct") or [], p,
                                                                         "P(s≥8)")),
        ("cost_vs_quality", lambda p: plot_cost_quality(tables.get("quality") or [], tables.get("retrieval") or [], p)),
    ):
        p = fn(out_dir / f"{name}.png")
        if p is not None:
            made[name] = p
    return made
