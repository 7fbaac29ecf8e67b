"""The `finrag` command line: index, info, ask, batch, demo, serve, fetch, eval.

Every error a user can cause ends in one line on stderr (`finrag: error: ...`) and one of the exit codes
in `EXIT_CODES` (also printed by `finrag --help` and listed in the README), never in a traceback.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import sqlite3
import sys
from pathlib import Path

from finrag.graphs import SYSTEMS
from finrag.state.configuration import INDEX_DIR_RULE, resolve_index_dir
from finrag.tools.indexing.chunking import CHUNK_OVERLAP, CHUNK_SIZE
from finrag.tools.indexing.file_checks import DISK_FULL_ERRNOS

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LLM, EXIT_LOCKED, EXIT_INDEX, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 5, 130
EXIT_CODES = {
    EXIT_OK: "done",
    EXIT_FAILED: "done, but some inputs failed (bad files, folders that cannot be listed, rejected questions); "
                 "each is reported on stderr",
    EXIT_USAGE: "usage or input error (bad arguments, no index, a question or batch file that cannot be used, "
                "an --out file that cannot be written, an LLM that cannot be configured)",
    EXIT_LLM: "the requested LLM failed (unreachable, HTTP error, unparseable reply) and --on-llm-error is fail",
    EXIT_LOCKED: "the index is locked by another `finrag index` (its PID is named)",
    EXIT_INDEX: "the index is damaged or cannot be written (corrupt or empty database, read-only file system, "
                "disk full; also a disk that fills up while `batch` writes --out); `finrag index --check` "
                "verifies one",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); finished work is kept, run the same command again to resume",
}


def _err(msg: str) -> None:
    print(f"finrag: error: {msg}", file=sys.stderr)


def _warn(msg: str) -> None:
    print(f"finrag: warning: {msg}", file=sys.stderr)


class UsageError(ValueError):
    """A command-line mistake found before any work starts (exit code 2)."""


def _index_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", metavar="DIR", default=None,
                   help=f"index directory (default: {INDEX_DIR_RULE})")


def _index_dir(args) -> Path:
    """The index directory the command uses (`--index`, else $FINRAG_HOME, else ./.finrag), checked."""
    from finrag.tools.indexing.backend import is_milvus

    if is_milvus(getattr(args, "index", None) or os.environ.get("FINRAG_HOME")):  # a Milvus index (issue 10)
        return getattr(args, "index", None) or os.environ["FINRAG_HOME"]
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
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if os.environ.get("FINRAG_PDF_LAYOUT", "").lower() not in ("1", "true"):
        # `import pymupdf` imports pymupdf_layout when it is installed, which loads an ONNX layout model
        # (~2 s), and pymupdf4llm (~0.2 s: tabulate, ONNX Runtime); finrag reads page text and word boxes
        # only, which use neither (PyMuPDF treats both as optional)
        sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[assignment]
        sys.modules.setdefault("pymupdf4llm", None)  # type: ignore[assignment]
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    for name in ("sentence_transformers", "transformers", "httpx", "faiss"):
        logging.getLogger(name).setLevel(logging.ERROR)


# ------------------------------------------------------------------- index
def cmd_index(args) -> int:
    from finrag.tools.indexing.locking import writer_lock

    index_dir = _index_dir(args)
    if isinstance(index_dir, str):  # milvus: index through a local staging index, then copy (app/index_copy.py)
        from finrag.index_copy import index_into_milvus

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
        from finrag.tools.indexing.embedders import select_device

        select_device(args.device)  # a clear error now rather than after the parse pass
    with writer_lock(index_dir):
        return _index_locked(index_dir, args)


def _cmd_check(index_dir: Path, args) -> int:
    from finrag.tools.indexing.check import check_index

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
    from finrag.tools.indexing.embedders import get_embedder, resolve_spec
    from finrag.tools.indexing.indexer import build_variant, count_files, index_paths, remove_documents
    from finrag.tools.indexing.parsing import printable
    from finrag.tools.indexing.store import Store

    store = Store(index_dir, create=True)
    try:
        recorded = store.get_meta("embedder")  # auto: the index's embedder, else chosen by the corpus's size
        spec = resolve_spec(args.embedder, recorded, count_files(args.paths or []) if recorded is None else None,
                            note=lambda msg: print(msg, file=sys.stderr))
        store.check_embedder(get_embedder(spec, device=args.device))
        if args.vector_index:
            store.set_meta("vector_index", args.vector_index)
        if args.remove:
            rep = remove_documents(store, args.remove)
            for d in rep.removed:
                print(f"removed {printable(d)}")
            for name, why in rep.failed:
                print(printable(f"failed  {name}: {why}"), file=sys.stderr)
            return EXIT_FAILED if rep.failed else EXIT_OK
        for variant in args.drop_variant or []:
            store.delete_prefixes(variant)
            for key in ("source", "llm_calls", "prompt_tokens", "completion_tokens"):
                store.set_meta(f"variant_{variant}_{key}", "0" if key != "source" else "")
            print(f"dropped variant {variant}")
        rep = None
        if args.paths:
            rep = index_paths(args.paths, store, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
                              workers=args.workers, progress=_progress(args), alias_file=args.alias_file,
                              embed=not args.no_embed)
            for name, why in rep.skipped:
                print(printable(f"skipped {name}: {why}"), file=sys.stderr)
            for name, why in rep.failed:
                print(printable(f"failed  {name}: {why}"), file=sys.stderr)
            print(f"indexed {len(rep.indexed)} file(s), {rep.pages} pages, {rep.chunks} chunks; "
                  f"unchanged {len(rep.unchanged)}; failed {len(rep.failed)}; skipped {len(rep.skipped)}; "
                  f"parse {rep.parse_seconds:.1f}s, answerable after {rep.answerable_seconds:.1f}s; "
                  f"embedded {len(rep.embedded)} file(s), {rep.segments} segments, {_embed_rate(rep)}; "
                  f"total {rep.total_seconds:.1f}s")
            if rep.interrupted:
                print("interrupted: every document committed so far is in the index; run again to resume",
                      file=sys.stderr)
                return EXIT_INTERRUPTED
        elif args.embed or args.vector_index:
            from finrag.tools.indexing.indexer import embed_pending

            store.ensure_lexical()  # an index of an earlier version gets its BM25 postings here too
            rep = embed_pending(store, progress=_progress(args))
            if not rep.interrupted:
                store.build_faiss("base")
            print(f"embedded {len(rep.embedded)} file(s), {rep.segments} segments, {_embed_rate(rep)}")
            if rep.interrupted:
                print("interrupted: every document committed so far is in the index; run again to resume",
                      file=sys.stderr)
                return EXIT_INTERRUPTED
        for variant in args.variant or []:
            llm: dict = {}
            if variant == "llmctx":  # the contextualizer's model and prompt come from the configuration
                from finrag.state.configuration import Configuration
                from finrag.tools.llm.chat import get_chat_model

                cfg = Configuration(**_configurable(args))
                llm = {"contextualizer": get_chat_model("contextualizer", cfg),
                       "context_prompt": cfg.contextualizer_prompt}
            try:
                done = build_variant(store, variant, budget_calls=args.llm_budget, progress=_progress(args), **llm)
            except Exception as exc:
                if not llm.get("contextualizer") or isinstance(exc, (OSError, sqlite3.Error)):
                    raise
                from finrag.tools.llm.calls import LLMError

                raise LLMError("contextualizer", llm["contextualizer"], exc) from exc
            print(f"variant {variant}: {done['added']} chunk prefixes added, {done['llm_calls']} LLM calls")
        if args.json_report and rep is not None:
            Path(args.json_report).write_text(json.dumps(rep.as_dict(), indent=2))
        return EXIT_FAILED if rep is not None and rep.failed else EXIT_OK
    finally:
        store.close()


def cmd_info(args) -> int:
    from finrag.tools.indexing.backend import open_store
    from finrag.tools.indexing.parsing import printable

    store = open_store(_index_dir(args))
    stats = store.stats()
    docs = store.documents()
    store.close()
    if args.json:
        stats["documents_list"] = [d.model_dump() for d in docs] if args.documents else None
        print(json.dumps(stats, indent=2))
        return EXIT_OK
    print(f"index      {stats['index_dir']}")
    print(f"documents  {stats['documents']}   pages {stats['pages']:,}   chunks {stats['chunks']:,}")
    print(f"embedder   {stats['embedder']} (dim {stats['embedding_dim']})")
    print(f"chunking   {stats['chunk_size']} chars, {stats['chunk_overlap']} overlap")
    print("variants   " + ", ".join(f"{k}: {v:,} chunks" for k, v in stats["variants"].items()))
    print(f"size       {stats['size_bytes'] / 1e6:,.1f} MB on disk")
    if args.documents:
        for d in docs:
            origin = " ".join(f"{k}={v}" for k, v in d.sources.items())
            print(printable(f"  {d.doc_id:45s} {d.company[:30]:30s} {','.join(d.tickers[:3]):12s} {d.period:8s} "
                            f"{d.form}" + (f"  [{origin}]" if origin else "")))
    return EXIT_OK


# --------------------------------------------------------------------- ask
def _print_answer(res: dict) -> None:
    from finrag.tools.indexing.parsing import printable

    r = res["routing"]
    print(res["answer"])
    print()
    print(f"system {res['system']}  routing {r['status']}  docs {printable(', '.join(r['routed_docs'])) or '-'}")
    for c in res["contexts"][:10]:
        pages = c["page_start"] if c["page_start"] == c["page_end"] else f"{c['page_start']}-{c['page_end']}"
        print(f"  [{printable(c['doc_id'])} p.{pages}] score {c['score']:.3f}")
    cost = res["cost"]
    print(f"llm calls {cost['llm_calls']}  context tokens {cost['context_tokens']:,}  "
          f"total {res['timings_ms']['total']:.0f} ms")


def _fallback_note(res: dict) -> str:
    roles = res.get("offline_fallback") or []
    errors = sorted({c.get("error", "") for c in res["cost"]["calls"] if c.get("model") == "error"})
    return (f"the {', '.join(roles)} LLM call(s) failed ({'; '.join(errors)[:300]}); answered with the offline "
            "strategy instead (--on-llm-error offline); the answer is marked offline_fallback")


def _prefetch(args):
    """A one-shot question: open the index and load what it needs while the graph is imported."""
    try:
        from finrag.state.configuration import Configuration
        from finrag.tools.runtime import prefetch

        return prefetch(Configuration(**_configurable(args)))
    except Exception:  # the question itself reports any problem
        return None


def cmd_ask(args) -> int:
    from finrag.api import QuestionError, run_query

    question = " ".join(args.question)
    _index_dir(args)
    # one question: the NumPy query encoder starts in milliseconds; ONNX Runtime's import and session
    # (~0.4 s) pay off only in a process that answers many (finrag serve, batch, eval)
    os.environ.setdefault("FINRAG_QUERY_ENCODER", "numpy")
    warm = _prefetch(args)
    try:
        res = run_query(question, system=args.system, index=args.index, configurable=_configurable(args)).model_dump()
    except QuestionError as exc:
        _err(str(exc))
        return EXIT_USAGE
    finally:
        if warm is not None:
            warm.join()
    if res.get("offline_fallback"):
        _warn(_fallback_note(res))
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    else:
        _print_answer(res)
    return EXIT_OK


def _kept(answers, out: Path) -> str:
    """What a stopped batch left in --out, and how to go on."""
    if answers.written or not answers.untouched:
        return f"{answers.written} answer(s) written to {out}; rerun with --resume to continue"
    return f"no answer written ({out} is unchanged)" if out.exists() else f"no answer written ({out} not created)"


def cmd_batch(args) -> int:
    """`finrag batch`: answer a JSONL file of questions; `--out` is never emptied before a first answer exists
    (app/batchfile.py `AnswersOut`), and a run that stops early says how many answers it wrote."""
    from tqdm import tqdm

    from finrag.api import QuestionError, run_query
    from finrag.batchfile import AnswersOut, OutFileError, answered_ids, read_questions, same_file
    from finrag.tools.llm.calls import LLMError

    src, out = Path(args.inp), Path(args.out)
    if not src.is_file():
        raise UsageError(f"no such input file: {src}")
    if same_file(src, out):
        raise UsageError(f"--out {out} is the input file; write the answers to another file")
    _index_dir(args)
    rows = read_questions(src)
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
                res = run_query(q, system=args.system, index=args.index, qid=qid,
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


# -------------------------------------------------------------------- demo
def cmd_demo(args) -> int:
    from finrag.demo import run_demo

    home = Path(args.dir)
    index_dir = Path(args.index) if args.index else home / "index"
    if index_dir.exists() and not index_dir.is_dir():
        raise UsageError(f"{index_dir} is a file, not an index directory")
    return run_demo(home, index_dir, list(args.systems), args.questions, _progress(args))


# ------------------------------------------------------------------- serve
def cmd_serve(args) -> int:
    from finrag.server import serve

    # --llm / --llm-base-url: the default of every request's Configuration, as FINRAG_LLM / FINRAG_LLM_BASE_URL
    # would set it (a request's own `configurable` still wins)
    for flag, env in (("llm", "FINRAG_LLM"), ("llm_base_url", "FINRAG_LLM_BASE_URL")):
        if getattr(args, flag, None):
            os.environ[env] = getattr(args, flag)
    return serve(host=args.host, port=args.port, index_dir=args.index, api_key=args.api_key, max_batch=args.max_batch)


class _PortAction(argparse.Action):
    """`--port`: a TCP port, 1-65535 (the socket layer would take 99999 modulo 65536 and listen elsewhere)."""

    def __call__(self, parser, namespace, value, option_string=None):
        if not 1 <= value <= 65535:
            parser.error(f"{option_string} must be 1-65535, not {value}")
        setattr(namespace, self.dest, value)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="finrag", description="Question answering over SEC filings (offline by default).",
                                epilog="exit codes: " + "; ".join(f"{k} {v.split(' (')[0]}" for k, v in EXIT_CODES.items()))
    from finrag import __version__

    p.add_argument("--version", action="version", version=f"finrag {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("index", help="index PDF/.txt/.htm filings (incremental)")
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
    s.add_argument("--embedder", default=None, help="auto (default: the index's own; a new index of more than 25 files: static, else minilm), "
                        "minilm, static (MiniLM distilled by model2vec) or openai[:model[:dims]]")
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
    s.set_defaults(func=cmd_index)

    s = sub.add_parser("info", help="what is in an index")
    _index_arg(s)
    s.add_argument("--documents", action="store_true", help="list the documents and their registry entries")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_info)

    for name, fn, helptext in (("ask", cmd_ask, "answer one question"), ("batch", cmd_batch, "answer a JSONL file")):
        s = sub.add_parser(name, help=helptext)
        s.add_argument("--system", default="hdrr", choices=SYSTEMS)
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
        if name == "ask":
            s.add_argument("question", nargs="+")
            s.add_argument("--json", action="store_true", help="print the JSON contract")
        else:
            s.add_argument("--in", dest="inp", required=True, help='JSONL of {"id": ..., "question": ...}')
            s.add_argument("--out", required=True)
            s.add_argument("--resume", action="store_true", help="append, skipping ids already in --out")
            s.add_argument("-q", "--quiet", action="store_true")
        s.set_defaults(func=fn)

    s = sub.add_parser("demo", help="generate filing-like PDFs, index them, answer questions (offline)")
    s.add_argument("--dir", default=".finrag-demo", help="where to write the corpus and index (default .finrag-demo)")
    s.add_argument("--index", metavar="DIR", default=None,
                   help="index directory (default: DIR/index, i.e. the index folder inside --dir)")
    s.add_argument("--systems", nargs="+", default=["cbr", "hdrr", "agentic"], choices=SYSTEMS)
    s.add_argument("--questions", type=int, default=6)
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=cmd_demo)

    s = sub.add_parser("serve", help="serve the six graphs over HTTP (LangServe)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000, action=_PortAction, help="TCP port, 1-65535 (default 8000)")
    s.add_argument("--api-key", default=os.environ.get("FINRAG_API_KEY"), help="require this X-API-Key header")
    s.add_argument("--max-batch", type=int, default=None,
                   help="most inputs per /batch request (default 32, or $FINRAG_SERVE_MAX_BATCH)")
    s.add_argument("--llm", default=None,
                   help="the requests' default model: offline or openai/<model> (default $FINRAG_LLM; offline "
                        "without OPENAI_API_KEY)")
    s.add_argument("--llm-base-url", default=None,
                   help="OpenAI-compatible server URL for --llm (vLLM, Ollama, ...; default $FINRAG_LLM_BASE_URL)")
    _index_arg(s)
    s.set_defaults(func=cmd_serve)

    from finrag.fetch import add_parser as add_fetch_parser  # `finrag fetch` lives in app/fetch.py

    add_fetch_parser(sub)

    from finrag.index_copy import add_parser as add_copy_parser  # `finrag copy` lives in app/index_copy.py

    add_copy_parser(sub)

    s = sub.add_parser("eval", help="evaluation harness (see `finrag eval -h`)", add_help=False)
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=lambda a: __import__("finrag.eval.cli", fromlist=["main"]).main(a.rest))
    return p


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    _quiet_libraries()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["eval"]:  # its own parser, `-h` included
        from finrag.eval.cli import main as eval_main

        return eval_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from finrag.tools.indexing.locking import IndexLocked
    from finrag.tools.indexing.store import IndexCorrupt, IndexError_, IndexUnwritable
    from finrag.tools.llm.calls import LLMError

    try:
        return int(args.func(args) or 0)
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


if __name__ == "__main__":
    sys.exit(main())
