"""Run the evaluation protocol: every system on every query of the sampled groups, then the judges.

Layout of a run directory (`OUT`):

    run.json                       what was run (systems, dataset, groups, judges, index, configurable, command)
    queries.jsonl                  the normalised queries used, each with its `group`
    groups.json                    the stratified groups (same for every system: paired design)
    answers/{system}/{id}.json     one JSON contract per (system, query), written atomically; `error` on failure
    judgements/{judge}/{system}/{id}.json   one cached judge result per answer and judge
    report.md, summary.json, per_query.csv/.jsonl, tables/*.csv|json, plots/*.png   (finrag.eval.report)

(paths and JSON reads/writes of these files: finrag.eval.runfiles)

A rerun with the same `--out` skips every (system, query) whose answer file exists without `error`
(`retry_errors=False` skips failed ones too) and every judgement whose inputs did not change, so an
interrupted run resumes where it stopped.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from finrag.api import run_query as _rq
from finrag.eval.datasets import GroupSplit, dataset_fingerprint, load_dataset, stratified_groups
from finrag.eval.judges import make_judge
from finrag.eval.report import write_report
from finrag.eval.runfiles import answer_path, atomic_write_json, judgement_path, read_json
from finrag.state.systems import SYSTEMS

if TYPE_CHECKING:
    from finrag.state.contract import Answer

__all__ = ["EvalConfig", "run_eval", "run_answers", "run_judges", "parse_configurable", "run_query"]

DEFAULT_SEED = 2024


# --------------------------------------------------------------------------------------------------
# small utilities
# --------------------------------------------------------------------------------------------------
def run_query(question: str, system: str, **kwargs: Any) -> Answer | dict:
    """`finrag.run_query` (a module-level indirection, so tests can count or replace calls: a replacement
    may return the plain dict)."""
    return _rq(question, system, **kwargs)


def parse_configurable(pairs: Sequence[str] | None) -> dict:
    """`["llm=openai/gpt-4.1", "fts_k=30"]` -> {"llm": "openai/gpt-4.1", "fts_k": 30} (JSON literals parsed)."""
    out: dict[str, Any] = {}
    for p in pairs or []:
        if "=" not in p:
            raise ValueError(f"--configurable expects key=value, got {p!r}")
        k, v = p.split("=", 1)
        k = k.strip()
        if not k:
            raise ValueError(f"--configurable expects key=value, got {p!r}")
        try:
            out[k] = json.loads(v)
        except ValueError:
            out[k] = v
    return out


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# --------------------------------------------------------------------------------------------------
# judges
# --------------------------------------------------------------------------------------------------
def _judge_of(spec: Any, role: str, base_url: str | None):
    """The judge of `--judge` / `--judge2` (`make_judge` with a spec); None when no judge is given."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return None
    return make_judge(role, spec=spec, base_url=base_url)


def _judge_key(judge_name: str, q: dict, answer: str, error: str | None) -> str:
    h = hashlib.sha256()
    for part in (judge_name, q["question"], q.get("answer", ""), (q.get("meta") or {}).get("justification") or "",
                 answer or "", error or ""):
        h.update(str(part).encode())
        h.update(b"\x00")
    return h.hexdigest()[:20]


# --------------------------------------------------------------------------------------------------
# config
# --------------------------------------------------------------------------------------------------
@dataclass
class EvalConfig:
    """Everything `finrag eval run` needs (the CLI fills it from flags)."""

    out: str
    dataset: str
    systems: list[str] = field(default_factory=lambda: list(SYSTEMS))
    answers: Optional[str] = None
    index_dir: Optional[str] = None
    groups: int = 5
    per_group: Optional[int] = 300
    seed: int = DEFAULT_SEED
    stratify: Optional[str] = "auto"
    limit: Optional[int] = None
    judge: Any = "offline"
    judge2: Any = None
    judge_base_url: Optional[str] = None
    concurrency: int = 2
    configurable: dict = field(default_factory=dict)
    retry_errors: bool = True
    progress: bool = True
    report: bool = True
    plots: bool = True
    regroup: bool = False

    def manifest(self) -> dict:
        d = asdict(self)
        for k in ("judge", "judge2"):
            v = d[k]
            if v is not None and not isinstance(v, str):
                d[k] = getattr(v, "name", type(v).__name__)
        d["configurable"] = {k: (v if isinstance(v, (str, int, float, bool, type(None))) else repr(v))
                             for k, v in self.configurable.items()}
        return d


