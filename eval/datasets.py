"""Evaluation datasets: loaders that normalise every format to one query dict, and the paper's
stratified group sampling.

A normalised query is a plain dict::

    {"id": "financebench_id_00005", "question": "...", "answer": "... (may be empty)",
     "doc_ids": ["CORNING_2022_10K"],                # gold documents (file name without extension), may be []
     "evidence": [{"doc_id": "CORNING_2022_10K", "page": 47}],   # ZERO-based pages, may be []
     "meta": {"company": "Corning", "question_type": "domain-relevant", ...}}

Formats (`load_dataset(path, answers=None)` detects them from the file):

- FinanceBench JSONL (`financebench_id`, `doc_name`, `evidence[{doc_name, evidence_page_num}]`, ...), as
  ../shared/data/financebench/questions_dev.jsonl;
- FinDER-style CSV: `query_id,query` (other columns go to `meta`), with the ground-truth answers in a
  separate CSV or JSONL given by `answers=` (columns/keys `query_id` or `id`, and `answer`);
- plain JSONL `{id, question, answer}` with optional `doc_ids` / `doc_id` / `doc_name`, `evidence`
  (`[{doc_id, page}]` or FinanceBench-style items), `evidence_pages` (pages of `doc_id`) and any other
  fields (kept in `meta`: e.g. `companies`, `template`, `question_type`).

Sampling: `stratified_groups(queries, groups=5, per_group=300, seed=...)` deals a stratified sample into
G disjoint groups of N (the paper: 5 x 300). Every system is run on the same groups (paired design).
"""
from __future__ import annotations

import csv
import hashlib
import json
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

__all__ = [
    "DATA_DIR",
    "CROSS_COMPANY",
    "load_dataset",
    "load_financebench",
    "load_finder_csv",
    "load_jsonl",
    "load_answers",
    "detect_format",
    "stratified_groups",
    "GroupSplit",
    "dataset_fingerprint",
]

DATA_DIR = Path(__file__).resolve().parent / "data"
CROSS_COMPANY = DATA_DIR / "cross_company.jsonl"

_ID_KEYS = ("id", "query_id", "qid", "_id", "financebench_id", "question_id")
_Q_KEYS = ("question", "query", "text", "question_text")
_A_KEYS = ("answer", "gold_answer", "ground_truth", "reference_answer", "expected_answer", "gold")


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def _doc_id(name: Any) -> str:
    """A document id from a doc name or a file name/path: the file name without extension."""
    s = str(name or "").strip()
    if not s:
        return ""
    s = s.replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"\.(pdf|txt|htm|html|md)$", "", s, flags=re.I)


