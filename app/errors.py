"""The one-line messages the command lines print on stderr: `finrag: error: ...`, `finrag: warning: ...`.

Every user error of a command ends in one such line (and an exit code, chosen by the caller). `prog`
names the command when it is not `finrag` (`finrag eval`).
"""
from __future__ import annotations

import sys

__all__ = ["print_error", "print_warning"]


def print_error(msg: str, prog: str = "finrag") -> None:
    """Print `<prog>: error: <msg>` on stderr."""
    print(f"{prog}: error: {msg}", file=sys.stderr)


def print_warning(msg: str, prog: str = "finrag") -> None:
    """Print `<prog>: warning: <msg>` on stderr."""
    print(f"{prog}: warning: {msg}", file=sys.stderr)
