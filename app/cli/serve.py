"""`finrag serve` (app/cli/serve.py): serve the six graphs over HTTP (LangServe; app/server.py, docs/serving.md)."""
from __future__ import annotations

import argparse

from finrag import serve_process
from finrag.cli.common import _index_arg
from finrag.state.settings import ServeSettings


class _PortAction(argparse.Action):
    """`--port`: a TCP port, 1-65535 (the socket layer would take 99999 modulo 65536 and listen elsewhere)."""

    def __call__(self, parser, namespace, value, option_string=None):
        if not 1 <= value <= 65535:
            parser.error(f"{option_string} must be 1-65535, not {value}")
        setattr(namespace, self.dest, value)


class _WorkersAction(argparse.Action):
    """`--workers`: 1-64 processes."""

    def __call__(self, parser, namespace, value, option_string=None):
        if not 1 <= value <= 64:
            parser.error(f"{option_string} must be 1-64, not {value}")
        setattr(namespace, self.dest, value)


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000, action=_PortAction, help="TCP port, 1-65535 (default 8000)")
    s.add_argument("--api-key", default=None, help="require this X-API-Key header (default: $FINRAG_API_KEY)")
    s.add_argument("--max-batch", type=int, default=None,
                   help="most inputs per /batch request (default 32, or $FINRAG_SERVE_MAX_BATCH)")
    s.add_argument("--workers", type=int, default=None, action=_WorkersAction,
                   help="worker processes, each answering on its own core (default: one per core, at most 4, "
                        "or $FINRAG_SERVE_WORKERS)")
    s.add_argument("--llm", default=None,
                   help="the requests' default model: offline or openai/<model> (default $FINRAG_LLM; offline "
                        "without OPENAI_API_KEY)")
    s.add_argument("--llm-base-url", default=None,
                   help="OpenAI-compatible server URL for --llm (vLLM, Ollama, ...; default $FINRAG_LLM_BASE_URL)")
    _index_arg(s)
    s.set_defaults(func=run)


def run(args) -> int:
    # --llm / --llm-base-url: values of every request's Configuration (in every worker), above FINRAG_LLM /
    # FINRAG_LLM_BASE_URL; handed to the server as arguments, never through the environment
    configurable = {name: getattr(args, name) for name in ("llm", "llm_base_url") if getattr(args, name, None)}
    # $FINRAG_API_KEY read here, not when the parser is built: a malformed FINRAG_SERVE_* variable is then this
    # command's one-line error, not a traceback of every other command
    api_key = args.api_key if args.api_key is not None else ServeSettings().api_key or None
    return serve_process.serve(host=args.host, port=args.port, index_dir=args.index, api_key=api_key, max_batch=args.max_batch,
                 workers=args.workers, configurable=configurable)
