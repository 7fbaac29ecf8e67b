"""The `finrag` command line (app/cli/): index, info, ask, chat, batch, demo, serve, fetch, copy, eval.

One module per subcommand, each with its `add_arguments(parser)` and its `run(args)`: `index.py` (also
`--check`), `info.py`, `ask.py`, `chat.py` (a conversation on a LangGraph thread), `batch.py`, `demo.py`, `serve.py`, `eval.py` (the harness has its own
parser); `finrag fetch` and `finrag copy` live in app/fetch.py and app/index_copy.py. `common.py` holds
what they share: the exit codes, the one-line error, the index location, progress bars.

`COMMANDS` maps each subcommand to its module and its line in `finrag --help`; the module is imported only when
its subcommand runs (`load_command`, the CLI's one lazy import), so `finrag --help` and `finrag ask` do not pay
for the server, the evaluation harness, PDF parsing or EDGAR (about 8 s of imports on this machine).

Every error a user can cause ends in one line on stderr (`finrag: error: ...`) and one of the exit codes
in `EXIT_CODES` (also printed by `finrag --help` and listed in the README), never in a traceback.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import sqlite3
import sys
from types import ModuleType
from typing import Iterable, Optional

from finrag import __version__
from finrag.cli.common import (
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_INDEX,
    EXIT_INTERRUPTED,
    EXIT_LLM,
    EXIT_LOCKED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    _configurable,
    _err,
    _index_dir,
    _one_line,
    _progress,
    _quiet_libraries,
    _warn,
)
from finrag.state.configuration import resolve_index_dir
from finrag.thread_errors import ThreadStoreDamaged
from finrag.tools.documents.file_checks import DISK_FULL_ERRNOS
from finrag.tools.indexing.locking import IndexLocked
from finrag.tools.indexing.store_schema import IndexCorrupt, IndexError_, IndexUnwritable
from finrag.tools.llm.calls import LLMError

# what other modules import from `finrag.cli` (app/fetch.py: the exit codes, `_err`, `_progress`)
__all__ = ["EXIT_CODES", "EXIT_FAILED", "EXIT_INDEX", "EXIT_INTERRUPTED", "EXIT_LLM", "EXIT_LOCKED", "EXIT_OK",
           "EXIT_USAGE", "COMMANDS", "UsageError", "_configurable", "_err", "_index_dir", "_progress", "_warn",
           "build_parser", "load_command", "main"]

COMMANDS: dict[str, tuple[str, str]] = {
    "index": ("finrag.cli.index", "index PDF/.txt/.htm filings (incremental)"),
    "info": ("finrag.cli.info", "what is in an index"),
    "ask": ("finrag.cli.ask", "answer one question"),
    "chat": ("finrag.cli.chat", "a conversation: follow-up questions answered on a LangGraph thread"),
    "batch": ("finrag.cli.batch", "answer a JSONL file"),
    "demo": ("finrag.cli.demo", "generate filing-like PDFs, index them, answer questions (offline)"),
    "serve": ("finrag.cli.serve", "serve the six graphs over HTTP (LangServe)"),
    "fetch": ("finrag.fetch", "download 10-K/10-Q/8-K/earnings filings from SEC EDGAR (resumable)"),
    "copy": ("finrag.index_copy", "copy an index between backends (directory <-> milvus:...), no re-embedding"),
    "eval": ("finrag.cli.eval", "evaluation harness (see `finrag eval -h`)"),
}
"""Each subcommand: the module with its `add_arguments(parser)` and `run` (set as the parser's `func`), and its
line in `finrag --help`."""


def load_command(name: str) -> ModuleType:
    """A subcommand's module, imported when that subcommand runs: the CLI's one lazy import (importing all ten
    costs about 8 s, the server's, the harness's, PyMuPDF's and EDGAR's imports; `finrag --help` needs none)."""
    return importlib.import_module(COMMANDS[name][0])


def build_parser(load: Optional[Iterable[str]] = None) -> argparse.ArgumentParser:
    """`finrag`'s parser: every subcommand listed; the arguments of those in `load` (None: all of them)."""
    p = argparse.ArgumentParser(prog="finrag", description="Question answering over SEC filings (offline by default).",
                                epilog="exit codes: " + "; ".join(f"{k} {v.split(' (')[0]}" for k, v in EXIT_CODES.items()))
    p.add_argument("--version", action="version", version=f"finrag {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    loaded = set(COMMANDS if load is None else load)
    for name, (_module, line) in COMMANDS.items():
        s = sub.add_parser(name, help=line, add_help=name != "eval")  # eval: the harness's own -h
        if name in loaded:
            load_command(name).add_arguments(s)
    return p


def main(argv: list[str] | None = None) -> int:
    _quiet_libraries()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["eval"]:  # its own parser, `-h` included
        return load_command("eval").forward(argv[1:])
    parser = build_parser(load=[a for a in argv[:1] if a in COMMANDS])
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """The subcommand, its user errors turned into one line on stderr and an exit code (`EXIT_CODES`)."""
    try:
        return int(args.func(args) or 0)
    except ThreadStoreDamaged as exc:  # a conversation store SQLite cannot read: reported, never reset
        _err(str(exc))
        return EXIT_INDEX
    except IndexLocked as exc:
        _err(str(exc))
        return EXIT_LOCKED
    except (IndexCorrupt, IndexUnwritable) as exc:
        _err(str(exc))
        return EXIT_INDEX
    except IndexError_ as exc:
        _err(str(exc))
        return EXIT_USAGE
    except LLMError as exc:
        _err(str(exc))
        return EXIT_LLM
    except KeyboardInterrupt:
        _err("interrupted; finished work is kept: run the same command again to resume")
        return EXIT_INTERRUPTED
    except sqlite3.DatabaseError as exc:
        db = resolve_index_dir(getattr(args, "index", None)) / "finrag.sqlite"
        if "full" in str(exc):
            _err(f"disk full while writing {db} ({exc}); every document committed before is in the index: free "
                 "space and run the same command again to resume")
        else:
            _err(f"index database {db} cannot be used ({exc}); `finrag index --check --index {db.parent}` tells more")
        return EXIT_INDEX
    except OSError as exc:
        if exc.errno in DISK_FULL_ERRNOS:
            _err(f"disk full: {_one_line(exc)}; every document committed before is in the index: free space and "
                 "run the same command again to resume")
            return EXIT_INDEX
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError,
                            FileExistsError)) or exc.errno == errno.EROFS:
            _err(_one_line(exc))
            return EXIT_USAGE
        raise
    except ValueError as exc:
        _err(_one_line(exc))
        return EXIT_USAGE
