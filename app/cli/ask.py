"""`finrag ask QUESTION` (app/cli/ask.py): answer one question, as text (answer, routing, contexts, cost) or `--json`."""
from __future__ import annotations

import argparse
import json

from finrag.api import QuestionError, run_query
from finrag.cli.common import EXIT_OK, EXIT_USAGE, _configurable, _err, _index_dir, _query_args, _warn
from finrag.state.configuration import Configuration
from finrag.tools.answering.page_labels import display_fields
from finrag.tools.documents.doc_ids import printable
from finrag.tools.indexing.embedders import preferring_query_encoder
from finrag.tools.indexing.open_index import prefetch
from finrag.tools.llm.calls import failed_call


def add_arguments(s: argparse.ArgumentParser) -> None:
    _query_args(s)
    s.add_argument("question", nargs="+")
    s.add_argument("--json", action="store_true", help="print the JSON contract")
    s.set_defaults(func=run)


def context_pages(c: dict) -> str:
    """A context's pages as people read them (`p. 57`), from its zero-based `page_start` / `page_end`."""
    return str(display_fields(c)["pages"])


def _print_answer(res: dict) -> None:
    r = res["routing"]
    print(res["answer"])
    print()
    print(f"system {res['system']}  routing {r['status']}  docs {printable(', '.join(r['routed_docs'])) or '-'}")
    contexts = res["contexts"]
    if contexts:  # every context of the JSON, highest score first; pages as a PDF viewer counts them
        print(f"contexts ({len(contexts)}, by score; pages as a PDF viewer counts them):")
    for c in sorted(contexts, key=lambda c: -float(c["score"])):
        print(f"  [{printable(c['doc_id'])}, {c.get('pages') or context_pages(c)}] score {c['score']:.3f}")
    cost = res["cost"]
    print(f"llm calls {cost['llm_calls']}  context tokens {cost['context_tokens']:,}  "
          f"total {res['timings_ms']['total']:.0f} ms")


def _fallback_note(res: dict) -> str:
    roles = res.get("offline_fallback") or []
    errors = sorted({c.get("error", "") for c in res["cost"]["calls"] if failed_call(c)})
    return (f"the {', '.join(roles)} LLM call(s) failed ({'; '.join(errors)[:300]}); answered with the offline "
            "strategy instead (--on-llm-error offline); the answer is marked offline_fallback")


def _prefetch(args):
    """A one-shot question: open the index and load what it needs while the graph is imported."""
    try:
        return prefetch(Configuration(**_configurable(args)))
    except Exception:  # the question itself reports any problem
        return None


def run(args) -> int:
    question = " ".join(args.question)
    _index_dir(args)
    # one question: the NumPy query encoder starts in milliseconds; ONNX Runtime's import and session
    # (~0.4 s) pay off only in a process that answers many (finrag serve, batch, eval); FINRAG_QUERY_ENCODER wins

    with preferring_query_encoder("numpy"):
        warm = _prefetch(args)
        try:
            res = run_query(question, system=args.system, index=args.index,
                            configurable=_configurable(args)).model_dump()
        except QuestionError as exc:
            _err(str(exc))
            return EXIT_USAGE
        finally:
            if warm is not None:
                warm.join()
    if res.get("offline_fallback"):
        _warn(_fallback_note(res))
    if res.get("finish_reason") == "length":
        _warn("the generator's reply stopped at its completion limit (finish_reason=length): the answer is cut, and "
              "says so; raise the limit with FINRAG_LLM_MAX_TOKENS (e.g. generator=2048)")
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    else:
        _print_answer(res)
    return EXIT_OK