def _split_list(value: Any) -> list[str]:
    """A list from a list, a JSON list in a string, or a ';' / '|' / ',' separated string."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    s = str(value).strip()
    if not s:
        return []
    if s.startswith("["):
        try:
            return [str(v).strip() for v in json.loads(s) if str(v).strip()]
        except ValueError:
            pass
    sep = ";" if ";" in s else "|" if "|" in s else ","
    return [p.strip() for p in s.split(sep) if p.strip()]


def _first(row: dict, keys: Sequence[str], default: Any = None) -> Any:
    for k in keys:
        if k in row and row[k] not in (None, ""):
            return row[k]
    return default


def _text(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x).strip()


def _dedup(seq: Iterable[str]) -> list[str]:
    out: list[str] = []
    for s in seq:
        if s and s not in out:
            out.append(s)
    return out


def _evidence_items(items: Any, default_doc: str = "") -> list[dict]:
    """Normalise evidence to [{doc_id, page}] (zero-based pages)."""
    out: list[dict] = []
    if not items:
        return out
    if isinstance(items, str):
        try:
            items = json.loads(items)
        except ValueError:
            return out
    for it in items:
        if isinstance(it, dict):
            doc = _doc_id(_first(it, ("doc_id", "doc_name", "document", "doc"), default_doc))
            page = _first(it, ("page", "evidence_page_num", "page_num", "page_index"))
        elif isinstance(it, (int, float)) or (isinstance(it, str) and it.strip().isdigit()):
            doc, page = default_doc, it
        else:
            continue
        if page is None or not doc:
            continue
        try:
            rec = {"doc_id": doc, "page": int(page)}
        except (TypeError, ValueError):
            continue
        if rec not in out:
            out.append(rec)
    return out


def _read_jsonl(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8-sig")
    stripped = text.lstrip()
    if stripped.startswith("["):  # a JSON array of objects is accepted too
        rows = json.loads(stripped)
        if not all(isinstance(r, dict) for r in rows):
            raise ValueError(f"{path}: expected a JSON array of objects")
        return rows
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: not valid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{path}:{n}: expected a JSON object")
        rows.append(obj)
    return rows


def _read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        sample = fh.read(4096)
        fh.seek(0)
        try:
            dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
        except csv.Error:
            dialect = csv.excel
        return [{(k or "").strip(): v for k, v in row.items()} for row in csv.DictReader(fh, dialect=dialect)]


def _check_ids(rows: list[dict], path: Path) -> list[dict]:
    seen: set[str] = set()
    for r in rows:
        if not r["question"]:
            raise ValueError(f"{path}: query {r['id']!r} has no question")
        if r["id"] in seen:
            raise ValueError(f"{path}: duplicate query id {r['id']!r}")
        seen.add(r["id"])
    return rows


# --------------------------------------------------------------------------------------------------
# loaders
# --------------------------------------------------------------------------------------------------
def load_financebench(path: str | Path) -> list[dict]:
    """FinanceBench JSONL (questions_dev.jsonl)."""
    path = Path(path)
    out = []
    for n, r in enumerate(_read_jsonl(path), 1):
        doc = _doc_id(r.get("doc_name"))
        evidence = _evidence_items(r.get("evidence"), doc)
        doc_ids = _dedup([doc] + [e["doc_id"] for e in evidence])
        meta = {k: r.get(k) for k in ("company", "doc_name", "question_type", "question_reasoning",
                                       "domain_question_num", "justification", "dataset_subset_label")
                if r.get(k) not in (None, "")}
        if r.get("company"):
            meta["companies"] = [r["company"]]
        meta["format"] = "financebench"
        out.append({"id": _text(_first(r, ("financebench_id",) + _ID_KEYS, n)), "question": _text(r.get("question")),
                    "answer": _text(r.get("answer")), "doc_ids": doc_ids, "evidence": evidence, "meta": meta})
    return _check_ids(out, path)


def _normalise_row(r: dict, n: int, fmt: str) -> dict:
    qid = _text(_first(r, _ID_KEYS, n))
    question = _text(_first(r, _Q_KEYS, ""))
    answer = _text(_first(r, _A_KEYS, ""))
    doc_ids = [_doc_id(d) for d in _split_list(_first(r, ("doc_ids", "gold_docs", "documents"), None))]
    single = _doc_id(_first(r, ("doc_id", "doc_name", "document"), ""))
    if single:
        doc_ids.insert(0, single)
    evidence = _evidence_items(r.get("evidence"), single or (doc_ids[0] if len(doc_ids) == 1 else ""))
    pages = r.get("evidence_pages")
    if pages not in (None, "") and single:
        evidence += [e for e in _evidence_items(_split_list(pages) if isinstance(pages, str) else pages, single)
                     if e not in evidence]
    doc_ids = _dedup(doc_ids + [e["doc_id"] for e in evidence])
    used = set(_ID_KEYS) | set(_Q_KEYS) | set(_A_KEYS) | {"doc_ids", "gold_docs", "documents", "doc_id",
                                                           "document", "evidence", "evidence_pages"}
    meta = {k: v for k, v in r.items() if k not in used and v not in (None, "")}
    if "doc_name" in r and r.get("doc_name"):
        meta["doc_name"] = r["doc_name"]
    if "companies" in meta:
        meta["companies"] = _split_list(meta["companies"])
    elif meta.get("company"):
        meta["companies"] = [str(meta["company"])]
    meta["format"] = fmt
    return {"id": qid, "question": question, "answer": answer, "doc_ids": doc_ids, "evidence": evidence,
            "meta": meta}


def load_jsonl(path: str | Path) -> list[dict]:
    """Plain JSONL: {id, question, answer} plus optional gold documents / evidence / anything else."""
    path = Path(path)
    return _check_ids([_normalise_row(r, n, "jsonl") for n, r in enumerate(_read_jsonl(path), 1)], path)


def load_answers(path: str | Path) -> dict[str, str]:
    """Ground-truth answers keyed by query id, from a CSV or JSONL file."""
    path = Path(path)
    rows = _read_csv(path) if path.suffix.lower() in (".csv", ".tsv") else _read_jsonl(path)
    out: dict[str, str] = {}
    for n, r in enumerate(rows, 1):
        qid = _first(r, _ID_KEYS)
        ans = _first(r, _A_KEYS)
        if qid is None:
            raise ValueError(f"{path}:{n}: no id column (one of {', '.join(_ID_KEYS)})")
        if ans is None and not any(k in r for k in _A_KEYS):
            raise ValueError(f"{path}:{n}: no answer column (one of {', '.join(_A_KEYS)})")
        out[_text(qid)] = _text(ans)
    return out


def load_finder_csv(path: str | Path, answers: str | Path | None = None) -> list[dict]:
    """FinDER-style CSV (`query_id,query`, other columns kept in meta) + optional answers file."""
    path = Path(path)
    rows = [_normalise_row(r, n, "finder_csv") for n, r in enumerate(_read_csv(path), 1)]
    if answers:
        gold = load_answers(answers)
        missing = 0
        for r in rows:
            if r["id"] in gold:
                r["answer"] = gold[r["id"]]
            elif not r["answer"]:
                missing += 1
        if missing:
            r0 = rows[0]["meta"] if rows else {}
            r0.setdefault("_warnings", []).append(f"{missing} queries have no ground-truth answer in {answers}")
    return _check_ids(rows, path)


def detect_format(path: str | Path) -> str:
    """'financebench', 'finder_csv' or 'jsonl'."""
    path = Path(path)
    if path.suffix.lower() in (".csv", ".tsv"):
        return "finder_csv"
    rows = _read_jsonl(path)
    if not rows:
        raise ValueError(f"{path}: the dataset is empty")
    first = rows[0]
    if "financebench_id" in first:
        return "financebench"
    if not any(k in first for k in _Q_KEYS):
        raise ValueError(f"{path}: unrecognised dataset format (no 'question' field in the first row)")
    return "jsonl"


def load_dataset(path: str | Path, answers: str | Path | None = None) -> list[dict]:
    """Load any supported dataset (see the module docstring); `answers` overrides/sets gold answers."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such dataset file: {path}")
    fmt = detect_format(path)
    if fmt == "finder_csv":
        return load_finder_csv(path, answers)
    rows = load_financebench(path) if fmt == "financebench" else load_jsonl(path)
    if answers:
        gold = load_answers(answers)
        for r in rows:
            if r["id"] in gold:
                r["answer"] = gold[r["id"]]
    return rows