# --------------------------------------------------------------------------------------------------
# groups and queries
# --------------------------------------------------------------------------------------------------
def prepare_queries(cfg: EvalConfig, log: Callable[[str], None] = print) -> tuple[list[dict], GroupSplit]:
    """Load the dataset, draw (or reload) the groups, save groups.json and queries.jsonl; returns the
    queries in group order, each with a `group` key."""
    out = Path(cfg.out)
    queries = load_dataset(cfg.dataset, cfg.answers)
    for q in queries:
        for w in (q.get("meta") or {}).pop("_warnings", []):
            log(f"warning: {w}")
    if cfg.limit:
        queries = queries[: int(cfg.limit)]
    split = stratified_groups(queries, cfg.groups, cfg.per_group, cfg.seed, cfg.stratify)
    split["dataset"] = str(cfg.dataset)
    split["dataset_fingerprint"] = dataset_fingerprint(queries)
    split["limit"] = cfg.limit
    gpath = out / "groups.json"
    old = read_json(gpath)
    if old and not cfg.regroup and old.get("groups") != split["groups"]:
        raise ValueError(f"{gpath} holds different groups (another dataset, seed or size); use a new --out "
                         f"or pass --regroup to replace them")
    atomic_write_json(gpath, dict(split))
    by_id = {q["id"]: q for q in queries}
    ordered = []
    for g, ids in enumerate(split["groups"]):
        for qid in ids:
            ordered.append({**by_id[qid], "group": g})
    tmp = out / "queries.jsonl.tmp"
    tmp.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in ordered), encoding="utf-8")
    os.replace(tmp, out / "queries.jsonl")
    log(f"groups: {split['note']}; sizes {split['group_sizes']} (seed {split['seed']})")
    return ordered, split


# --------------------------------------------------------------------------------------------------
# answering
# --------------------------------------------------------------------------------------------------
def _error_contract(system: str, q: dict, error: str, total_ms: float) -> dict:
    return {"id": q["id"], "system": system, "question": q["question"], "answer": "",
            "routing": {"status": "error", "routed_docs": [], "reason": "", "extracted": {}},
            "contexts": [], "cost": {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "context_tokens": 0},
            "timings_ms": {"total": round(total_ms, 3)}, "error": error}


def answer_one(system: str, q: dict, out: Path, index_dir: str | None, configurable: dict) -> dict:
    """Run one system on one query and write its answer file; never raises for a query's own failure."""
    t0 = time.perf_counter()
    try:
        res = run_query(q["question"], system, index_dir=index_dir, qid=q["id"], configurable=dict(configurable))
        res = res if isinstance(res, dict) else res.model_dump()  # an Answer; the answer file is its plain dict
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # recorded in the query's file; the run goes on
        res = _error_contract(system, q, f"{type(exc).__name__}: {exc}", (time.perf_counter() - t0) * 1000)
    res["id"] = q["id"]
    res["eval"] = {"group": q.get("group"), "finished_at": _now(),
                   "wall_ms": round((time.perf_counter() - t0) * 1000, 1)}
    atomic_write_json(answer_path(out, system, q["id"]), res)
    return res


def _done(path: Path, retry_errors: bool) -> bool:
    data = read_json(path)
    return data is not None and (not retry_errors or not data.get("error"))


