"""What every `finrag` subcommand shares (app/cli/): exit codes, the one-line error, the index location.

Every error a user can cause ends in one line on stderr (`finrag: error: ...`) and one of the exit codes
in `EXIT_CODES` (also printed by `finrag --help` and listed in the README), never in a traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from finrag.errors import print_error, print_warning
from finrag.state.configuration import INDEX_DIR_RULE, resolve_index_dir
from finrag.state.settings import ProcessSettings
from finrag.state.systems import DEFAULT_SYSTEM, SYSTEMS
from finrag.tools.indexing.backend import is_milvus

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LLM, EXIT_LOCKED, EXIT_INDEX, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 5, 130
EXIT_CODES = {
    EXIT_OK: "done",
    EXIT_FAILED: "done, but some inputs failed (bad files, folders that cannot be listed, rejected questions); "
                 "each is reported on stderr",
    EXIT_USAGE: "usage or input error (bad arguments, no index, a question or batch file that cannot be used, "
                "an --out file that cannot be written, an LLM that cannot be configured)",
    EXIT_LLM: "the requested LLM failed (unreachable, HTTP error, unparseable reply) and --on-llm-error is fail",
    EXIT_LOCKED: "the index is locked by another `finrag index`, or batch --out by another `finrag batch` (its PID is named)",
    EXIT_INDEX: "the index is damaged or cannot be written (corrupt or empty database, read-only file system, "
                "disk full; also a disk that fills up while `batch` writes --out); `finrag index --check` "
                "verifies one",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); finished work is kept, run the same command again to resume",
}


def _err(msg: str) -> None:
    print_error(msg)


def _warn(msg: str) -> None:
    print_warning(msg)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class UsageError(ValueError):
    """A command-line mistake found before any work starts (exit code 2)."""


def _index_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", metavar="DIR", default=None,
                   help=f"index directory (default: {INDEX_DIR_RULE})")


def _index_dir(args) -> Path | str:
    """The index directory the command uses (`--index`, else $FINRAG_HOME, else ./.finrag), checked; a Milvus
    location (`milvus:...`, issue 10) is returned as the string it was given."""
    where = getattr(args, "index", None) or ProcessSettings().home
    if is_milvus(where):  # a Milvus index (issue 10)
        return where
    path = resolve_index_dir(getattr(args, "index", None))
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} is a file, not an index directory (--index DIR, $FINRAG_HOME)")
    return path


def _progress(args) -> bool:
    """Progress bars only on a terminal: in a log they would be control codes, not lines."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def _configurable(args) -> dict:
    """The run's configuration values given as flags (the rest comes from FINRAG_* and the defaults)."""
    conf = {}
    if getattr(args, "index", None):
        conf["index_dir"] = args.index
    for name in ("llm", "llm_base_url", "reranker", "embedder", "alias_file", "on_llm_error"):
        v = getattr(args, name, None)
        if v:
            conf[name] = v
    if getattr(args, "llm_timeout_s", None) is not None:  # 0 too: building an LLM refuses it, in one line
        conf["llm_timeout_s"] = args.llm_timeout_s
    return conf


def _quiet_libraries() -> None:
    # process-level writes for third-party libraries (not settings): no model hub, no tokenizer fork warnings
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if ProcessSettings().pdf_layout.lower() not in ("1", "true"):
        # `import pymupdf` imports pymupdf_layout when it is installed, which loads an ONNX layout model
        # (~2 s), and pymupdf4llm (~0.2 s: tabulate, ONNX Runtime); finrag reads page text and word boxes
        # only, which use neither (PyMuPDF treats both as optional)
        sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
        sys.modules.setdefault("pymupdf4llm", None)  # type: ignore[arg-type]
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    for name in ("sentence_transformers", "transformers", "httpx", "faiss"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _query_args(s: argparse.ArgumentParser) -> None:
    """The options `ask` and `batch` share: which system answers, from which index, with which models."""
    s.add_argument("--system", default=DEFAULT_SYSTEM, choices=SYSTEMS)
    _index_arg(s)
    s.add_argument("--llm", default=None, help="offline (default without OPENAI_API_KEY) or openai/<model>")
    s.add_argument("--llm-base-url", default=None, help="OpenAI-compatible server URL (vLLM, Ollama, ...)")
    s.add_argument("--on-llm-error", default=None, choices=["fail", "offline"],
                   help="when an LLM call fails: fail (default: one-line error, exit 3) or offline (answer with "
                        "the offline strategy; the answer is marked offline_fallback and stderr says so)")
    s.add_argument("--llm-timeout", dest="llm_timeout_s", type=float, default=None, metavar="SECONDS",
                   help="seconds one attempt of an LLM call may wait (default 60, FINRAG_LLM_TIMEOUT_S); "
                        "retries after it: FINRAG_LLM_MAX_RETRIES (default 2)")
    s.add_argument("--reranker", default=None, help="offline (default), cross-encoder:<path>, jina")
    s.add_argument("--alias-file", default=None)
    s.add_argument("--embedder", default=None)