def dataset_fingerprint(queries: Sequence[dict]) -> str:
    """A short hash of the ids and questions (to notice a different dataset in an existing run dir)."""
    h = hashlib.sha256()
    for q in queries:
        h.update(f"{q['id']}\x00{q['question']}\x00".encode())
    return h.hexdigest()[:16]


# --------------------------------------------------------------------------------------------------
# stratified groups
# --------------------------------------------------------------------------------------------------
def _stratum(q: dict, key: str | None) -> str:
    if not key:
        return ""
    v = q.get(key, None) if key in ("id", "question", "answer") else (q.get("meta") or {}).get(key)
    if v is None and key == "company":
        comps = (q.get("meta") or {}).get("companies") or []
        v = comps[0] if comps else None
    if isinstance(v, (list, tuple)):
        v = "+".join(map(str, v))
    return "" if v in (None, "") else str(v)


def choose_stratify_key(queries: Sequence[dict], requested: str | None = "auto") -> str | None:
    """`auto`: question_type when most queries have one, else company, else template, else none."""
    if requested in (None, "", "none"):
        return None
    if requested != "auto":
        return requested
    for key in ("question_type", "template", "category", "company"):
        have = sum(1 for q in queries if _stratum(q, key))
        if queries and have >= 0.8 * len(queries) and len({_stratum(q, key) for q in queries}) > 1:
            return key
    return None


