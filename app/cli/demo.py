"""`finrag demo` (app/cli/demo.py): generate filing-like PDFs, index them, answer questions (offline; app/demo.py)."""
from __future__ import annotations

import argparse
from pathlib import Path

from finrag.cli.common import UsageError, _progress
from finrag.demo import run_demo
from finrag.graphs import SYSTEMS


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--dir", default=".finrag-demo", help="where to write the corpus and index (default .finrag-demo)")
    s.add_argument("--index", metavar="DIR", default=None,
                   help="index directory (default: DIR/index, i.e. the index folder inside --dir)")
    s.add_argument("--systems", nargs="+", default=["cbr", "hdrr", "agentic"], choices=SYSTEMS)
    s.add_argument("--questions", type=int, default=6)
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=run)


def run(args) -> int:
    home = Path(args.dir)
    index_dir = Path(args.index) if args.index else home / "index"
    if index_dir.exists() and not index_dir.is_dir():
        raise UsageError(f"{index_dir} is a file, not an index directory")
    return run_demo(home, index_dir, list(args.systems), args.questions, _progress(args))
