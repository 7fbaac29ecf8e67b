"""What an HDRR question costs before any retrieval: LangGraph's own overhead and the query embedding.

    python -m bench.latency_floor [--n 200] [--questions ../shared/data/financebench/questions_dev.jsonl]

Prints (JSON) the p50 of: invoking a compiled LangGraph graph of HDRR's shape (eight nodes, the two
searches in parallel) whose nodes do nothing; embedding one question with each query encoder (ONNX
Runtime, one thread, what a warm process uses; NumPy, one BLAS thread, what a one-shot `finrag ask`
uses); and the question's word pieces. The graph plus the ONNX embedding is a floor under HDRR's
retrieval latency on this machine whatever the searches cost. For one-shot start-up it also times
`import langgraph.graph` in fresh processes (median of 5): the floor under any one-shot question.
"""
from __future__ import annotations

import argparse
import json
import operator
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict


def graph_overhead_ms(n: int) -> float:
    from langgraph.graph import END, START, StateGraph

    class S(TypedDict, total=False):
        question: str
        fts: list
        vec: list
        timings: Annotated[list, operator.add]

    def node(name: str, key: str | None = None):
        def run(state: S) -> dict:
            return {key: [name]} if key else {"timings": [name]}
        return run

    g = StateGraph(S)
    names = ["extract_metadata", "resolve_docs", "rewrite", "fts_search", "vector_search", "rrf", "rerank", "generate"]
    for name in names:
        g.add_node(name, node(name, {"fts_search": "fts", "vector_search": "vec"}.get(name)))
    g.add_edge(START, "extract_metadata")
    g.add_edge("extract_metadata", "resolve_docs")
    g.add_edge("resolve_docs", "rewrite")
    g.add_edge("rewrite", "fts_search")
    g.add_edge("rewrite", "vector_search")
    g.add_edge(["fts_search", "vector_search"], "rrf")
    g.add_edge("rrf", "rerank")
    g.add_edge("rerank", "generate")
    g.add_edge("generate", END)
    graph = g.compile()
    for _ in range(20):
        graph.invoke({"question": "q"})
    times = []
    for _ in range(n):
        t = time.perf_counter()
        graph.invoke({"question": "q"})
        times.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(times)


def import_ms(module: str, runs: int = 5) -> float:
    """Median wall time of importing `module` in a fresh Python process (its .pyc files already written)."""
    code = f"import time; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1000.0)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
             for _ in range(runs + 1)][1:]
    return statistics.median(times)


def main() -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--questions", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared/data/financebench/questions_dev.jsonl")
    args = ap.parse_args()
    from finrag.tools.indexing.embedders import get_embedder

    questions = [json.loads(line)["question"] for line in args.questions.read_text().splitlines() if line.strip()]
    out: dict = {"langgraph_8_empty_nodes_p50_ms": round(graph_overhead_ms(args.n), 2)}
    embedder = get_embedder()
    for kind in ("onnx", "numpy"):
        encoder = embedder._load_query_encoder(kind)
        for q in questions[:5]:
            encoder.embed(q)
        embed = []
        for q in questions:
            t = time.perf_counter()
            encoder.embed(q)
            embed.append((time.perf_counter() - t) * 1000.0)
        out[f"query_embedding_{kind}_p50_ms"] = round(statistics.median(embed), 2)
    out["question_word_pieces_p50"] = statistics.median(len(encoder.token_ids(q)) for q in questions)
    out["questions"] = len(questions)
    out["import_langgraph_graph_fresh_process_ms"] = round(import_ms("langgraph.graph"), 1)
    out["load_avg"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
