"""The `finrag` command line (app/cli/): index, info, ask, chat, batch, demo, serve, fetch, copy, eval.

One module per subcommand, each with its `add_parser(subparsers)` and its `run(args)`: `index.py` (also
`--check`), `info.py`, `ask.py`, `chat.py` (a conversation on a LangGraph thread), `batch.py`, `demo.py`, `serve.py`, `eval.py` (the harness has its own
parser); `finrag fetch` and `finrag copy` live in app/fetch.py and app/index_copy.py. `common.py` holds
what they share: the exit codes, the one-line error, the index location, progress bars.

Every error a user can cause ends in one line on stderr (`finrag: error: ...`) and one of the exit codes
in `EXIT_CODES` (also printed by `finrag --help` and listed in the README), never in a traceback.
"""
from __future__ import annotations

import argparse
import errno
import sqlite3
import sys

from finrag.cli import ask, batch, chat, demo, index, info, serve
from finrag.cli import eval as eval_command
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
from finrag.tools.documents.file_checks import DISK_FULL_ERRNOS

# what other modules import from `finrag.cli` (app/fetch.py: the exit codes, `_err`, `_progress`)
__all__ = ["EXIT_CODES", "EXIT_FAILED", "EXIT_INDEX", "EXIT_INTERRUPTED", "EXIT_LLM", "EXIT_LOCKED", "EXIT_OK",
           "EXIT_USAGE", "UsageError", "_configurable", "_err", "_index_dir", "_progress", "_warn", "build_parser",
           "main"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="finrag", description="Question answering over SEC filings (offline by default).",
                                epilog="exit codes: " + "; ".join(f"{k} {v.split(' (')[0]}" for k, v in EXIT_CODES.items()))
    from finrag import __version__

    p.add_argument("--version", action="version", version=f"finrag {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for command in (index, info, ask, chat, batch, demo, serve):
        command.add_parser(sub)

    from finrag.fetch import add_parser as add_fetch_parser  # `finrag fetch` lives in app/fetch.py

    add_fetch_parser(sub)

    from finrag.index_copy import add_parser as add_copy_parser  # `finrag copy` lives in app/index_copy.py

    add_copy_parser(sub)
    eval_command.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    _quiet_libraries()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["eval"]:  # its own parser, `-h` included
        return eval_command.forward(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """The subcommand, its user errors turned into one line on stderr and an exit code (`EXIT_CODES`)."""
    from finrag.threads import ThreadStoreDamaged
    from finrag.tools.indexing.locking import IndexLocked
    from finrag.tools.indexing.store import IndexCorrupt, IndexError_, IndexUnwritable
    from finrag.tools.llm.calls import LLMError

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
