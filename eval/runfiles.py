"""The files of a run directory (`finrag eval run --out DIR`), shared by the runner that writes them
and the report that reads them: where an answer or a judgement lives (`answer_path`,
`judgement_path`, with `safe_name` / `judge_slug` for file-system safe names), atomic JSON writes,
tolerant JSON reads, and the run's `queries.jsonl`.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Optional

__all__ = ["safe_name", "judge_slug", "answer_path", "judgement_path", "atomic_write_json", "read_json",
           "load_run_queries"]


def safe_name(qid: str) -> str:
    """A file-system safe file stem for a query id (a short hash is added when characters were replaced)."""
    s = re.sub(r"[^A-Za-z0-9._-]", "_", str(qid))[:120].strip(".") or "q"
    if s != str(qid):
        s += "-" + hashlib.sha1(str(qid).encode()).hexdigest()[:8]
    return s


def judge_slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("_") or "judge"


def answer_path(out: Path, system: str, qid: str) -> Path:
    return Path(out) / "answers" / system / f"{safe_name(qid)}.json"


def judgement_path(out: Path, judge_name: str, system: str, qid: str) -> Path:
    return Path(out) / "judgements" / judge_slug(judge_name) / system / f"{safe_name(qid)}.json"


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write JSON to a temporary file in the same folder, then rename it over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, ensure_ascii=False, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_json(path: Path) -> Optional[Any]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def load_run_queries(out: Path) -> list[dict]:
    path = Path(out) / "queries.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no queries.jsonl in {out} (is it a `finrag eval run` output folder?)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
