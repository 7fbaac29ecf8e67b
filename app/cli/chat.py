"""`finrag chat` (app/cli/chat.py): a conversation over an index, one LangGraph thread per conversation.

    finrag chat --index .finrag [--system hdrr] [--thread NAME]
    printf 'What was Acme Widgets' revenue in FY2022?\nAnd in FY2023?\n' | finrag chat --index .finrag

Each line is a question (a follow-up such as "And in FY2023?" is answered as the standalone question it stands
for, shown as "Answering: ..."); each answer is printed with its citations and route, then a blank line. On a
terminal the prompt has line editing and history (`readline`); piped, every input line gives one answer block
and nothing else is printed. Commands: `/new` (a new conversation), `/system NAME` (answer the next turns
with another system, same thread), `/thread` (the thread's id), `/help`, `/quit`.
"""
from __future__ import annotations

import argparse
import sys
import uuid
from typing import Any, TextIO

from finrag.api import QuestionError, run_query
from finrag.cli.common import EXIT_FAILED, EXIT_OK, _configurable, _err, _index_dir, _query_args
from finrag.graphs import SYSTEMS
from finrag.threads import check_thread_id
from finrag.tools.conversation.turns import citations_of
from finrag.tools.documents.doc_ids import printable

HELP = ("commands: /new (new conversation), /system NAME (one of " + ", ".join(SYSTEMS) + "), /thread, /help, "
        "/quit")
"""The one-line help of the chat commands."""


def add_arguments(s: argparse.ArgumentParser) -> None:
    """`finrag chat`'s options: those of `ask`, and `--thread`."""
    _query_args(s)
    s.add_argument("--thread", default=None, metavar="NAME",
                   help="the conversation's thread (continued if it exists; default: a new one)")
    s.add_argument("--threads-dir", default=None, metavar="DIR",
                   help="folder of the thread stores (default: threads.sqlite in the index; FINRAG_THREADS_DIR)")
    s.set_defaults(func=run)


def new_thread_id() -> str:
    """A fresh thread id for a new conversation."""
    return f"chat-{uuid.uuid4().hex[:10]}"


def answer_block(res: Any) -> str:
    """One answer as `finrag chat` prints it: the answer, its citations, its route."""
    r = res.routing
    pages = citations_of(res.answer)  # the answer's citations as it shows them: pages as a viewer counts them
    lines = [res.answer.rstrip(),
             f"citations: {printable('; '.join(c['shown'] for c in pages)) or '-'}",
             f"route: {r.status} {printable(', '.join(r.routed_docs)) or '-'}  ({res.system}, turn "
             f"{res.conversation.turn if res.conversation else 1})"]
    for cand in ((r.extracted or {}).get("fallback") or {}).get("candidates") or []:  # no filing chosen (issue 48)
        lines.append(f"did you mean: {printable(str(cand.get('question') or ''))}")
    return "\n".join(lines)


def _line_editing() -> None:
    """Line editing and history for `input()` on a terminal (`readline`; its absence is not an error)."""
    try:
        import readline  # noqa: F401  (importing it is what gives input() editing and history)
    except ImportError:
        pass


def _read(interactive: bool, stdin: TextIO) -> str | None:
    """The next input line, None at the end of input."""
    if interactive:
        try:
            return input("finrag> ")
        except EOFError:
            print()
            return None
    line = stdin.readline()
    return None if line == "" else line


class Chat:
    """One `finrag chat` session: the thread, the system and the run's settings."""

    def __init__(self, args: Any, interactive: bool) -> None:
        """The session of the parsed arguments."""
        self.args, self.interactive = args, interactive
        self.configurable = _configurable(args)
        if getattr(args, "threads_dir", None):
            self.configurable["threads_dir"] = str(args.threads_dir)
        self.system = args.system
        self.thread = args.thread or new_thread_id()
        self.failed = 0

    def say(self, text: str) -> None:
        """A session message (on a terminal only: piped output holds answer blocks only)."""
        if self.interactive:
            print(text, flush=True)

    def command(self, line: str) -> bool:
        """Run a `/` command; False for `/quit`."""
        name, _, rest = line[1:].partition(" ")
        name, rest = name.lower(), rest.strip()
        if name in ("quit", "exit", "q"):
            return False
        if name == "new":
            self.thread = new_thread_id()
            self.say(f"new conversation (thread {self.thread})")
        elif name == "system":
            if rest not in SYSTEMS:
                _err(f"unknown system {rest!r}; choose one of: {', '.join(SYSTEMS)}")
                self.failed += 1
            else:
                self.system = rest
                self.say(f"system {rest} (same conversation, thread {self.thread})")
        elif name == "thread":
            print(self.thread, flush=True)
        elif name == "help":
            print(HELP, flush=True)
        else:
            _err(f"unknown command /{name}; {HELP}")
            self.failed += 1
        return True

    def ask(self, question: str) -> None:
        """Answer one turn and print its block (a bad question: one line on stderr, the session goes on)."""
        try:
            res = run_query(question, system=self.system, index=self.args.index, configurable=self.configurable,
                            thread_id=self.thread)
        except QuestionError as exc:
            _err(str(exc))
            self.failed += 1
            return
        print(answer_block(res), flush=True)
        print(flush=True)

    def loop(self, stdin: TextIO) -> int:
        """Read and answer lines until the end of input or `/quit`."""
        self.say(f"finrag chat: {self.system} on thread {self.thread}; {HELP}")
        while True:
            line = _read(self.interactive, stdin)
            if line is None:
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                if not self.command(line):
                    break
                continue
            self.ask(line)
        return EXIT_FAILED if self.failed else EXIT_OK


def run(args) -> int:
    """`finrag chat`: 0 when every line was answered, 1 when some were refused (a bad question or command)."""
    _index_dir(args)
    if args.thread is not None:
        args.thread = check_thread_id(args.thread)
    interactive = sys.stdin.isatty()
    if interactive:
        _line_editing()
    return Chat(args, interactive).loop(sys.stdin)
