"""The paper's metrics as pure functions over per-query records (no I/O, unit-testable).

A *record* is one (system, query) pair, a flat dict (`finrag.eval.report.build_records` makes them from a
run directory; tests write them by hand). Keys used here (missing keys mean "unknown"):

    system, id, group (int or None)
    question, gold (gold answer, may be ""), answer, error (str or None)
    gold_docs [doc ids], evidence [{doc_id, page}] (zero-based), companies [names], company_aliases {name: [..]}
    routing_status, routed_docs [doc ids]
    contexts [{doc_id, page_start, page_end}]          (the chunks the generator saw)
    llm_calls, prompt_tokens, completion_tokens, context_tokens, latency_ms
    llm_calls_saved (generator calls skipped on the reader's fast path), fast_path (bool), reader_kind,
    reader_confident (bool), question_type
    score (1-10 from the primary judge, or None when not judged), score2 (second judge, or None)

Score thresholds (paper): failure s = 1, correct s >= 8, perfect s = 10; bands <= 3, 4-7, >= 8.
Inter-group standard deviations are sample standard deviations (ddof = 1) over the groups.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Callable, Iterable, Optional, Sequence

from finrag.eval.judges.agreement import cross_evaluator_agreement, spearman
from finrag.state.systems import REGISTRY, SYSTEMS

__all__ = [
    "SYSTEM_ORDER",
    "FAILURE", "CORRECT", "PERFECT",
    "systems_of",
    "score_stats",
    "quality_table",
    "quality_by_type_table",
    "retrieval_by_type_table",
    "group_table",
    "paired_differences",
    "routing_breakdown",
    "cost_table",
    "retrieval_table",
    "per_query_retrieval",
    "evidence_page_recall",
    "company_named",
    "coverage_table",
    "agreement_table",
    "mean", "sample_std",
]

SYSTEM_ORDER = SYSTEMS  # the registry's order
FAILURE, CORRECT, PERFECT = 1, 8, 10
INDEX_COST_SYSTEMS = {s.name: s.variant for s in REGISTRY if s.variant and s.variant_llm_calls}
"""Systems whose index variant was built with LLM calls, with that variant (the registry's `variant_llm_calls`)."""


# --------------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------------
def mean(xs: Iterable[Optional[float]]) -> Optional[float]:
    vals = [float(x) for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def sample_std(xs: Iterable[Optional[float]]) -> Optional[float]:
    vals = [float(x) for x in xs if x is not None]
    if len(vals) < 2:
        return None
    m = sum(vals) / len(vals)
    return math.sqrt(sum((x - m) ** 2 for x in vals) / (len(vals) - 1))


def median(xs: Iterable[Optional[float]]) -> Optional[float]:
    xs = sorted(float(x) for x in xs if x is not None)
    if not xs:
        return None
    k = len(xs) // 2
    return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2


def _share(num: int, den: int) -> Optional[float]:
    return num / den if den else None


def systems_of(records: Sequence[dict]) -> list[str]:
    """Systems present, in the paper's order (unknown names after, sorted)."""
    present = {r["system"] for r in records}
    return [s for s in SYSTEM_ORDER if s in present] + sorted(present - set(SYSTEM_ORDER))


def _by_system(records: Sequence[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        out[r["system"]].append(r)
    return out


def _scores(records: Iterable[dict], key: str = "score") -> list[int]:
    return [int(r[key]) for r in records if r.get(key) is not None]


# --------------------------------------------------------------------------------------------------
# quality
# --------------------------------------------------------------------------------------------------
def score_stats(scores: Sequence[float]) -> dict:
    """n, mean, std, P(s=1), P(s>=8), P(s=10) and the bands <=3 / 4-7 / >=8 of a list of 1-10 scores."""
    s = [float(x) for x in scores if x is not None]
    n = len(s)
    return {
        "n": n,
        "mean": mean(s),
        "std": sample_std(s),
        "failure_rate": _share(sum(x <= FAILURE for x in s), n),
        "correct_rate": _share(sum(x >= CORRECT for x in s), n),
        "perfect_rate": _share(sum(x >= PERFECT for x in s), n),
        "band_low": _share(sum(x <= 3 for x in s), n),
        "band_mid": _share(sum(4 <= x <= 7 for x in s), n),
        "band_high": _share(sum(x >= CORRECT for x in s), n),
    }


def quality_table(records: Sequence[dict], score_key: str = "score") -> list[dict]:
    """Per system: score_stats over the judged records, plus how many queries errored / were not judged."""
    by = _by_system(records)
    rows = []
    for system in systems_of(records):
        recs = by[system]
        row = {"system": system, "queries": len(recs), **score_stats(_scores(recs, score_key))}
        row["errors"] = sum(1 for r in recs if r.get("error"))
        row["not_judged"] = sum(1 for r in recs if r.get(score_key) is None)
        rows.append(row)
    return rows


def quality_by_type_table(records: Sequence[dict], score_key: str = "score") -> list[dict]:
    """Per system and question type (FinanceBench `question_type`, or a dataset's template): score_stats, and
    the shares of answers the statement reader was confident in and that took the LLM fast path."""
    rows = []
    by = _by_system(records)
    for system in systems_of(records):
        types: dict[str, list[dict]] = defaultdict(list)
        for r in by[system]:
            types[r.get("question_type") or "(none)"].append(r)
        if len(types) < 2 and "(none)" in types:
            continue
        for qtype in sorted(types):
            recs = types[qtype]
            row = {"system": system, "question_type": qtype, "queries": len(recs),
                   **score_stats(_scores(recs, score_key))}
            row["reader_confident_share"] = _share(sum(bool(r.get("reader_confident")) for r in recs), len(recs))
            rows.append(row)
    return rows


_STATS: dict[str, Callable[[list[int]], Optional[float]]] = {
    "mean": lambda s: mean(s),
    "correct_rate": lambda s: score_stats(s)["correct_rate"],
    "failure_rate": lambda s: score_stats(s)["failure_rate"],
    "perfect_rate": lambda s: score_stats(s)["perfect_rate"],
}


def _group_values(recs: Sequence[dict], score_key: str, stat: str) -> dict[int, Optional[float]]:
    per: dict[int, list[int]] = defaultdict(list)
    groups = sorted({r["group"] for r in recs if r.get("group") is not None})
    for r in recs:
        if r.get("group") is not None and r.get(score_key) is not None:
            per[r["group"]].append(int(r[score_key]))
    return {g: _STATS[stat](per[g]) if per[g] else None for g in groups}


def group_table(records: Sequence[dict], score_key: str = "score", stat: str = "mean") -> list[dict]:
    """Per system: the statistic (`mean`, `correct_rate`, `failure_rate`, `perfect_rate`) of each group
    (`g1`..`gG`, groups numbered from 1), their mean over groups and the inter-group sample std."""
    if stat not in _STATS:
        raise ValueError(f"unknown statistic {stat!r}; one of {', '.join(_STATS)}")
    by = _by_system(records)
    all_groups = sorted({r["group"] for r in records if r.get("group") is not None})
    rows = []
    for system in systems_of(records):
        vals = _group_values(by[system], score_key, stat)
        row: dict[str, Any] = {"system": system, "stat": stat}
        for g in all_groups:
            row[f"g{g + 1}"] = vals.get(g)
        present = [v for v in vals.values() if v is not None]
        row["mean_over_groups"] = mean(present)
        row["std_over_groups"] = sample_std(present)
        rows.append(row)
    return rows


def paired_differences(records: Sequence[dict], reference: str = "hdrr", score_key: str = "score",
                       stat: str = "mean") -> list[dict]:
    """Paired per-group differences `reference - X` for every other system X: the difference in each
    group (`d_g1`..), their mean and sample std over groups, and in how many groups the reference is
    ahead. Only groups where both systems have judged queries count."""
    by = _by_system(records)
    if reference not in by:
        return []
    ref = _group_values(by[reference], score_key, stat)
    rows = []
    for system in systems_of(records):
        if system == reference:
            continue
        other = _group_values(by[system], score_key, stat)
        diffs = {g: ref_g - other_g for g in sorted(set(ref) & set(other))
                 if (ref_g := ref[g]) is not None and (other_g := other[g]) is not None}
        row: dict[str, Any] = {"comparison": f"{reference} - {system}", "reference": reference, "system": system,
                               "stat": stat}
        for g, d in diffs.items():
            row[f"d_g{g + 1}"] = d
        row["n_groups"] = len(diffs)
        row["mean_diff"] = mean(diffs.values())
        row["std_diff"] = sample_std(diffs.values())
        row["groups_reference_ahead"] = sum(d > 0 for d in diffs.values())
        rows.append(row)
    return rows


def routing_breakdown(records: Sequence[dict], score_key: str = "score") -> list[dict]:
    """Per system and routing status: count, share of the system's queries, mean score, P(s=1), P(s>=8)."""
    by = _by_system(records)
    rows = []
    for system in systems_of(records):
        recs = by[system]
        statuses: dict[str, list[dict]] = defaultdict(list)
        for r in recs:
            statuses[r.get("routing_status") or "unknown"].append(r)
        for status in sorted(statuses, key=lambda s: (-len(statuses[s]), s)):
            st = score_stats(_scores(statuses[status], score_key))
            rows.append({"system": system, "routing_status": status, "count": len(statuses[status]),
                         "share": len(statuses[status]) / len(recs), "mean_score": st["mean"],
                         "failure_rate": st["failure_rate"], "correct_rate": st["correct_rate"]})
    return rows


# --------------------------------------------------------------------------------------------------
# cost
# --------------------------------------------------------------------------------------------------
def cost_table(records: Sequence[dict], index_meta: Optional[dict] = None) -> list[dict]:
    """Per system: mean LLM calls, prompt / completion / context tokens and latency per query; plus the
    index-time LLM cost (`index_llm_calls`, `index_prompt_tokens`, `index_completion_tokens`) of systems
    whose index variant was built with an LLM (cbr_llm_ctx: meta keys `variant_llmctx_*`)."""
    index_meta = index_meta or {}
    by = _by_system(records)
    rows = []
    for system in systems_of(records):
        recs = by[system]
        row: dict[str, Any] = {"system": system, "queries": len(recs)}
        for key in ("llm_calls", "prompt_tokens", "completion_tokens", "context_tokens"):
            row[f"{key}_per_query"] = mean(r.get(key) for r in recs)
        row["total_llm_calls"] = sum(int(r.get("llm_calls") or 0) for r in recs)
        row["total_llm_calls_saved"] = sum(int(r.get("llm_calls_saved") or 0) for r in recs)
        row["fast_path_share"] = _share(sum(bool(r.get("fast_path")) for r in recs), len(recs))
        row["reader_confident_share"] = _share(sum(bool(r.get("reader_confident")) for r in recs), len(recs))
        row["latency_ms_mean"] = mean(r.get("latency_ms") for r in recs)
        row["latency_ms_median"] = median(r.get("latency_ms") for r in recs)
        variant = INDEX_COST_SYSTEMS.get(system)
        for key in ("llm_calls", "prompt_tokens", "completion_tokens"):
            v = index_meta.get(f"variant_{variant}_{key}") if variant else None
            row[f"index_{key}"] = int(float(v)) if v not in (None, "") else None
        rows.append(row)
    return rows


# --------------------------------------------------------------------------------------------------
# retrieval (no judge needed)
# --------------------------------------------------------------------------------------------------
def evidence_page_recall(evidence: Sequence[dict], contexts: Sequence[dict]) -> Optional[float]:
    """Share of gold evidence pages (doc_id, page) that fall inside some context's
    [page_start, page_end] of the same document (None when there is no evidence)."""
    ev = {(e["doc_id"], int(e["page"])) for e in evidence or [] if e.get("doc_id") and e.get("page") is not None}
    if not ev:
        return None
    hit = 0
    for doc, page in ev:
        for c in contexts or []:
            if c.get("doc_id") != doc or c.get("page_start") is None:
                continue
            end = c["page_end"] if c.get("page_end") is not None else c["page_start"]
            if int(c["page_start"]) <= page <= int(end):
                hit += 1
                break
    return hit / len(ev)


# the judge's own, more lenient tail (group-type words and "the" too, any number of them): a company is named
# when the answer says "Berkshire Hathaway" for "Berkshire Hathaway Inc." and "Alphabet" for "Alphabet Holdings";
# `finrag.tools.routing.text.clean_company_name` is the system's cleaning, kept apart so scores do not move with it
_SUFFIX_RE = re.compile(r"[,\s]+(incorporated|inc|corporation|corp|company|co|plc|ltd|limited|llc|holdings|group|"
                        r"the)\.?$", re.I)


def _norm_text(s: str) -> str:
    s = s.lower().replace("\u2019", "'").replace("&", " and ")
    return re.sub(r"\s+", " ", s)


def company_named(company: str, answer: str, aliases: Sequence[str] = ()) -> bool:
    """Does the answer name the company (or one of its aliases)? Case-insensitive, whole words, ignoring
    legal suffixes (Inc., Corporation, ...) and treating '&' as 'and'."""
    text = _norm_text(answer or "")
    names = {company, *aliases}
    variants = set()
    for n in names:
        if not n:
            continue
        n = n.strip()
        variants.add(n)
        base = n
        while True:
            stripped = _SUFFIX_RE.sub("", base).strip()
            if stripped == base or not stripped:
                break
            base = stripped
        variants.add(base)
    for v in variants:
        v = _norm_text(v).strip()
        if v and re.search(r"(?<![a-z0-9])" + re.escape(v) + r"(?![a-z0-9])", text):
            return True
    return False


def per_query_retrieval(r: dict) -> dict:
    """Retrieval and coverage values of one record (None where undefined)."""
    gold = [d for d in r.get("gold_docs") or [] if d]
    gold_set = set(gold)
    routed = set(r.get("routed_docs") or [])
    ctx = r.get("contexts") or []
    ctx_docs = {c.get("doc_id") for c in ctx}
    out: dict[str, Any] = {"exact_routing": None, "gold_in_routed": None, "routing_coverage": None,
                           "retrieval_coverage": None, "wrong_doc_chunks": None, "n_contexts": len(ctx),
                           "evidence_recall": evidence_page_recall(r.get("evidence") or [], ctx),
                           "evidence_hit": None, "answer_coverage": None}
    if out["evidence_recall"] is not None:
        out["evidence_hit"] = out["evidence_recall"] > 0
    if gold_set:
        out["exact_routing"] = routed == gold_set
        out["gold_in_routed"] = gold_set <= routed
        out["routing_coverage"] = len(gold_set & routed) / len(gold_set)
        out["retrieval_coverage"] = len(gold_set & ctx_docs) / len(gold_set)
        out["wrong_doc_chunks"] = sum(1 for c in ctx if c.get("doc_id") not in gold_set)
    companies = [c for c in r.get("companies") or [] if c]
    if companies:
        aliases = r.get("company_aliases") or {}
        named = sum(company_named(c, r.get("answer") or "", aliases.get(c, ())) for c in companies)
        out["answer_coverage"] = named / len(companies)
    return out


_NOT_ROUTING = ("not_routed", "error", "unknown", "", None)


def _routes(recs: Sequence[dict]) -> bool:
    """Does the system route at all? (CBR-like systems report no routed docs and status `not_routed`.)"""
    return any(r.get("routed_docs") or r.get("routing_status") not in _NOT_ROUTING for r in recs)


def retrieval_table(records: Sequence[dict]) -> list[dict]:
    """Per system, over queries with gold documents / evidence:

    - `exact_routing_acc`: routed_docs == the gold document set; `gold_in_routed`: every gold doc routed
      (both None for a system that never routes: no routed documents and status `not_routed`, e.g. CBR);
    - `evidence_recall`: mean per-query share of gold evidence pages inside some context's page span;
      `evidence_hit_rate`: share of queries with at least one;
    - `wrong_doc_chunk_share`: contexts whose doc_id is not a gold doc, over all contexts (pooled);
    - `mean_contexts`, `mean_context_tokens`, `mean_latency_ms`."""
    by = _by_system(records)
    rows = []
    for system in systems_of(records):
        recs = by[system]
        pq = [(r, per_query_retrieval(r)) for r in recs]
        routes = _routes(recs)
        with_gold = [(r, p) for r, p in pq if p["exact_routing"] is not None]
        with_ev = [p for _, p in pq if p["evidence_recall"] is not None]
        n_ctx = sum(p["n_contexts"] for _, p in with_gold)
        rows.append({
            "system": system,
            "queries": len(recs),
            "queries_with_gold_docs": len(with_gold),
            "exact_routing_acc": mean(float(p["exact_routing"]) for _, p in with_gold) if routes else None,
            "gold_in_routed": mean(float(p["gold_in_routed"]) for _, p in with_gold) if routes else None,
            "queries_with_evidence": len(with_ev),
            "evidence_recall": mean(p["evidence_recall"] for p in with_ev),
            "evidence_hit_rate": mean(float(p["evidence_hit"]) for p in with_ev),
            "wrong_doc_chunk_share": _share(sum(p["wrong_doc_chunks"] for _, p in with_gold), n_ctx),
            "mean_contexts": mean(p["n_contexts"] for _, p in pq),
            "mean_context_tokens": mean(r.get("context_tokens") for r in recs),
            "mean_latency_ms": mean(r.get("latency_ms") for r in recs),
        })
    return rows


def retrieval_by_type_table(records: Sequence[dict]) -> list[dict]:
    """`retrieval_table` per system and question type (FinanceBench `question_type`: metrics-generated,
    domain-relevant, novel-generated; or a dataset's template); [] when the records have no types."""
    types = sorted({r.get("question_type") or "(none)" for r in records})
    if types == ["(none)"]:
        return []
    rows = []
    for qtype in types:
        part = [r for r in records if (r.get("question_type") or "(none)") == qtype]
        rows += [{"question_type": qtype, **row} for row in retrieval_table(part)]
    order = {s: i for i, s in enumerate(systems_of(records))}
    return sorted(rows, key=lambda row: (order.get(row["system"], 99), row["question_type"]))


def coverage_table(records: Sequence[dict], min_docs: int = 2) -> list[dict]:
    """Multi-document coverage per system over queries with at least `min_docs` gold documents:
    routing coverage (share of gold docs among the routed docs), retrieval coverage (share of gold docs
    with at least one context chunk) and answer coverage (share of the gold companies named in the
    answer); each is the mean of the per-query shares. Also the share of queries fully covered.
    Routing coverage is None for a system that never routes (see `retrieval_table`)."""
    by = _by_system(records)
    rows = []
    for system in systems_of(records):
        multi = [per_query_retrieval(r) | {"_r": r} for r in by[system] if len(set(r.get("gold_docs") or [])) >= min_docs]
        if not multi:
            continue
        cov_a = [p["answer_coverage"] for p in multi if p["answer_coverage"] is not None]
        routes = _routes(by[system])
        rows.append({
            "system": system,
            "queries": len(multi),
            "routing_coverage": mean(p["routing_coverage"] for p in multi) if routes else None,
            "retrieval_coverage": mean(p["retrieval_coverage"] for p in multi),
            "answer_coverage": mean(cov_a),
            "all_routed": mean(float(p["routing_coverage"] == 1.0) for p in multi) if routes else None,
            "all_retrieved": mean(float(p["retrieval_coverage"] == 1.0) for p in multi),
            "all_named": mean(float(x == 1.0) for x in cov_a),
            "mean_score": mean(_scores([p["_r"] for p in multi])),
        })
    return rows


# --------------------------------------------------------------------------------------------------
# cross-evaluator agreement
# --------------------------------------------------------------------------------------------------
def agreement_table(records: Sequence[dict], key_a: str = "score", key_b: str = "score2") -> dict:
    """Agreement of two judges (records with both scores and no system error): per system (Spearman,
    mean |delta|, exact / within-1 agreement, kappa of s>=8, the two means), over all records, and the
    system-level Spearman between the systems' mean scores under each judge. Empty when no record has
    both scores."""
    both = [r for r in records if r.get(key_a) is not None and r.get(key_b) is not None and not r.get("error")]
    if not both:
        return {}
    keep = ("n", "spearman", "mean_abs_delta", "exact_agreement", "within_1", "binary_agreement",
            "binary_kappa", "mean_a", "mean_b")
    by = _by_system(both)
    per_system: list[dict[str, Any]] = []
    for system in systems_of(both):
        recs = by[system]
        agr = cross_evaluator_agreement([r[key_a] for r in recs], [r[key_b] for r in recs])
        per_system.append({"system": system, **{k: agr.get(k) for k in keep}})
    overall = cross_evaluator_agreement([r[key_a] for r in both], [r[key_b] for r in both])
    ma = [row["mean_a"] for row in per_system]
    mb = [row["mean_b"] for row in per_system]
    return {
        "per_system": per_system,
        "overall": {k: overall.get(k) for k in keep},
        "system_level": {"n_systems": len(per_system), "spearman": spearman(ma, mb),
                         "rank_a": _ranks(dict(zip([r["system"] for r in per_system], ma))),
                         "rank_b": _ranks(dict(zip([r["system"] for r in per_system], mb)))},
    }


def _ranks(values: dict[str, float]) -> list[str]:
    return [k for k, _ in sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))]
