"""Build the report of a run directory from its files (answers, judgements, groups, queries).

`write_report(out_dir, index_dir=None)` writes, next to the run's files:

    report.md                  every table in Markdown, with the plots
    summary.json               every table as JSON (plus run info)
    per_query.csv / .jsonl     one row per (system, query): scores, routing, retrieval and cost values
    tables/{name}.csv / .json  quality, groups_mean, groups_correct, paired_mean, paired_correct, routing,
                               retrieval, coverage, cost, agreement, quality_judge2 (when there is data)
    plots/*.png                score distributions, paired differences, cost vs quality

It can be rerun any time (`finrag eval report --out DIR`); nothing is recomputed but the tables.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Optional, Sequence

from finrag.eval import metrics as M
from finrag.eval.runfiles import answer_path, judgement_path, load_run_queries, read_json
from finrag.tools.indexing.store import Store

__all__ = ["build_records", "compute_tables", "write_report", "index_meta_of", "markdown_report"]

INDEX_META_KEYS = ("variant_llmctx_llm_calls", "variant_llmctx_prompt_tokens", "variant_llmctx_completion_tokens")


# --------------------------------------------------------------------------------------------------
# records
# --------------------------------------------------------------------------------------------------
def _record(system: str, q: dict, ans: Optional[dict], j1: Optional[dict], j2: Optional[dict]) -> dict:
    meta = q.get("meta") or {}
    ans = ans or {}
    routing = ans.get("routing") or {}
    cost = ans.get("cost") or {}
    timings = ans.get("timings_ms") or {}
    return {
        "system": system,
        "id": q["id"],
        "group": q.get("group"),
        "question": q["question"],
        "gold": q.get("answer") or "",
        "answer": ans.get("answer") or "",
        "error": ans.get("error") if ans else "missing answer file",
        "gold_docs": list(q.get("doc_ids") or []),
        "evidence": list(q.get("evidence") or []),
        "companies": list(meta.get("companies") or []),
        "company_aliases": meta.get("company_aliases") or {},
        "question_type": meta.get("question_type") or meta.get("template") or "",
        "routing_status": routing.get("status") or ("error" if ans.get("error") else "unknown"),
        "routed_docs": list(routing.get("routed_docs") or []),
        "contexts": [{"doc_id": c.get("doc_id"), "page_start": c.get("page_start"), "page_end": c.get("page_end")}
                     for c in ans.get("contexts") or []],
        "llm_calls": cost.get("llm_calls"),
        "prompt_tokens": cost.get("prompt_tokens"),
        "completion_tokens": cost.get("completion_tokens"),
        "context_tokens": cost.get("context_tokens"),
        "llm_calls_saved": cost.get("llm_calls_saved"),
        "fast_path": bool((ans.get("reader") or {}).get("fast_path")),
        "reader_kind": (ans.get("reader") or {}).get("kind"),
        "reader_confident": bool((ans.get("reader") or {}).get("confident")),
        "latency_ms": timings.get("total"),
        "score": (j1 or {}).get("score"),
        "score2": (j2 or {}).get("score"),
        "judge_justification": (j1 or {}).get("justification"),
    }


def build_records(out_dir: str | Path, judges: Sequence[str] | None = None,
                  systems: Sequence[str] | None = None) -> list[dict]:
    """One record per (system, query) of a run directory (see finrag.eval.metrics for the keys).
    `judges` defaults to run.json's judge names (first = `score`, second = `score2`)."""
    out = Path(out_dir)
    manifest = read_json(out / "run.json") or {}
    queries = load_run_queries(out)
    if systems is None:
        systems = manifest.get("systems") or sorted(p.name for p in (out / "answers").iterdir() if p.is_dir())
    judges = list(judges if judges is not None else manifest.get("judges") or [])
    records = []
    for q in queries:
        for s in systems:
            ans = read_json(answer_path(out, s, q["id"]))
            j = [read_json(judgement_path(out, name, s, q["id"])) if name else None for name in (judges + [None, None])[:2]]
            records.append(_record(s, q, ans, *j))
    return records


def index_meta_of(index_dir: str | Path | None) -> dict:
    """The index-time LLM cost keys of an index (empty when there is no index or no such keys)."""
    if not index_dir or not Path(index_dir).is_dir():
        return {}
    try:
        store = Store(index_dir)
    except Exception:
        return {}
    try:
        return {k: store.get_meta(k) for k in INDEX_META_KEYS if store.get_meta(k) is not None}
    finally:
        store.close()


