"""The `finrag` command line: index, info, ask, batch, demo, serve, eval."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from finrag.graphs import SYSTEMS
from finrag.state.configuration import INDEX_DIR_RULE
from finrag.tools.indexing.chunking import CHUNK_OVERLAP, CHUNK_SIZE

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _err(msg: str) -> None:
    print(f"finrag: error: {msg}", file=sys.stderr)


def _index_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", metavar="DIR", default=None,
                   help=f"index directory (default: {INDEX_DIR_RULE})")


def _configurable(args) -> dict:
    """The run's configuration values given as flags (the rest comes from FINRAG_* and the defaults)."""
    conf = {}
    if getattr(args, "index", None):
        conf["index_dir"] = args.index
    for name in ("llm", "llm_base_url", "reranker", "embedder", "alias_file"):
        v = getattr(args, name, None)
        if v:
            conf[name] = v
    return conf


def _quiet_libraries() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    for name in ("sentence_transformers", "transformers", "httpx", "faiss"):
        logging.getLogger(name).setLevel(logging.ERROR)


# ------------------------------------------------------------------- index
def cmd_index(args) -> int:
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import build_variant, index_paths, remove_documents
    from finrag.tools.indexing.store import Store

    store = Store(args.index, create=True)
    try:
        store.check_embedder(get_embedder(args.embedder))
        if args.remove:
            rep = remove_documents(store, args.remove)
            for d in rep.removed:
                print(f"removed {d}")
            for name, why in rep.failed:
                print(f"failed  {name}: {why}", file=sys.stderr)
            return EXIT_FAILED if rep.failed else EXIT_OK
        for variant in args.drop_variant or []:
            store.delete_prefixes(variant)
            for key in ("source", "llm_calls", "prompt_tokens", "completion_tokens"):
                store.set_meta(f"variant_{variant}_{key}", "0" if key != "source" else "")
            print(f"dropped variant {variant}")
        rep = None
        if args.paths:
            rep = index_paths(args.paths, store, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
                              workers=args.workers, progress=not args.quiet, alias_file=args.alias_file)
            for name, why in rep.failed:
                print(f"failed  {name}: {why}", file=sys.stderr)
            print(f"indexed {len(rep.indexed)} file(s), {rep.pages} pages, {rep.chunks} chunks; "
                  f"unchanged {len(rep.unchanged)}; failed {len(rep.failed)}; "
                  f"parse {rep.parse_seconds:.1f}s, embed {rep.embed_seconds:.1f}s, total {rep.total_seconds:.1f}s")
            if rep.interrupted:
                print("interrupted: every document committed so far is in the index; run again to resume",
                      file=sys.stderr)
                return EXIT_INTERRUPTED
        elif not args.variant and not args.drop_variant:
            _err("nothing to index: give files or folders (or --remove DOC, or --variant NAME)")
            return EXIT_USAGE
        for variant in args.variant or []:
            llm: dict = {}
            if variant == "llmctx":  # the contextualizer's model and prompt come from the configuration
                from finrag.state.configuration import Configuration
                from finrag.tools.llm.chat import get_chat_model

                cfg = Configuration(**_configurable(args))
                llm = {"contextualizer": get_chat_model("contextualizer", cfg),
                       "context_prompt": cfg.contextualizer_prompt}
            done = build_variant(store, variant, budget_calls=args.llm_budget, progress=not args.quiet, **llm)
            print(f"variant {variant}: {done['added']} chunk prefixes added, {done['llm_calls']} LLM calls")
        if args.json_report and rep is not None:
            Path(args.json_report).write_text(json.dumps(rep.as_dict(), indent=2))
        return EXIT_FAILED if rep is not None and rep.failed else EXIT_OK
    finally:
        store.close()


def cmd_info(args) -> int:
    from finrag.tools.indexing.store import Store

    store = Store(args.index)
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
            print(f"  {d.doc_id:45s} {d.company[:30]:30s} {','.join(d.tickers[:3]):12s} {d.period:8s} {d.form}")
    return EXIT_OK


# --------------------------------------------------------------------- ask
def _print_answer(res: dict) -> None:
    r = res["routing"]
    print(res["answer"])
    print()
    print(f"system {res['system']}  routing {r['status']}  docs {', '.join(r['routed_docs']) or '-'}")
    for c in res["contexts"][:10]:
        pages = c["page_start"] if c["page_start"] == c["page_end"] else f"{c['page_start']}-{c['page_end']}"
        print(f"  [{c['doc_id']} p.{pages}] score {c['score']:.3f}")
    cost = res["cost"]
    print(f"llm calls {cost['llm_calls']}  context tokens {cost['context_tokens']:,}  "
          f"total {res['timings_ms']['total']:.0f} ms")


def cmd_ask(args) -> int:
    from finrag.api import QuestionError, run_query

    question = " ".join(args.question)
    try:
        res = run_query(question, system=args.system, index_dir=args.index, configurable=_configurable(args))
    except QuestionError as exc:
        _err(str(exc))
        return EXIT_USAGE
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    else:
        _print_answer(res)
    return EXIT_OK


