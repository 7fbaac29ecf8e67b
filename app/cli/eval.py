"""`finrag eval ...` (app/cli/eval.py): the evaluation harness, which has its own parser (`finrag.eval.cli`).

`finrag.cli.main` hands everything after `eval` to `forward` before its own parser runs (so `finrag eval -h`
is the harness's help); the subparser here only lists `eval` in `finrag --help`.
"""
from __future__ import annotations

import argparse


def forward(argv: list[str]) -> int:
    """Run `finrag eval ARGV`: the one place the harness is called from."""
    from finrag.eval.cli import main as eval_main

    return eval_main(argv)


def add_parser(sub) -> None:
    s = sub.add_parser("eval", help="evaluation harness (see `finrag eval -h`)", add_help=False)
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=run)


def run(args) -> int:
    return forward(args.rest)