# --------------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------------
def compute_tables(records: Sequence[dict], index_meta: Optional[dict] = None, reference: str = "hdrr") -> dict:
    tables: dict[str, Any] = {
        "quality": M.quality_table(records),
        "quality_by_type": M.quality_by_type_table(records),
        "groups_mean": M.group_table(records, stat="mean"),
        "groups_correct": M.group_table(records, stat="correct_rate"),
        "paired_mean": M.paired_differences(records, reference, stat="mean"),
        "paired_correct": M.paired_differences(records, reference, stat="correct_rate"),
        "routing": M.routing_breakdown(records),
        "retrieval": M.retrieval_table(records),
        "retrieval_by_type": M.retrieval_by_type_table(records),
        "coverage": M.coverage_table(records),
        "cost": M.cost_table(records, index_meta),
    }
    agreement = M.agreement_table(records)
    if agreement:
        tables["agreement"] = agreement["per_system"] + [{"system": "(all answers)", **agreement["overall"]}]
        tables["agreement_system_level"] = agreement["system_level"]
        tables["quality_judge2"] = M.quality_table(records, score_key="score2")
    return tables


def _fmt(v: Any, kind: str = "") -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if kind == "pct" and isinstance(v, (int, float)):
        return f"{100 * v:.1f}%"
    if kind == "int" and isinstance(v, (int, float)):
        return f"{v:,.0f}"
    if kind == "signed" and isinstance(v, (int, float)):
        return f"{v:+.2f}"
    if isinstance(v, float):
        return f"{v:,.2f}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def _md_table(rows: Sequence[dict], columns: Sequence[tuple[str, str, str]]) -> list[str]:
    """columns: (key, header, kind)."""
    if not rows:
        return ["_(no data)_", ""]
    lines = ["| " + " | ".join(h for _, h, _ in columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(k), kind) for k, _, kind in columns) + " |")
    return lines + [""]


_QUALITY_COLS = [("system", "system", ""), ("queries", "queries", "int"), ("n", "judged", "int"),
                 ("mean", "mean score", ""), ("failure_rate", "P(s=1)", "pct"), ("correct_rate", "P(s≥8)", "pct"),
                 ("perfect_rate", "P(s=10)", "pct"), ("band_low", "s≤3", "pct"), ("band_mid", "s 4–7", "pct"),
                 ("band_high", "s≥8", "pct"), ("errors", "errors", "int")]