def run_answers(queries: Sequence[dict], systems: Sequence[str], out: Path, *, index_dir: str | None = None,
                configurable: dict | None = None, concurrency: int = 2, retry_errors: bool = True,
                progress: bool = True) -> dict:
    """Answer every (system, query) not yet finished, `concurrency` at a time; returns counts."""
    from tqdm import tqdm

    out = Path(out)
    todo = [(s, q) for q in queries for s in systems if not _done(answer_path(out, s, q["id"]), retry_errors)]
    stats = {"total": len(queries) * len(systems), "skipped": len(queries) * len(systems) - len(todo),
             "answered": 0, "errors": 0}
    if not todo:
        return stats
    conf = dict(configurable or {})
    bar = tqdm(total=len(todo), desc="answering", unit="q", disable=not progress, file=sys.stderr)
    try:
        for res in run_in_threads(answer_one, [(s, q, out, index_dir, conf) for s, q in todo], concurrency,
                                  "finrag-eval"):
            stats["answered"] += 1
            stats["errors"] += bool(res.get("error"))
            bar.update(1)
            if res.get("error"):
                bar.set_postfix_str(f"errors {stats['errors']}")
    finally:
        bar.close()
    return stats


def run_in_threads(fn, jobs: Sequence[tuple], concurrency: int, name: str):
    """Yield fn(*job) for every job as they finish, on a thread pool; on an error or Ctrl-C the queued
    jobs are cancelled instead of waited for."""
    pool = ThreadPoolExecutor(max_workers=max(1, int(concurrency)), thread_name_prefix=name)
    try:
        for fut in as_completed([pool.submit(fn, *job) for job in jobs]):
            yield fut.result()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


# --------------------------------------------------------------------------------------------------
# judging
# --------------------------------------------------------------------------------------------------
_judge_lock = threading.Lock()


def judge_one(judge, judge_name: str, system: str, q: dict, out: Path) -> tuple[Optional[dict], bool]:
    """Judge one answer (cached); returns (judgement or None when there is no gold answer, computed?)."""
    if not str(q.get("answer") or "").strip():
        return None, False
    ans = read_json(answer_path(out, system, q["id"]))
    if ans is None:
        return None, False
    path = judgement_path(out, judge_name, system, q["id"])
    key = _judge_key(judge_name, q, ans.get("answer", ""), ans.get("error"))
    cached = read_json(path)
    if cached and cached.get("key") == key:
        return cached, False
    if ans.get("error"):  # a failed query is a failure (score 1) without asking the judge
        rec = {"score": 1, "justification": f"system error: {ans['error']}", "parse_error": False,
               "usage": None, "auto": True}
    else:
        just = (q.get("meta") or {}).get("justification") or ""
        try:
            res = judge.score(q["question"], q["answer"], ans.get("answer", ""), just)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a judge failure is recorded, not fatal; a rerun retries it
            return {"score": None, "error": f"{type(exc).__name__}: {exc}"}, True
        rec = {"score": int(res.score), "justification": res.justification,
               "parse_error": bool(getattr(res, "parse_error", False)), "usage": getattr(res, "usage", None),
               "auto": False}
    rec.update({"judge": judge_name, "system": system, "id": q["id"], "key": key, "judged_at": _now()})
    atomic_write_json(path, rec)
    return rec, True


def run_judges(queries: Sequence[dict], systems: Sequence[str], out: Path, judges: Sequence[tuple[str, Any]], *,
               concurrency: int = 2, progress: bool = True) -> dict:
    """Judge every answer with every (name, judge); cached results are reused. Returns counts per judge."""
    from tqdm import tqdm

    out = Path(out)
    stats: dict[str, dict] = {}
    for name, judge in judges:
        if judge is None:
            continue
        st = {"judged": 0, "cached": 0, "no_gold": 0, "judge_errors": 0}
        items = [(s, q) for q in queries for s in systems]
        bar = tqdm(total=len(items), desc=f"judging ({name})", unit="a", disable=not progress, file=sys.stderr)
        try:
            for rec, computed in run_in_threads(judge_one, [(judge, name, s, q, out) for s, q in items],
                                                concurrency, "finrag-judge"):
                if rec is None:
                    st["no_gold"] += 1
                elif rec.get("score") is None:
                    st["judge_errors"] += 1
                elif computed:
                    st["judged"] += 1
                else:
                    st["cached"] += 1
                bar.update(1)
        finally:
            bar.close()
        stats[name] = st
    return stats


