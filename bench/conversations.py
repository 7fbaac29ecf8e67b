"""Conversation benchmark (issue 36): follow-up questions on LangGraph threads over the demo corpus.

    python -m bench.conversations                                   # demo corpus, hdrr, offline
    python -m bench.conversations --index DIR --out docs/results/bench_conversations.json
    python -m bench.conversations --index FB_INDEX --data bench/data/conversations_financebench.jsonl \
        --out docs/results/bench_conversations.json --section financebench_dev   # FB_INDEX: finrag index --no-embed

The conversations (bench/data/conversations_demo.jsonl, written for this benchmark: period changes, company
changes, measure changes, pronouns, relative periods, topic resets, a company the index lacks) and over the
FinanceBench dev filings (bench/data/conversations_financebench.jsonl, an index of ../shared/data/financebench/pdfs)
give per turn the gold company, fiscal year, measure words and routed filings. Each conversation runs as one thread of a fresh
SQLite thread store (`finrag.threads.ThreadStore.sqlite`). Reported:

* resolved-question accuracy: the standalone question names the gold company (the registry's linker reads
  it), the gold fiscal year, and the gold measure words;
* routing accuracy: the routed filings are exactly the gold ones (follow-up turns: turn > 1), and by kind;
* latency added per turn: the thread run's total minus the same resolved question answered without a thread
  (median, p90), and the `resolve_question` node's own time;
* store size per 1,000 turns (the SQLite file after the run, WAL checkpointed);
* single questions without a thread: the demo questions' routing accuracy and latency (the plain graphs).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data" / "conversations_demo.jsonl"


def build_demo_index(folder: Path) -> Path:
    """The demo corpus indexed in `folder` (both retrieval variants are not needed here)."""
    from finrag.tools.demo.corpus import generate_demo_corpus
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import index_paths
    from finrag.tools.indexing.store import Store

    generate_demo_corpus(folder / "filings")
    store = Store(folder / "index", create=True)
    store.check_embedder(get_embedder())
    index_paths([folder / "filings"], store, progress=False, workers=1)
    store.close()
    return folder / "index"


def pct(values: list[float], q: float) -> float:
    """The q-quantile of `values` (nearest rank)."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def resolved_ok(resolved: str, gold: dict, registry) -> dict:
    """Whether a standalone question names the gold company, year and measure words."""
    ex = registry.link(resolved)
    keys = {str(c.get("key")) for c in ex.candidates or [] if c.get("in_index")} | set(ex.not_indexed or [])
    company = gold["company"] in keys or gold["company"].lower() in resolved.lower()
    year = int(gold["year"]) in [int(y) for y in ex.years or []]
    measure = str(gold.get("measure", "")).lower() in resolved.lower()
    return {"company": company, "year": year, "measure": measure, "all": company and year and measure}


def run(index: Path, conversations: list[dict], system: str, store_dir: Path) -> dict:
    """Every conversation on its own thread; the rows per turn and the summary."""
    from finrag import run_query
    from finrag.nodes.common import registry_of
    from finrag.state.configuration import Configuration
    from finrag.threads import ThreadStore

    registry = registry_of(Configuration(index_dir=str(index)))
    store = ThreadStore.sqlite(store_dir / "threads.sqlite")
    run_query("What was Acme Widgets' total revenue in FY2022?", system, index=str(index))  # warm-up
    rows: list[dict] = []
    stored = 0
    for warm in (True, False):  # a warm-up pass first: the measured pass compares warm runs with warm runs
        for conv in conversations:
            for n, gold in enumerate(conv["turns"], 1):
                row = _turn(index, system, store, f"{conv['id']}{'-warm' if warm else ''}", n, gold, registry)
                stored += 1
                if not warm:
                    rows.append({"conversation": conv["id"], **row})
    store.saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = (store_dir / "threads.sqlite").stat().st_size
    store.close()
    return {"rows": rows, "store_bytes": size, "stored_turns": stored}


def _turn(index: Path, system: str, store, thread: str, n: int, gold: dict, registry) -> dict:
    """One turn on its thread, and its resolved question answered without a thread."""
    from finrag import run_query

    res = run_query(gold["question"], system, index=str(index), thread_id=thread, threads=store)
    resolved = res.resolved_question or gold["question"]
    t0 = time.perf_counter()
    plain = run_query(resolved, system, index=str(index))
    plain_ms = (time.perf_counter() - t0) * 1000.0
    ok = resolved_ok(resolved, gold, registry)
    routed = sorted(res.routing.routed_docs) == sorted(gold["docs"])
    if gold.get("status"):
        routed = routed and res.routing.status == gold["status"]
    return {"turn": n, "kind": gold["kind"], "question": gold["question"], "resolved": resolved,
            "inherited": res.conversation.inherited if res.conversation else {}, "resolved_ok": ok["all"],
            "slots_ok": ok, "routed": res.routing.routed_docs, "status": res.routing.status,
            "gold_docs": gold["docs"], "routed_ok": routed,
            "same_as_plain": plain.routing.routed_docs == res.routing.routed_docs,
            "thread_ms": res.timings_ms["total"], "plain_ms": plain_ms,
            "resolve_ms": res.timings_ms.get("resolve_question", 0.0)}