def markdown_report(tables: dict, info: dict) -> str:
    L: list[str] = ["# Evaluation report", ""]
    L += [f"- dataset: `{info.get('dataset')}` ({info.get('n_queries')} queries; {info.get('groups_note', '')})",
          f"- systems: {', '.join(info.get('systems') or [])}",
          f"- judge: `{info.get('judge') or '–'}`" + (f"; second judge: `{info['judge2']}`" if info.get("judge2") else ""),
          f"- index: `{info.get('index_dir') or '–'}`"]
    if info.get("configurable"):
        L.append("- configurable: " + ", ".join(f"`{k}={v}`" for k, v in info["configurable"].items()))
    if info.get("command"):
        L.append(f"- command: `{info['command']}`")
    L += ["", "Metric definitions: docs/evaluation.md. Scores are 1–10 from the judge; failure s = 1, "
          "correct s ≥ 8, perfect s = 10. A query whose system raised an error counts as s = 1.", ""]

    L += ["## Answer quality", ""] + _md_table(tables["quality"], _QUALITY_COLS)
    if tables.get("quality_by_type"):
        L += ["## Answer quality per question type", "", "`reader confident`: share of answers where the statement "
              "reader found every input and computed the result.", ""]
        L += _md_table(tables["quality_by_type"], [
            ("system", "system", ""), ("question_type", "question type", ""), ("queries", "queries", "int"),
            ("mean", "mean score", ""), ("failure_rate", "P(s=1)", "pct"), ("correct_rate", "P(s≥8)", "pct"),
            ("perfect_rate", "P(s=10)", "pct"), ("reader_confident_share", "reader confident", "pct")])

    g_rows = tables["groups_mean"]
    gcols = sorted({k for r in g_rows for k in r if k.startswith("g") and k[1:].isdigit()}, key=lambda k: int(k[1:]))
    for key, title, kind in (("groups_mean", "Mean score per group", ""),
                             ("groups_correct", "Correctness P(s≥8) per group", "pct")):
        L += [f"## {title}", "", "Inter-group std is the sample standard deviation over the groups.", ""]
        L += _md_table(tables[key], [("system", "system", "")] + [(g, f"group {g[1:]}", kind) for g in gcols]
                       + [("mean_over_groups", "mean", kind), ("std_over_groups", "inter-group std", kind)])

    for key, title, kind in (("paired_mean", "Paired per-group differences: mean score", "signed"),
                             ("paired_correct", "Paired per-group differences: P(s≥8)", "pct")):
        rows = tables[key]
        dcols = sorted({k for r in rows for k in r if k.startswith("d_g")}, key=lambda k: int(k[3:]))
        L += [f"## {title}", "", "HDRR minus each system, group by group (same queries in each group); mean and "
              "sample std over groups; `ahead` = groups where HDRR is higher.", ""]
        L += _md_table(rows, [("comparison", "comparison", "")] + [(d, f"group {d[3:]}", kind) for d in dcols]
                       + [("mean_diff", "mean diff", kind), ("std_diff", "std", "" if kind == "signed" else kind),
                          ("groups_reference_ahead", "ahead", "int"), ("n_groups", "groups", "int")])

    L += ["## Routing status", ""] + _md_table(tables["routing"], [
        ("system", "system", ""), ("routing_status", "status", ""), ("count", "count", "int"), ("share", "share", "pct"),
        ("mean_score", "mean score", ""), ("failure_rate", "P(s=1)", "pct"), ("correct_rate", "P(s≥8)", "pct")])

    L += ["## Retrieval (no judge needed)", "",
          "Routing accuracy is over queries with gold documents (– for systems that do not route); evidence "
          "recall is over queries with gold evidence pages; the wrong-document share pools every context chunk.", ""]
    L += _md_table(tables["retrieval"], [
        ("system", "system", ""), ("exact_routing_acc", "exact routing", "pct"), ("gold_in_routed", "gold in routed", "pct"),
        ("evidence_recall", "evidence page recall", "pct"), ("evidence_hit_rate", "evidence hit", "pct"),
        ("wrong_doc_chunk_share", "wrong-doc chunks", "pct"), ("mean_contexts", "chunks", ""),
        ("mean_context_tokens", "context tokens", "int"), ("mean_latency_ms", "latency ms", "int")])

    if tables.get("retrieval_by_type"):
        L += ["## Retrieval per question type", ""] + _md_table(tables["retrieval_by_type"], [
            ("system", "system", ""), ("question_type", "question type", ""), ("queries", "queries", "int"),
            ("exact_routing_acc", "exact routing", "pct"), ("evidence_hit_rate", "evidence hit", "pct"),
            ("wrong_doc_chunk_share", "wrong-doc chunks", "pct"), ("mean_contexts", "chunks", ""),
            ("mean_context_tokens", "context tokens", "int")])

    if tables.get("coverage"):
        L += ["## Multi-document coverage", "", "Queries with two or more gold documents (e.g. cross-company).", ""]
        L += _md_table(tables["coverage"], [
            ("system", "system", ""), ("queries", "queries", "int"), ("routing_coverage", "routing coverage", "pct"),
            ("retrieval_coverage", "retrieval coverage", "pct"), ("answer_coverage", "answer coverage", "pct"),
            ("all_routed", "all routed", "pct"), ("all_retrieved", "all retrieved", "pct"),
            ("all_named", "all named", "pct"), ("mean_score", "mean score", "")])

    L += ["## Cost", "", "Per query (means); index-time LLM cost of the CBR+LLM-Ctx variant from the index "
          "metadata (one-off, shared by all queries). `fast path`: share of answers where the statement reader "
          "answered and the generator LLM call was skipped; `LLM calls saved`: those skipped calls in total.", ""]
    L += _md_table(tables["cost"], [
        ("system", "system", ""), ("llm_calls_per_query", "LLM calls", ""), ("prompt_tokens_per_query", "prompt tok", "int"),
        ("completion_tokens_per_query", "completion tok", "int"), ("context_tokens_per_query", "context tok", "int"),
        ("latency_ms_mean", "latency ms (mean)", "int"), ("latency_ms_median", "latency ms (median)", "int"),
        ("index_llm_calls", "index LLM calls", "int"), ("index_prompt_tokens", "index prompt tok", "int"),
        ("index_completion_tokens", "index completion tok", "int"), ("fast_path_share", "fast path", "pct"),
        ("total_llm_calls_saved", "LLM calls saved", "int")])

    if tables.get("agreement"):
        sl = tables["agreement_system_level"]
        L += ["## Cross-evaluator agreement", "",
              f"Judge A `{info.get('judge')}` vs judge B `{info.get('judge2')}` on the same answers (system errors "
              f"excluded). System-level Spearman over {sl['n_systems']} systems' mean scores: {_fmt(sl['spearman'])} "
              f"(A ranks {', '.join(sl['rank_a'])}; B ranks {', '.join(sl['rank_b'])}).", ""]
        L += _md_table(tables["agreement"], [
            ("system", "system", ""), ("n", "n", "int"), ("spearman", "Spearman", ""), ("mean_abs_delta", "mean |Δ|", ""),
            ("exact_agreement", "exact", "pct"), ("within_1", "within 1", "pct"), ("binary_kappa", "κ (s≥8)", ""),
            ("mean_a", "mean A", ""), ("mean_b", "mean B", "")])
        L += ["### Answer quality under the second judge", ""] + _md_table(tables["quality_judge2"], _QUALITY_COLS)

    if info.get("plots"):
        L += ["## Plots", ""]
        for name, path in info["plots"].items():
            L += [f"![{name}]({path})", ""]
    return "\n".join(L)