def cmd_batch(args) -> int:
    from tqdm import tqdm

    from finrag.api import QuestionError, run_query

    src = Path(args.inp)
    if not src.is_file():
        _err(f"no such input file: {src}")
        return EXIT_USAGE
    rows = []
    for n, line in enumerate(src.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            rows.append((str(obj.get("id", n)), obj["question"]))
        except (ValueError, KeyError, AttributeError):
            _err(f"{src}:{n}: expected a JSON object with a 'question' field")
            return EXIT_USAGE
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists() and args.resume:
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                done.add(str(json.loads(line)["id"]))
            except (ValueError, KeyError):
                pass
    failed = 0
    with out.open("a" if args.resume else "w", encoding="utf-8") as fh:
        for qid, q in tqdm([r for r in rows if r[0] not in done], desc=f"{args.system}", unit="q",
                           disable=args.quiet):
            try:
                res = run_query(q, system=args.system, index_dir=args.index, qid=qid,
                                configurable=_configurable(args))
            except QuestionError as exc:
                failed += 1
                res = {"id": qid, "system": args.system, "question": q, "answer": "", "error": str(exc)}
            fh.write(json.dumps(res, ensure_ascii=False) + "\n")
            fh.flush()
    print(f"wrote {len(rows) - len(done)} answer(s) to {out}" + (f" ({failed} rejected)" if failed else ""))
    return EXIT_FAILED if failed else EXIT_OK


# -------------------------------------------------------------------- demo
def cmd_demo(args) -> int:
    from finrag.api import run_query
    from finrag.tools.demo.corpus import demo_questions, generate_demo_corpus
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import build_variant, index_paths
    from finrag.tools.indexing.store import Store

    home = Path(args.dir)
    corpus = home / "filings"
    index_dir = Path(args.index) if args.index else home / "index"
    print(f"1/3 writing a demo corpus of filing-like PDFs to {corpus}")
    paths = generate_demo_corpus(corpus)
    print(f"    {len(paths)} filings: " + ", ".join(p.name for p in paths))
    print(f"2/3 indexing into {index_dir} (offline embedder)")
    store = Store(index_dir, create=True)
    store.check_embedder(get_embedder())
    rep = index_paths([corpus], store, progress=not args.quiet)
    for variant in ("meta", "llmctx"):
        build_variant(store, variant, progress=False)
    store.close()
    print(f"    {len(rep.indexed)} indexed, {len(rep.unchanged)} unchanged, {rep.chunks} chunks")
    qs = demo_questions(paths)[: args.questions]
    print(f"3/3 answering {len(qs)} questions with {', '.join(args.systems)}\n")
    from finrag.tools import runtime

    runtime.reset()
    hits = {s: 0 for s in args.systems}
    for q in qs:
        print(f"Q: {q['question']}\n   gold: {q['answer']}  ({q['doc_id']} p.{q['evidence_pages']})")
        for system in args.systems:
            res = run_query(q["question"], system=system, index_dir=str(index_dir), qid=q["id"])
            ctx_docs = [c["doc_id"] for c in res["contexts"]]
            right = sum(d == q["doc_id"] for d in ctx_docs)
            found = q["answer"] in res["answer"]
            hits[system] += found
            print(f"   {system:8s} routing={res['routing']['status']:<20s} context {right}/{len(ctx_docs)} from the right "
                  f"filing; gold answer in answer: {'yes' if found else 'no'}")
        print()
    print("gold answer found in the answer: " + ", ".join(f"{s} {hits[s]}/{len(qs)}" for s in args.systems))
    print(f"\nTry: finrag ask --index {index_dir} --system hdrr \"{qs[0]['question']}\"")
    return EXIT_OK


# ------------------------------------------------------------------- serve
def cmd_serve(args) -> int:
    from finrag.server import serve

    return serve(host=args.host, port=args.port, index_dir=args.index, api_key=args.api_key)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="finrag", description="Question answering over SEC filings (offline by default).")
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
    s.add_argument("--embedder", default=None, help="minilm (default) or openai[:model[:dims]]")
    s.add_argument("--alias-file", default=None, help="YAML/CSV of extra company aliases and ticker history")
    s.add_argument("--llm", default=None, help="model for the llmctx contextualizer, e.g. openai/gpt-4.1-mini")
    s.add_argument("--llm-base-url", default=None)
    s.add_argument("--llm-budget", type=int, default=None, help="max LLM calls for --variant llmctx")
    s.add_argument("--json-report", default=None, help="write the run's numbers to this JSON file")
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
    s.add_argument("--dir", default=".finrag-demo", help="where to write the corpus and index")
    _index_arg(s)
    s.add_argument("--systems", nargs="+", default=["cbr", "hdrr", "agentic"], choices=SYSTEMS)
    s.add_argument("--questions", type=int, default=6)
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=cmd_demo)

    s = sub.add_parser("serve", help="serve the six graphs over HTTP (LangServe)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--api-key", default=os.environ.get("FINRAG_API_KEY"), help="require this X-API-Key header")
    _index_arg(s)
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("eval", help="evaluation harness (see `finrag eval -h`)", add_help=False)
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=lambda a: __import__("finrag.eval.cli", fromlist=["main"]).main(a.rest))
    return p


def main(argv: list[str] | None = None) -> int:
    _quiet_libraries()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from finrag.tools.indexing.store import IndexError_

    try:
        return int(args.func(args) or 0)
    except IndexError_ as exc:
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_INTERRUPTED
    except (ValueError, FileNotFoundError, PermissionError) as exc:
        _err(str(exc))
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
