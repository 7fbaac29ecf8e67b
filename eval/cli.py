"""`finrag eval ...`: run the paper's evaluation protocol, rebuild reports, calibrate the offline judge.

    finrag eval run --systems all --dataset FILE [--answers FILE]
                    --groups 5 [--per-group 300] --index DIR --out DIR [--judge offline|auto|openai/gpt-4.1]
                    [--judge2 openai/<model>] [--concurrency 2] [--limit N] [--configurable key=value ...]
    finrag eval report --out DIR [--index DIR]
    finrag eval calibrate --out DIR [--data FOLDER] [--seed N] [--save-defaults]
    finrag eval groups --dataset FILE [--groups 5] [--per-group 300]     (show the sampled groups only)

`main(argv)` returns the exit code: 0 done (per-query errors are recorded in the answer files and
counted in the report), 2 usage error (bad flags, missing dataset or index), 130 interrupted (rerun the
same command to resume).
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections import Counter
from typing import Optional, Sequence

from finrag.errors import print_error
from finrag.eval import calibrate
from finrag.eval.datasets import load_dataset, stratified_groups
from finrag.eval.report import write_report
from finrag.eval.runner import EvalConfig, parse_configurable, run_eval
from finrag.graphs import SYSTEMS
from finrag.state.configuration import INDEX_DIR_RULE
from finrag.tools.indexing.backend import open_store
from finrag.tools.indexing.store_schema import IndexError_

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _err(msg: str) -> None:
    print_error(msg, prog="finrag eval")


def _systems(value: str) -> list[str]:
    names = [s.strip() for s in value.replace(" ", ",").split(",") if s.strip()]
    if names == ["all"]:
        return list(SYSTEMS)
    bad = [s for s in names if s not in SYSTEMS]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown system(s) {', '.join(bad)}; choose from {', '.join(SYSTEMS)}")
    if not names:
        raise argparse.ArgumentTypeError("no systems given")
    return list(dict.fromkeys(names))


def _positive(value: str) -> int:
    v = int(value)
    if v < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return v


def _sampling_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", required=True, help="FinanceBench JSONL, FinDER-style CSV (query_id,query) or "
                                                   "JSONL {id, question, answer}")
    p.add_argument("--answers", default=None, help="ground-truth answers (CSV or JSONL with id and answer) for a "
                                                  "dataset without them, e.g. FinDER")
    p.add_argument("--groups", type=_positive, default=5, help="number of groups G (default 5, as in the paper)")
    p.add_argument("--per-group", type=_positive, default=300,
                   help="queries per group N (default 300; if G x N exceeds the data, all queries are used, "
                        "split evenly)")
    p.add_argument("--seed", type=int, default=2024, help="sampling seed (default 2024)")
    p.add_argument("--stratify", default="auto",
                   help="field to stratify by: auto (question_type, template, category or company), none, or a "
                        "meta field name")
    p.add_argument("--limit", type=_positive, default=None, help="use only the first N rows of the dataset (smoke runs)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="finrag eval", description="Evaluation harness: the paper's protocol.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("run", help="answer every query with every system, judge, and write the report (resumable)")
    s.add_argument("--systems", type=_systems, default=_systems("all"),
                   help=f"comma-separated systems or 'all' (default: all: {','.join(_systems('all'))})")
    _sampling_args(s)
    s.add_argument("--index", metavar="DIR", default=None, help=f"index directory (default: {INDEX_DIR_RULE})")
    s.add_argument("--out", required=True, metavar="DIR", help="run directory (rerun with the same DIR to resume)")
    s.add_argument("--judge", default="offline",
                   help="offline (default), auto (openai/gpt-4.1 when OPENAI_API_KEY is set), or provider/model, "
                        "e.g. openai/gpt-4.1 (the paper's judge)")
    s.add_argument("--judge2", default=None, help="second judge for cross-evaluator agreement, e.g. openai/<model>")
    s.add_argument("--judge-base-url", default=None, help="OpenAI-compatible base URL for the judges")
    s.add_argument("--concurrency", type=_positive, default=2, help="queries (and judgements) in flight (default 2)")
    s.add_argument("--configurable", action="append", default=[], metavar="KEY=VALUE",
                   help="passed to run_query, e.g. llm=openai/gpt-4.1 (repeat for several)")
    s.add_argument("--no-retry-errors", action="store_true",
                   help="on a rerun, keep answers that failed instead of trying them again")
    s.add_argument("--regroup", action="store_true", help="replace groups.json if the sampling changed")
    s.add_argument("--no-report", action="store_true", help="answer and judge only")
    s.add_argument("--no-plots", action="store_true")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress bars")

    s = sub.add_parser("report", help="rebuild the report of a run directory from its files")
    s.add_argument("--out", required=True, metavar="DIR")
    s.add_argument("--index", metavar="DIR", default=None, help="index (for index-time cost; default: the run's)")
    s.add_argument("--reference", default="hdrr", help="system the paired differences are taken against")
    s.add_argument("--no-plots", action="store_true")

    s = sub.add_parser("groups", help="show how a dataset is split into groups (nothing is run)")
    _sampling_args(s)

    sub.add_parser("calibrate", help="calibrate the offline judge on FinanceBench human labels "
                                     "(finrag.eval.calibrate; see `finrag eval calibrate -h`)", add_help=False)
    return p


def _check_index(index_dir: Optional[str]) -> None:
    open_store(index_dir).close()  # raises IndexMissing with a clear message (a directory or a milvus: index)


def cmd_run(args) -> int:
    _check_index(args.index)
    cfg = EvalConfig(out=args.out, dataset=args.dataset, systems=args.systems, answers=args.answers,
                     index_dir=args.index, groups=args.groups, per_group=args.per_group, seed=args.seed,
                     stratify=args.stratify, limit=args.limit, judge=args.judge, judge2=args.judge2,
                     judge_base_url=args.judge_base_url, concurrency=args.concurrency,
                     configurable=parse_configurable(args.configurable), retry_errors=not args.no_retry_errors,
                     progress=not args.quiet, report=not args.no_report, plots=not args.no_plots, regroup=args.regroup)
    command = "finrag eval " + " ".join(shlex.quote(a) for a in args._argv)
    res = run_eval(cfg, command=command)
    a = res["answers"]
    print(f"done: {a['total']} answers in {args.out} ({a['answered']} new, {a['skipped']} reused, "
          f"{a['errors']} new with errors)")
    return EXIT_OK


def cmd_report(args) -> int:
    paths = write_report(args.out, index_dir=args.index, plots=not args.no_plots, reference=args.reference)
    print(f"wrote {paths['report_md']}")
    return EXIT_OK


def cmd_groups(args) -> int:
    qs = load_dataset(args.dataset, args.answers)
    if args.limit:
        qs = qs[: args.limit]
    split = stratified_groups(qs, args.groups, args.per_group, args.seed, args.stratify)
    print(split["note"])
    by = {q["id"]: q for q in qs}
    key = split["stratify"]
    for g, ids in enumerate(split["groups"], 1):
        mix = Counter(str((by[i].get("meta") or {}).get(key, "")) for i in ids) if key else {}
        print(f"group {g}: {len(ids)} queries" + (": " + ", ".join(f"{k} {v}" for k, v in sorted(mix.items())) if mix else ""))
    return EXIT_OK


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # process-level writes that configure third-party libraries, not finrag settings: huggingface_hub never
    # asks the hub for the bundled weights, and tokenizers does not warn about threads after a fork
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if argv and argv[0] == "calibrate":
        if not hasattr(calibrate, "main"):
            _err("finrag.eval.calibrate has no command line")
            return EXIT_USAGE
        try:
            return int(calibrate.main(argv[1:]) or 0)
        except SystemExit as exc:  # argparse inside calibrate
            return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_USAGE
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # -h or a usage error: return the code instead of exiting
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    args._argv = argv
    if not args.command:
        parser.print_help()
        return EXIT_USAGE

    try:
        return {"run": cmd_run, "report": cmd_report, "groups": cmd_groups}[args.command](args)
    except IndexError_ as exc:
        _err(str(exc))
        return EXIT_USAGE
    except (ValueError, FileNotFoundError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted; rerun the same command to resume (finished answers are kept)")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
