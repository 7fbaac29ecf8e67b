"""`finrag eval ...` (app/cli/eval.py): the evaluation harness, which has its own parser (`finrag.eval.cli`).

`finrag.cli.main` hands everything after `eval` to `forward` before its own parser runs (so `finrag eval -h`
is the harness's help); the subparser here only lists `eval` in `finrag --help`.

One endpoint unless told otherwise (issue 38): `finrag eval run` with a base URL for the systems
(`--configurable llm_base_url=URL`, or FINRAG_LLM_BASE_URL) and none for the judges (`--judge-base-url`) sends
the judges to the same server, and when roles go to different hosts, stderr says where each goes, once, before
the run starts (`finrag: LLM endpoints: router, ... -> URL (model); judge -> URL (model)`).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys

from finrag.eval.cli import build_parser
from finrag.eval.cli import main as eval_main
from finrag.eval.runner import parse_configurable
from finrag.state.configuration import Configuration
from finrag.state.settings import ProcessSettings
from finrag.tools.llm.chat import QUERY_ROLES, endpoint_line, endpoint_of


def _judge_endpoint(spec: str | None, role: str, base_url: str | None):
    """(base URL, model) of a `--judge` / `--judge2` spec, None for an offline (or no) judge."""
    name = str(spec or "").strip()
    if name.lower() == "auto":
        name = "openai/gpt-4.1" if ProcessSettings().openai_api_key else "offline"
    if not name or name.lower() in ("offline", "none"):
        return None
    return endpoint_of(role, Configuration(llm=name, llm_base_url=base_url or "").with_models(**{role: name}))


def with_endpoints(argv: list[str]) -> list[str]:
    """`finrag eval run` arguments with the systems' base URL given to the judges when they have none, and the
    endpoint line printed when roles go to different hosts; other commands (or arguments the harness will
    refuse) unchanged."""
    if not argv or argv[0] != "run":
        return argv
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # a usage error is the harness's to print
            args, _rest = build_parser().parse_known_args(argv)
        values = parse_configurable(args.configurable)
        cfg = Configuration(**{k: v for k, v in values.items() if k in Configuration.model_fields})
    except (Exception, SystemExit):  # the harness reports it, in its own words
        return argv
    out = list(argv)
    judge_url = args.judge_base_url
    if not judge_url and cfg.llm_base_url:
        judge_url = cfg.llm_base_url
        out += ["--judge-base-url", judge_url]
    endpoints = {role: endpoint_of(role, cfg) for role in QUERY_ROLES}
    endpoints["judge"] = _judge_endpoint(args.judge, "judge", judge_url)
    endpoints["judge2"] = _judge_endpoint(args.judge2, "judge2", judge_url)
    line = endpoint_line(endpoints)
    if line:
        print(f"finrag: LLM endpoints: {line}", file=sys.stderr, flush=True)
    return out


def forward(argv: list[str]) -> int:
    """Run `finrag eval ARGV`: the one place the harness is called from."""
    return eval_main(with_endpoints(list(argv)))


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=run)


def run(args) -> int:
    return forward(args.rest)