class GroupSplit(dict):
    """The result of `stratified_groups` (a dict, saved as groups.json):
    `groups` (list of lists of ids), `seed`, `stratify`, `per_group`, `n_groups`, `n_available`,
    `n_used`, `used_all` and a human-readable `note`."""

    @property
    def groups(self) -> list[list[str]]:
        return self["groups"]

    def group_of(self) -> dict[str, int]:
        return {qid: g for g, ids in enumerate(self["groups"]) for qid in ids}


def _largest_remainder(sizes: dict[str, int], total: int) -> dict[str, int]:
    n = sum(sizes.values())
    raw = {k: total * v / n for k, v in sizes.items()}
    quota = {k: int(x) for k, x in raw.items()}
    rest = total - sum(quota.values())
    for k in sorted(raw, key=lambda k: (-(raw[k] - quota[k]), k))[:rest]:
        quota[k] += 1
    return quota


def stratified_groups(queries: Sequence[dict], groups: int = 5, per_group: Optional[int] = 300, seed: int = 2024,
                      stratify: str | None = "auto") -> GroupSplit:
    """Split queries into `groups` disjoint groups of `per_group` queries, stratified by `stratify`.

    A stratified sample of `groups * per_group` queries is drawn (proportional allocation, largest
    remainder), each stratum is shuffled with `random.Random(seed)` and the strata are dealt round-robin
    over the groups, so every group gets (nearly) the same mix. When `groups * per_group` is at least
    the number of queries (or `per_group` is None), every query is used and split evenly (group sizes
    differ by at most one); `used_all` and `note` say so. Deterministic for a given seed and input."""
    if groups < 1:
        raise ValueError("groups must be >= 1")
    if per_group is not None and per_group < 1:
        raise ValueError("per_group must be >= 1")
    key = choose_stratify_key(queries, stratify)
    rng = random.Random(seed)
    strata: dict[str, list[dict]] = defaultdict(list)
    for q in queries:
        strata[_stratum(q, key)].append(q)
    for k in sorted(strata):  # sorted: the rng consumption order does not depend on dict order
        strata[k] = sorted(strata[k], key=lambda q: q["id"])
        rng.shuffle(strata[k])
    n = len(queries)
    if per_group is None or groups * per_group >= n:
        take = {k: len(v) for k, v in strata.items()}
        used_all = True
        note = (f"{groups} x {per_group} = {groups * per_group} exceeds the {n} queries available: all {n} "
                f"queries are used, split evenly into {groups} groups" if per_group is not None else
                f"all {n} queries split evenly into {groups} groups")
    else:
        take = _largest_remainder({k: len(v) for k, v in strata.items()}, groups * per_group)
        used_all = False
        note = f"stratified sample of {groups} x {per_group} = {groups * per_group} of {n} queries"
    if n < groups:
        raise ValueError(f"cannot make {groups} groups from {n} queries")
    dealt: list[list[str]] = [[] for _ in range(groups)]
    i = 0
    for k in sorted(strata):
        for q in strata[k][:take[k]]:
            dealt[i % groups].append(q["id"])
            i += 1
    if key:
        note += f", stratified by {key}"
    return GroupSplit(groups=dealt, seed=seed, stratify=key, per_group=per_group, n_groups=groups,
                      n_available=n, n_used=sum(map(len, dealt)), used_all=used_all, note=note,
                      group_sizes=[len(g) for g in dealt])