def _write_csv(path: Path, rows: Sequence[dict]) -> None:
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v) for k, v in r.items()})
    path.write_text(buf.getvalue(), encoding="utf-8")


def _per_query_rows(records: Sequence[dict]) -> list[dict]:
    rows = []
    for r in records:
        p = M.per_query_retrieval(r)
        rows.append({"system": r["system"], "id": r["id"], "group": r["group"], "question_type": r["question_type"],
                     "score": r["score"], "score2": r["score2"], "error": r["error"] or "",
                     "routing_status": r["routing_status"], "routed_docs": r["routed_docs"], "gold_docs": r["gold_docs"],
                     "exact_routing": p["exact_routing"], "gold_in_routed": p["gold_in_routed"],
                     "evidence_recall": p["evidence_recall"], "n_contexts": p["n_contexts"],
                     "wrong_doc_chunks": p["wrong_doc_chunks"], "routing_coverage": p["routing_coverage"],
                     "retrieval_coverage": p["retrieval_coverage"], "answer_coverage": p["answer_coverage"],
                     "llm_calls": r["llm_calls"], "prompt_tokens": r["prompt_tokens"],
                     "completion_tokens": r["completion_tokens"], "context_tokens": r["context_tokens"],
                     "llm_calls_saved": r.get("llm_calls_saved"), "fast_path": r.get("fast_path"),
                     "reader_kind": r.get("reader_kind"), "reader_confident": r.get("reader_confident"),
                     "latency_ms": r["latency_ms"], "question": r["question"], "gold": r["gold"], "answer": r["answer"],
                     "judge_justification": r["judge_justification"]})
    return rows


def write_report(out_dir: str | Path, index_dir: str | Path | None = None, plots: bool = True,
                 reference: str = "hdrr") -> dict:
    """Compute every table of a run directory and write the report files; returns their paths."""
    out = Path(out_dir)
    manifest = read_json(out / "run.json") or {}
    index_dir = index_dir or manifest.get("index_dir")
    records = build_records(out)
    tables = compute_tables(records, index_meta_of(index_dir), reference)
    judges = manifest.get("judges") or []
    conf = manifest.get("config") or {}
    info = {"dataset": conf.get("dataset"), "n_queries": manifest.get("n_queries"),
            "groups_note": manifest.get("groups_note", ""), "systems": manifest.get("systems"),
            "judge": judges[0] if judges else None, "judge2": judges[1] if len(judges) > 1 else None,
            "index_dir": str(index_dir) if index_dir else None, "configurable": conf.get("configurable") or {},
            "command": manifest.get("command", "")}
    paths: dict[str, Any] = {}
    tdir = out / "tables"
    tdir.mkdir(exist_ok=True)
    for name, rows in tables.items():
        (tdir / f"{name}.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
        if isinstance(rows, list):
            _write_csv(tdir / f"{name}.csv", rows)
    pq = _per_query_rows(records)
    _write_csv(out / "per_query.csv", pq)
    (out / "per_query.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in pq), encoding="utf-8")
    if plots:
        # lazy: matplotlib costs ~1.3 s of imports, paid only by a report that draws plots
        from finrag.eval.plots import make_plots

        info["plots"] = {k: str(Path(v).relative_to(out)) for k, v in make_plots(records, tables, out / "plots").items()}
    (out / "summary.json").write_text(json.dumps({"info": info, "tables": tables}, indent=1, ensure_ascii=False),
                                      encoding="utf-8")
    (out / "report.md").write_text(markdown_report(tables, info), encoding="utf-8")
    paths.update({"report_md": str(out / "report.md"), "summary_json": str(out / "summary.json"),
                  "per_query_csv": str(out / "per_query.csv"), "tables_dir": str(tdir),
                  "plots": info.get("plots", {})})
    return paths