# --------------------------------------------------------------------------------------------------
# the whole protocol
# --------------------------------------------------------------------------------------------------
def _judge_name(spec: Any, judge: Any) -> str:
    if isinstance(spec, str) and spec.strip() and spec.strip().lower() not in ("auto",):
        return spec.strip()
    return getattr(judge, "name", None) or type(judge).__name__


def run_eval(cfg: EvalConfig, log: Callable[[str], None] = print, command: str = "") -> dict:
    """Answer, judge and report. Returns a summary dict (counts, judge names, report paths)."""
    unknown = [s for s in cfg.systems if s not in SYSTEMS]
    if unknown:
        raise ValueError(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
    if not cfg.systems:
        raise ValueError("no systems given")
    try:
        judge = _judge_of(cfg.judge or "offline", "judge", cfg.judge_base_url)
        judge2 = _judge_of(cfg.judge2, "judge2", cfg.judge_base_url)
    except Exception as exc:  # e.g. no OPENAI_API_KEY for openai/<model>: fail before answering anything
        raise ValueError(f"cannot create the judge ({type(exc).__name__}: {exc})") from exc
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    judges = [(_judge_name(cfg.judge, judge), judge)]
    if judge2 is not None:
        name2 = _judge_name(cfg.judge2, judge2)
        if name2 == judges[0][0]:
            name2 += "_2"
        judges.append((name2, judge2))
    queries, split = prepare_queries(cfg, log)
    manifest_path = out / "run.json"
    manifest = read_json(manifest_path) or {}
    manifest.update({"config": cfg.manifest(), "systems": list(cfg.systems), "judges": [n for n, _ in judges],
                     "index_dir": str(Path(cfg.index_dir).resolve()) if cfg.index_dir else None,
                     "n_queries": len(queries), "groups_note": split["note"], "command": command or manifest.get("command", ""),
                     "started_at": manifest.get("started_at") or _now(), "last_run_at": _now()})
    atomic_write_json(manifest_path, manifest)
    t0 = time.perf_counter()
    astats = run_answers(queries, cfg.systems, out, index_dir=cfg.index_dir, configurable=cfg.configurable,
                         concurrency=cfg.concurrency, retry_errors=cfg.retry_errors, progress=cfg.progress)
    log(f"answers: {astats['answered']} new ({astats['errors']} with errors), {astats['skipped']} already done, "
        f"{astats['total']} in all ({time.perf_counter() - t0:.1f}s)")
    t1 = time.perf_counter()
    jstats = run_judges(queries, cfg.systems, out, judges, concurrency=cfg.concurrency, progress=cfg.progress)
    for name, st in jstats.items():
        log(f"judge {name}: {st['judged']} judged, {st['cached']} cached, {st['no_gold']} without a gold answer"
            + (f", {st['judge_errors']} judge errors (rerun to retry)" if st["judge_errors"] else "")
            + f" ({time.perf_counter() - t1:.1f}s)")
    manifest.update({"answer_stats": astats, "judge_stats": jstats, "finished_at": _now()})
    atomic_write_json(manifest_path, manifest)
    result: dict[str, Any] = {"out": str(out), "answers": astats, "judges": jstats, "groups": split}
    if cfg.report:
        result["report"] = write_report(out, index_dir=cfg.index_dir, plots=cfg.plots)
        log(f"report: {result['report']['report_md']}")
    return result
