"""`finrag batch --in Q.jsonl --out A.jsonl` (app/cli/batch.py): answer a JSONL file of questions, resumable.

`--out` is never emptied before a first answer exists (app/batchfile.py `AnswersOut`); a run that stops
early (an LLM failure, Ctrl-C, a full disk) says how many answers it wrote and how to go on. One run at a time
writes an `--out` (`out_lock`): a second one exits with code 4, naming the file.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from finrag import api
from finrag.api import QuestionError
from finrag.batchfile import AnswersOut, OutFileError, OutLocked, answered_ids, out_lock, read_questions, same_file
from finrag.cli.common import (
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
    _progress,
    _query_args,
    _warn,
)
from finrag.tools.llm.calls import LLMError


def add_arguments(s: argparse.ArgumentParser) -> None:
    _query_args(s)
    s.add_argument("--in", dest="inp", required=True, help='JSONL of {"id": ..., "question": ...}')
    s.add_argument("--out", required=True)
    s.add_argument("--resume", action="store_true", help="append, skipping ids already in --out")
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=run)


def _kept(answers, out: Path) -> str:
    """What a stopped batch left in --out, and how to go on."""
    if answers.written or not answers.untouched:
        return f"{answers.written} answer(s) written to {out}; rerun with --resume to continue"
    return f"no answer written ({out} is unchanged)" if out.exists() else f"no answer written ({out} not created)"


def run(args) -> int:
    """`finrag batch`: answer a JSONL file of questions; `--out` is never emptied before a first answer exists
    (app/batchfile.py `AnswersOut`), a run that stops early says how many answers it wrote, and a second run on
    the same `--out` while one is writing it exits with code 4."""
    src, out = Path(args.inp), Path(args.out)
    if not src.is_file():
        raise UsageError(f"no such input file: {src}")
    if same_file(src, out):
        raise UsageError(f"--out {out} is the input file; write the answers to another file")
    _index_dir(args)
    rows = read_questions(src)
    try:
        with out_lock(out):  # from before the answers already there are read until the last one is written
            return _answer(args, src, out, rows)
    except OutLocked as exc:
        _err(str(exc))
        return EXIT_LOCKED
    except OutFileError as exc:  # the lock file cannot be made
        _err(str(exc))
        return EXIT_INDEX if exc.disk_full else EXIT_USAGE


def _answer(args, src: Path, out: Path, rows: list[tuple[str, str, int]]) -> int:
    """Answer `rows` into `out` (its lock held): skip those already answered with `--resume`, and say how many
    answers were written, or how many were kept when the run stops early."""
    from tqdm import tqdm

    done: set[str] = set()
    if out.is_file() and args.resume:
        done, dropped = answered_ids(out)
        if dropped:
            _warn(f"{out}: dropped an incomplete last line ({dropped} bytes, an answer cut off when the previous "
                  "run stopped); its question is answered again")
    todo = [r for r in rows if r[0] not in done]
    failed = fell_back = 0
    try:
        answers = AnswersOut(out, resume=args.resume)
    except OutFileError as exc:
        _err(str(exc))
        return EXIT_INDEX if exc.disk_full else EXIT_USAGE
    line, complete = 0, False
    held: list[dict] = []  # rejected questions before the first answer: a rejection alone never replaces --out
    try:
        for qid, q, line in tqdm(todo, desc=f"{args.system}", unit="q", disable=not _progress(args)):
            try:
                res = api.run_query(q, system=args.system, index=args.index, qid=qid,
                                configurable=_configurable(args)).model_dump()
            except QuestionError as exc:
                failed += 1
                tqdm.write(f"failed  {src}:{line}: {exc} (id {qid!r})", file=sys.stderr)
                rejected = {"id": qid, "system": args.system, "question": q, "answer": "", "error": str(exc)}
                (held.append(rejected) if not answers.written else answers.write(rejected))
                continue
            fell_back += bool(res.get("offline_fallback"))
            for rejected in held:  # in input order, before the answer that follows them
                answers.write(rejected)
            held.clear()
            answers.write(res)
        for rejected in held:  # a file of rejected questions only: written once every line has been read
            answers.write(rejected)
        complete = True
    except LLMError as exc:
        answers.close()
        _err(f"{src}:{line}: {exc}; {_kept(answers, out)}")
        return EXIT_LLM
    except KeyboardInterrupt:
        answers.close()
        _err(f"interrupted{f' at {src}:{line}' if line else ''}; {_kept(answers, out)}")
        return EXIT_INTERRUPTED
    except OutFileError as exc:
        answers.close()
        if exc.disk_full:
            _err(f"{exc}; {_kept(answers, out)} once there is space")
            return EXIT_INDEX
        _err(f"{exc}; {_kept(answers, out)}")
        return EXIT_USAGE
    finally:
        answers.close(complete)  # any other stop (a damaged index, a bug): answers so far kept, or none written
    if fell_back:
        _warn(f"{fell_back} answer(s) used the offline strategy after an LLM call failed (--on-llm-error offline); "
              "they are marked offline_fallback")
    if not answers.written and answers.untouched and not args.resume:
        print(f"wrote 0 answer(s): no questions in {src}; {out} is unchanged")
    else:
        print(f"wrote {answers.written} answer(s) to {out}" + (f" ({failed} rejected)" if failed else ""))
    return EXIT_FAILED if failed else EXIT_OK

