"""Time building the routing registry of an index (what a process does when the stored one is stale).

    python bench/registry_build.py --index /tmp/finrag-scale/x100 [--old]

Reads the documents' identities (read-only) and builds `Registry` from them; `--old` also times the
company-key merge as a plain scan over every earlier key (the code before it kept indexes, in
tests/unit/test_registry_merge.py) and checks that both merge alike.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--old", action="store_true")
    args = ap.parse_args()
    from finrag.state.schema import DocumentInfo
    from finrag.tools.routing.registry import Registry

    conn = sqlite3.connect(f"file:{args.index / 'finrag.sqlite'}?mode=ro", uri=True)
    docs = [DocumentInfo(**json.loads(r[0])) for r in conn.execute("SELECT info_json FROM documents")]
    Registry(docs[:5])  # imports and word-frequency table out of the timing
    t = time.perf_counter()
    reg = Registry(docs)
    out = {"filings": len(docs), "companies": len(set(reg._doc_key.values())),
           "registry_s": round(time.perf_counter() - t, 2)}
    if args.old:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit"))
        from test_registry_merge import reference_merge

        t = time.perf_counter()
        same = reference_merge(reg) == reg._doc_key
        out.update({"old_key_merge_s": round(time.perf_counter() - t, 2), "same_keys": same})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
