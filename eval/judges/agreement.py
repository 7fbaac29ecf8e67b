"""Agreement statistics between judges, and between a judge and human labels: Cohen's kappa
(`cohen_kappa`), Spearman's rho (`spearman`), and the two-judge summary `cross_evaluator_agreement`
(Spearman, mean |delta|, exact and within-one agreement, kappa of the correct / not-correct decision).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from finrag.eval.judges.base import CORRECT_THRESHOLD

__all__ = ["cohen_kappa", "spearman", "cross_evaluator_agreement"]


def cross_evaluator_agreement(scores_a: Sequence[float], scores_b: Sequence[float],
                              threshold: int = CORRECT_THRESHOLD) -> dict:
    """Agreement of two judges on the same items: Spearman rho (scipy), mean |delta|, share of
    exact agreement, share within one point, and agreement / Cohen's kappa of the binary
    decision `score >= threshold`."""
    a = [float(x) for x in scores_a]
    b = [float(x) for x in scores_b]
    if len(a) != len(b):
        raise ValueError(f"score lists differ in length: {len(a)} != {len(b)}")
    n = len(a)
    out: dict[str, Any] = {"n": n, "spearman": None, "spearman_p": None, "mean_abs_delta": None,
                           "exact_agreement": None, "within_1": None, "binary_agreement": None,
                           "binary_kappa": None, "mean_a": None, "mean_b": None}
    if n == 0:
        return out
    from scipy.stats import spearmanr

    if len(set(a)) > 1 and len(set(b)) > 1:
        res = spearmanr(a, b)
        out["spearman"] = float(res.statistic if hasattr(res, "statistic") else res[0])
        out["spearman_p"] = float(res.pvalue if hasattr(res, "pvalue") else res[1])
    deltas = [abs(x - y) for x, y in zip(a, b)]
    out["mean_abs_delta"] = sum(deltas) / n
    out["exact_agreement"] = sum(d == 0 for d in deltas) / n
    out["within_1"] = sum(d <= 1 for d in deltas) / n
    ba = [x >= threshold for x in a]
    bb = [y >= threshold for y in b]
    out["binary_agreement"] = sum(x == y for x, y in zip(ba, bb)) / n
    out["binary_kappa"] = cohen_kappa(ba, bb)
    out["mean_a"] = sum(a) / n
    out["mean_b"] = sum(b) / n
    return out


def cohen_kappa(y1: Sequence[Any], y2: Sequence[Any]) -> Optional[float]:
    """Cohen's kappa of two label sequences (None when undefined)."""
    n = len(y1)
    if n == 0 or n != len(y2):
        return None
    labels = sorted(set(y1) | set(y2), key=str)
    po = sum(x == y for x, y in zip(y1, y2)) / n
    pe = sum((sum(x == lab for x in y1) / n) * (sum(y == lab for y in y2) / n) for lab in labels)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


def spearman(a: Sequence[float], b: Sequence[float]) -> Optional[float]:
    """Spearman's rho of two paired sequences (scipy); None when either side is constant (or empty)."""
    if len(set(a)) < 2 or len(set(b)) < 2:
        return None
    from scipy.stats import spearmanr

    res = spearmanr(a, b)
    v = float(res.statistic if hasattr(res, "statistic") else res[0])
    return None if math.isnan(v) else v
