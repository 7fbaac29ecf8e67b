"""Calibrate the offline judge against the FinanceBench human labels.

    python -m finrag.eval.calibrate --data ../shared/data/financebench --out runs/judge_calibration

1. Load every row of `human_labels/*.jsonl` (16 model configurations x 86 questions) and join
   the question's `question_type`, `question_reasoning` and gold `justification` from
   `questions_dev.jsonl`.
2. Split by QUESTION (`financebench_id`): the ids are shuffled with a fixed seed within each
   `question_type` and dealt alternately into a tuning half and a held-out half, so no question
   appears in both and both halves have the same mix of question types.
3. Grid-search the `OfflineJudgeParams` knobs on the tuning half ONLY (objective: accuracy of
   `score >= 8` against `label == "Correct Answer"`; ties broken by kappa, then by the
   distance to the built-in defaults).
4. Report on the held-out half: accuracy, Cohen's kappa, Spearman between score and label,
   confusion matrices, and breakdowns by question type, gold kind, model configuration.

Outputs in `--out`: `calibration.json`, `calibration.md`, `scores_heldout.jsonl`, and
`offline_judge_params.json` (the tuned parameters; `--save-defaults` also writes them to the
package default `eval/data/offline_judge_params.json`).

Label encodings: binary target `Correct Answer` = 1, `Incorrect Answer` = `Refusal` = 0
(refusals are not correct). Spearman is reported for this binary target (primary) and for the
ordinal `Correct` = 2, `Incorrect` = 1, `Refusal` = 0 (secondary).
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from finrag.eval.judges import make_judge
from finrag.eval.judges.agreement import cohen_kappa, cross_evaluator_agreement, spearman
from finrag.eval.judges.base import CORRECT_THRESHOLD
from finrag.eval.judges.llm import LLMJudge
from finrag.eval.judges.offline import DEFAULT_PARAMS_PATH, OfflineJudge, OfflineJudgeParams

LABELS = ("Correct Answer", "Incorrect Answer", "Refusal")
BINARY = {"Correct Answer": 1, "Incorrect Answer": 0, "Refusal": 0}
ORDINAL = {"Correct Answer": 2, "Incorrect Answer": 1, "Refusal": 0}
DEFAULT_SEED = 20231115  # FinanceBench paper date; fixed so the split never changes
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "financebench"

# Few knobs, coarse grid (1,440 points, ~4 s). The first two change the measured features (computed once per
# combination); the others only change the mapping of features to the rubric.
GRID: dict[str, Sequence[Any]] = {
    "rel_tol": (0.0, 0.001, 0.002, 0.005, 0.01),
    "answer_round_cap": (0.0, 0.01, 0.05),
    "overlap_hi": (0.3, 0.4, 0.5, 0.6),
    "refusal_min": (0.5, 0.75, 1.0),
    "nonfinal_match_score": (6, 8),
    "yesno_wrong_numbers_score": (5, 8),
    "text_wrong_numbers_cap": (5, 8),
}
# Not searched: `overlap_lo` and `near_tol` only move scores below 8, so they cannot change the
# correct / not-correct decision that is tuned here.


# ---------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------


def load_rows(data_dir: Path | str) -> list[dict]:
    """All human-label rows joined with the question metadata of `questions_dev.jsonl`."""
    data_dir = Path(data_dir)
    questions = {}
    qpath = data_dir / "questions_dev.jsonl"
    if qpath.exists():
        for line in qpath.read_text().splitlines():
            if line.strip():
                q = json.loads(line)
                questions[q["financebench_id"]] = q
    rows = []
    files = sorted((data_dir / "human_labels").glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no human_labels/*.jsonl under {data_dir}")
    for f in files:
        for line in f.read_text().splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            q = questions.get(r["financebench_id"], {})
            rows.append({
                "financebench_id": r["financebench_id"],
                "config": f.stem,
                "question": r["question"],
                "gold_answer": r["gold_answer"],
                "model_answer": r.get("model_answer") or "",
                "label": r["label"],
                "justification": q.get("justification") or "",
                "question_type": q.get("question_type") or "unknown",
                "question_reasoning": q.get("question_reasoning") or "",
            })
    return rows


def split_questions(rows: Iterable[dict], seed: int = DEFAULT_SEED) -> tuple[set[str], set[str]]:
    """(tuning ids, held-out ids): ids shuffled with `seed` within each question type, then dealt
    alternately (continuing across types) so both halves get the same mix."""
    by_type: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        by_type[r.get("question_type") or "unknown"].add(r["financebench_id"])
    rng = random.Random(seed)
    tune: set[str]
    held: set[str]
    tune, held = set(), set()
    k = 0
    for qtype in sorted(by_type):
        ids = sorted(by_type[qtype])
        rng.shuffle(ids)
        for i in ids:
            (tune if k % 2 == 0 else held).add(i)
            k += 1
    return tune, held


# ---------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------


def metrics(scores: Sequence[int], labels: Sequence[str], threshold: int = CORRECT_THRESHOLD) -> dict:
    """Accuracy / kappa / precision / recall of `score >= threshold` vs `label == Correct Answer`,
    Spearman of score vs binary and ordinal labels, confusion matrices."""
    n = len(scores)
    pred = [int(s >= threshold) for s in scores]
    gold = [BINARY[lab] for lab in labels]
    tp = sum(p == 1 and g == 1 for p, g in zip(pred, gold))
    tn = sum(p == 0 and g == 0 for p, g in zip(pred, gold))
    fp = sum(p == 1 and g == 0 for p, g in zip(pred, gold))
    fn = sum(p == 0 and g == 1 for p, g in zip(pred, gold))
    by_label = {lab: {"judged_correct": 0, "judged_not_correct": 0} for lab in LABELS}
    hist: dict[str, Counter] = {lab: Counter() for lab in LABELS}
    for s, p, lab in zip(scores, pred, labels):
        by_label[lab]["judged_correct" if p else "judged_not_correct"] += 1
        hist[lab][int(s)] += 1
    out = {
        "n": n,
        "threshold": threshold,
        "accuracy": (tp + tn) / n if n else None,
        "kappa": cohen_kappa(pred, gold),
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "spearman_binary": spearman(scores, gold),
        "spearman_ordinal": spearman(scores, [ORDINAL[lab] for lab in labels]),
        "human_correct_rate": sum(gold) / n if n else None,
        "judge_correct_rate": sum(pred) / n if n else None,
        "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "confusion_by_label": by_label,
        "score_histogram_by_label": {lab: {str(k): v for k, v in sorted(h.items())} for lab, h in hist.items()},
    }
    return out


def _breakdown(rows: Sequence[dict], scores: Sequence[int], key: str) -> dict:
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[str(r.get(key))].append(i)
    out = {}
    for g, idx in sorted(groups.items()):
        m = metrics([scores[i] for i in idx], [rows[i]["label"] for i in idx])
        out[g] = {k: m[k] for k in ("n", "accuracy", "kappa", "spearman_binary", "human_correct_rate",
                                    "judge_correct_rate")}
    return out


# ---------------------------------------------------------------------------------------
# Scoring and tuning
# ---------------------------------------------------------------------------------------


def score_rows(judge: OfflineJudge, rows: Sequence[dict]) -> list[int]:
    return [judge.score(r["question"], r["gold_answer"], r["model_answer"], r["justification"]).score for r in rows]


def tune(rows: Sequence[dict], grid: dict[str, Sequence[Any]] = GRID,
         base: Optional[OfflineJudgeParams] = None) -> tuple[OfflineJudgeParams, list[dict]]:
    """Exhaustive search over `grid` on `rows` (the tuning half only). Objective: accuracy of
    `score >= 8` vs `label == "Correct Answer"`, ties broken by Cohen's kappa, then by the number
    of knobs moved away from the built-in defaults. Returns the best parameters and the trials
    (params, accuracy, kappa)."""
    base = base or OfflineJudgeParams()
    default = OfflineJudgeParams()
    gold = [BINARY[r["label"]] for r in rows]
    n = len(rows)
    feat_keys = [k for k in grid if k in OfflineJudgeParams.FEATURE_PARAMS]
    grade_keys = [k for k in grid if k not in OfflineJudgeParams.FEATURE_PARAMS]
    trials = []
    best = None
    for fcombo in itertools.product(*(grid[k] for k in feat_keys)):
        fparams = replace(base, **dict(zip(feat_keys, fcombo)))
        judge = OfflineJudge(fparams)
        feats = [judge.features(r["question"], r["gold_answer"], r["model_answer"], r["justification"]) for r in rows]
        for gcombo in itertools.product(*(grid[k] for k in grade_keys)):
            cand = {**dict(zip(feat_keys, fcombo)), **dict(zip(grade_keys, gcombo))}
            if cand.get("overlap_lo", 0) >= cand.get("overlap_hi", 1):
                continue
            params = replace(fparams, **dict(zip(grade_keys, gcombo)))
            pred = [int(judge.grade(f, params)[0] >= CORRECT_THRESHOLD) for f in feats]
            acc = sum(p == g for p, g in zip(pred, gold)) / n
            kap = cohen_kappa(pred, gold) or 0.0
            dist = sum(1 for k in cand if getattr(params, k) != getattr(default, k))
            trials.append({**cand, "accuracy": round(acc, 6), "kappa": round(kap, 6)})
            key = (round(acc, 9), round(kap, 9), -dist)
            if best is None or key > best[0]:
                best = (key, params)
    assert best is not None
    return best[1], trials


def calibrate(data_dir: Path | str = DEFAULT_DATA, seed: int = DEFAULT_SEED,
              grid: dict[str, Sequence[Any]] = GRID) -> dict:
    """Run the whole calibration and return the report (also used by the tests)."""
    t0 = time.perf_counter()
    rows = load_rows(data_dir)
    tune_ids, held_ids = split_questions(rows, seed)
    assert not tune_ids & held_ids
    tune_rows = [r for r in rows if r["financebench_id"] in tune_ids]
    held_rows = [r for r in rows if r["financebench_id"] in held_ids]

    default_params = OfflineJudgeParams()
    best, trials = tune(tune_rows, grid)
    best = replace(best, source=(f"finrag.eval.calibrate: grid search on the TUNING half "
                                 f"({len(tune_ids)} questions, {len(tune_rows)} rows, seed {seed}); "
                                 f"held-out half never used for tuning"))
    t1 = time.perf_counter()
    judge = OfflineJudge(best)
    held_scores = score_rows(judge, held_rows)
    t2 = time.perf_counter()
    tune_scores = score_rows(judge, tune_rows)
    held_default = score_rows(OfflineJudge(default_params), held_rows)
    held_labels = [r["label"] for r in held_rows]

    kinds = [judge.features(r["question"], r["gold_answer"], r["model_answer"]).kind for r in held_rows]
    for r, k in zip(held_rows, kinds):
        r["_gold_kind"] = k
    report = {
        "data": str(Path(data_dir).resolve()),
        "seed": seed,
        "split": {
            "method": "by financebench_id, shuffled within question_type with the seed, dealt alternately",
            "tuning_questions": sorted(tune_ids),
            "heldout_questions": sorted(held_ids),
            "tuning_rows": len(tune_rows),
            "heldout_rows": len(held_rows),
            "overlap": sorted(tune_ids & held_ids),
        },
        "label_encoding": {"binary": BINARY, "ordinal": ORDINAL,
                           "decision": f"score >= {CORRECT_THRESHOLD} counts as 'Correct Answer'"},
        "grid": {k: list(v) for k, v in grid.items()},
        "grid_trials": len(trials),
        "tuned_params": best.to_dict(),
        "default_params": default_params.to_dict(),
        "tuning": metrics(tune_scores, [r["label"] for r in tune_rows]),
        "heldout": metrics(held_scores, held_labels),
        "heldout_with_untuned_defaults": {k: v for k, v in metrics(held_default, held_labels).items()
                                          if k in ("accuracy", "kappa", "spearman_binary")},
        "heldout_threshold_sweep": {str(t): {k: v for k, v in metrics(held_scores, held_labels, t).items()
                                             if k in ("accuracy", "kappa")} for t in range(2, 11)},
        "heldout_by_question_type": _breakdown(held_rows, held_scores, "question_type"),
        "heldout_by_gold_kind": _breakdown(held_rows, held_scores, "_gold_kind"),
        "heldout_by_config": _breakdown(held_rows, held_scores, "config"),
        "timing": {"tuning_s": round(t1 - t0, 2),
                   "heldout_rows_per_s": round(len(held_rows) / max(t2 - t1, 1e-9))},
    }
    report["_held_rows"] = [{"financebench_id": r["financebench_id"], "config": r["config"],
                             "question_type": r["question_type"], "gold_kind": r["_gold_kind"],
                             "label": r["label"], "score": s} for r, s in zip(held_rows, held_scores)]
    return report


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------


def _fmt(x: Any, pct: bool = False) -> str:
    if x is None:
        return "n/a"
    if pct:
        return f"{100 * x:.1f}%"
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def markdown(report: dict, command: str = "") -> str:
    h = report["heldout"]
    t = report["tuning"]
    p = report["tuned_params"]
    lines = ["# Offline judge calibration against FinanceBench human labels", ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += [
        f"Split by question (seed {report['seed']}): {len(report['split']['tuning_questions'])} tuning questions "
        f"({report['split']['tuning_rows']} rows), {len(report['split']['heldout_questions'])} held-out questions "
        f"({report['split']['heldout_rows']} rows); no question in both.",
        f"Decision: {report['label_encoding']['decision']}; refusals count as not correct.",
        "Spearman: binary label (Correct = 1, Incorrect = Refusal = 0) and ordinal (Correct = 2, Incorrect = 1, Refusal = 0).",
        "",
        "| split | rows | accuracy | Cohen's kappa | Spearman (binary) | Spearman (ordinal) | precision | recall |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, m in (("tuning", t), ("**held-out**", h)):
        lines.append(f"| {name} | {m['n']} | {_fmt(m['accuracy'], True)} | {_fmt(m['kappa'])} | "
                     f"{_fmt(m['spearman_binary'])} | {_fmt(m['spearman_ordinal'])} | {_fmt(m['precision'])} | "
                     f"{_fmt(m['recall'])} |")
    d = report["heldout_with_untuned_defaults"]
    lines += ["", f"Held-out with the untuned built-in defaults: accuracy {_fmt(d['accuracy'], True)}, "
                  f"kappa {_fmt(d['kappa'])}.", "",
              "## Tuned parameters (from the tuning half only)", "", "| parameter | value |", "|---|---|"]
    for k, v in p.items():
        if k != "source":
            lines.append(f"| `{k}` | {v} |")
    lines += ["", f"Source: {p['source']}", "", "## Held-out confusion matrix", "",
              "| human label | judged correct (score >= 8) | judged not correct |", "|---|---|---|"]
    for lab, c in h["confusion_by_label"].items():
        lines.append(f"| {lab} | {c['judged_correct']} | {c['judged_not_correct']} |")
    lines += ["", "Score histogram by human label (held-out):", ""]
    for lab, hist in h["score_histogram_by_label"].items():
        lines.append(f"- {lab}: " + ", ".join(f"{k}: {v}" for k, v in hist.items()))
    for title, key in (("question type", "heldout_by_question_type"), ("gold answer kind", "heldout_by_gold_kind"),
                       ("model configuration", "heldout_by_config")):
        lines += ["", f"## Held-out by {title}", "", "| group | rows | accuracy | kappa | human correct | judged correct |",
                  "|---|---|---|---|---|---|"]
        for g, m in report[key].items():
            lines.append(f"| {g} | {m['n']} | {_fmt(m['accuracy'], True)} | {_fmt(m['kappa'])} | "
                         f"{_fmt(m['human_correct_rate'], True)} | {_fmt(m['judge_correct_rate'], True)} |")
    lines += ["", "## Held-out threshold sweep (for reference; the decision threshold stays 8)", "",
              "| threshold | accuracy | kappa |", "|---|---|---|"]
    for thr, m in report["heldout_threshold_sweep"].items():
        lines.append(f"| >= {thr} | {_fmt(m['accuracy'], True)} | {_fmt(m['kappa'])} |")
    lines += ["", f"Throughput: {report['timing']['heldout_rows_per_s']} rows/s; tuning took "
                  f"{report['timing']['tuning_s']} s ({report['grid_trials']} grid points).", ""]
    return "\n".join(lines)


def params_json(report: dict) -> dict:
    p = dict(report["tuned_params"])
    source = p.pop("source")
    return {
        "source": source,
        "tuning_questions": report["split"]["tuning_questions"],
        "tuning_metrics": {k: report["tuning"][k] for k in ("n", "accuracy", "kappa")},
        "heldout_metrics": {k: report["heldout"][k] for k in ("n", "accuracy", "kappa", "spearman_binary")},
        "params": p,
    }


def evaluate_judge(judge: Any, data_dir: Path | str = DEFAULT_DATA, seed: int = DEFAULT_SEED,
                   limit: Optional[int] = None) -> dict:
    """Score the HELD-OUT half with any judge (e.g. an `LLMJudge`) and report the same metrics
    as for the offline judge, plus the agreement with the offline judge on the same rows.
    Nothing is tuned; `limit` caps the number of rows (LLM cost)."""
    rows = load_rows(data_dir)
    _, held_ids = split_questions(rows, seed)
    held = [r for r in rows if r["financebench_id"] in held_ids][: limit or None]
    items = [{"question": r["question"], "gold": r["gold_answer"], "answer": r["model_answer"],
              "justification": r["justification"]} for r in held]
    results = judge.score_many(items)
    scores = [res.score for res in results]
    offline = score_rows(OfflineJudge(), held)
    return {
        "judge": getattr(judge, "name", type(judge).__name__),
        "seed": seed,
        "rows": len(held),
        "parse_errors": sum(bool(getattr(res, "parse_error", False)) for res in results),
        "usage": getattr(judge, "total_usage", None),
        "heldout": metrics(scores, [r["label"] for r in held]),
        "heldout_by_question_type": _breakdown(held, scores, "question_type"),
        "agreement_with_offline": cross_evaluator_agreement(scores, offline),
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m finrag.eval.calibrate", description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="FinanceBench folder (questions_dev.jsonl, human_labels/)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--save-defaults", action="store_true",
                    help=f"also write the tuned parameters to {DEFAULT_PARAMS_PATH}")
    ap.add_argument("--llm-role", default="",
                    help="instead of calibrating, score the held-out half with the LLM judge of this role "
                         "(judge or judge2; model from FINRAG_<ROLE>_MODEL / FINRAG_LLM)")
    ap.add_argument("--limit", type=int, default=None, help="with --llm-role: at most this many rows")
    args = ap.parse_args(argv)
    if args.llm_role:
        judge = make_judge(args.llm_role)
        if not isinstance(judge, LLMJudge):
            print(f"no chat model configured for role {args.llm_role!r} (offline); nothing to do", file=sys.stderr)
            return 2
        rep_llm = evaluate_judge(judge, args.data, args.seed, args.limit)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / f"llm_{args.llm_role}_heldout.json").write_text(json.dumps(rep_llm, indent=2))
        h = rep_llm["heldout"]
        print(f"{args.llm_role} held-out: n={h['n']} accuracy={h['accuracy']:.3f} kappa={_fmt(h['kappa'])} "
              f"parse_errors={rep_llm['parse_errors']} usage={rep_llm['usage']}")
        return 0
    report = calibrate(args.data, args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    held_rows = report.pop("_held_rows")
    (out / "calibration.json").write_text(json.dumps(report, indent=2))
    with (out / "scores_heldout.jsonl").open("w") as fh:
        for r in held_rows:
            fh.write(json.dumps(r) + "\n")
    command = "python -m finrag.eval.calibrate " + " ".join(sys.argv[1:] if argv is None else argv)
    (out / "calibration.md").write_text(markdown(report, command))
    pj = json.dumps(params_json(report), indent=2) + "\n"
    (out / "offline_judge_params.json").write_text(pj)
    if args.save_defaults:
        DEFAULT_PARAMS_PATH.parent.mkdir(parents=True, exist_ok=True)
        DEFAULT_PARAMS_PATH.write_text(pj)
    h = report["heldout"]
    print(f"held-out: n={h['n']} accuracy={h['accuracy']:.3f} kappa={h['kappa']:.3f} "
          f"spearman={_fmt(h['spearman_binary'])} | tuned {report['tuned_params']} | wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