def single_questions(index: Path, system: str) -> dict:
    """The demo questions without a thread: routing accuracy and latency of the plain graphs."""
    from finrag import run_query
    from finrag.tools.demo.corpus import demo_questions

    files = sorted((index.parent / "filings").glob("*.pdf"))
    if not files:  # not the demo corpus: no single-question set here
        return {}
    qas = demo_questions(files)
    ok, ms, extra = 0, [], 0
    for qa in qas:
        res = run_query(qa["question"], system, index=str(index))
        ok += res.routing.routed_docs == [qa["doc_id"]]
        ms.append(res.timings_ms["total"])
        extra += "resolved_question" in res or "conversation" in res
    return {"questions": len(qas), "routed_exactly": round(ok / len(qas), 4),
            "median_ms": round(statistics.median(ms), 2), "contract_fields_added": extra}


def summary(result: dict, system: str) -> dict:
    """The benchmark's numbers."""
    rows = result["rows"]
    follow = [r for r in rows if r["turn"] > 1]
    kinds: dict[str, list[dict]] = {}
    for r in follow:
        kinds.setdefault(r["kind"], []).append(r)
    added = [r["thread_ms"] - r["plain_ms"] for r in rows]
    return {
        "system": system, "conversations": len({r["conversation"] for r in rows}), "turns": len(rows),
        "follow_up_turns": len(follow),
        "resolved_question_accuracy": round(sum(r["resolved_ok"] for r in rows) / len(rows), 4),
        "follow_up_resolved_accuracy": round(sum(r["resolved_ok"] for r in follow) / len(follow), 4),
        "routing_accuracy": round(sum(r["routed_ok"] for r in rows) / len(rows), 4),
        "follow_up_routed_exactly": round(sum(r["routed_ok"] for r in follow) / len(follow), 4),
        "follow_up_routed_by_kind": {k: round(sum(r["routed_ok"] for r in v) / len(v), 4) for k, v in
                                     sorted(kinds.items())},
        "latency_added_ms": {"median": round(statistics.median(added), 2), "p90": round(pct(added, 0.9), 2)},
        "resolve_question_ms": {"median": round(statistics.median(r["resolve_ms"] for r in rows), 3),
                                "p90": round(pct([r["resolve_ms"] for r in rows], 0.9), 3)},
        "store_bytes": result["store_bytes"], "stored_turns": result["stored_turns"],
        "store_bytes_per_1000_turns": int(result["store_bytes"] / result["stored_turns"] * 1000),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print (and optionally write) its JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", default=None, help="an index of the demo corpus (default: built in a temp dir)")
    ap.add_argument("--system", default="hdrr")
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--out", default=None, help="write the JSON here (e.g. docs/results/bench_conversations.json)")
    ap.add_argument("--section", default=None, help="write the results under this key of --out, keeping the file's "
                                                    "other keys (e.g. financebench_dev)")
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args(argv)
    conversations = [json.loads(line) for line in Path(args.data).read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(args.index) if args.index else build_demo_index(Path(tmp))
        result = run(index, conversations, args.system, Path(tmp))
        out = {"summary": summary(result, args.system), "single_questions_no_thread": single_questions(index, args.system),
               "turns": result["rows"]}
    if args.show_misses:
        for r in out["turns"]:
            if not (r["routed_ok"] and r["resolved_ok"]):
                print(f"MISS {r['conversation']}#{r['turn']} {r['question']!r} -> {r['resolved']!r} "
                      f"routed {r['routed']} gold {r['gold_docs']} slots {r['slots_ok']}", file=sys.stderr)
    print(json.dumps(out["summary"], indent=2))
    print(json.dumps(out["single_questions_no_thread"], indent=2))
    if args.out:
        path = Path(args.out)
        if args.section:
            whole = json.loads(path.read_text()) if path.exists() else {}
            whole[args.section] = {"data": str(Path(args.data).relative_to(REPO)) if Path(args.data).is_relative_to(REPO)
                                   else args.data, **out}
            out = whole
        path.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
