"""Issue 49's faults for bench/fault_injection.py (`--only round4`): a long run under a low open-file limit, a
filing swapped on disk after indexing, and the thread store deleted while turns go on.

    python -m bench.fault_injection --only round4 --out docs/results/bench_faults_round4.json

* leak: `QUESTIONS` questions through `finrag.run_query` (HDRR, the demo questions cycled) in a process whose
  RLIMIT_NOFILE is 256, then as many turns of conversations: every question must be answered, from the asked
  company's filing, with the process's open files flat (/proc/self/fd after 10% and at the end).
* swap: for each ordered pair of the three companies, the second one's FY2022 PDF copied over the first one's
  (modification time restored), page-table file removed, and the first company's revenue asked in a fresh process:
  an answer that carries the other company's figure is a wrong-company answer.
* deleted store: turns on a thread, the store's files deleted after half of them, the rest of the turns, then a
  "restart" (a new process): every turn answered after the deletion must be in the store found at the path (a turn
  written into the unlinked file is a lost turn).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

QUESTIONS = 600

LEAK = textwrap.dedent("""
    import json, os, resource, sys
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    from finrag import run_query
    index, n = sys.argv[1], int(sys.argv[2])
    asks = [("ACMEWIDGETS", "Acme Widgets"), ("BOREALISENERGY", "Borealis Energy"), ("COBALTSOFTWARE", "Cobalt Software")]
    out = {"answered": 0, "wrong_company": 0, "errors": 0, "fds": []}
    for mode in ("plain", "thread"):
        for i in range(n):
            key, name = asks[i % 3]
            q = f"What was {name}'s total revenue in FY{2022 + (i // 3) % 2}?"
            try:
                a = run_query(q, "hdrr", index=index, thread_id=f"{mode}-{i % 7}" if mode == "thread" else None)
            except Exception as exc:
                out["errors"] += 1
                out["last_error"] = str(exc)[:200]
                continue
            out["answered"] += bool(a.answer)
            out["wrong_company"] += any(not d.startswith(key) for d in a.routing.routed_docs)
            if i + 1 in (n // 10, n):
                out["fds"].append(len(os.listdir("/proc/self/fd")))
    print(json.dumps(out))
""")

ASK = textwrap.dedent("""
    import sys
    from finrag import run_query
    print(run_query(sys.argv[2], "sfr", index=sys.argv[1]).answer)
""")

TURNS = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from finrag import run_query, threads
    index, n = sys.argv[1], int(sys.argv[2])
    store = Path(index) / threads.STORE_NAME
    answered_after = 0
    for i in range(n):
        if i == n // 2:
            for f in Path(index).glob(threads.STORE_NAME + "*"):
                f.unlink()
        q = "What was Acme Widgets' total revenue in FY2022?" if i % 2 == 0 else "And in FY2023?"
        try:
            run_query(q, "hdrr", index=index, thread_id="t")
            answered_after += i >= n // 2
        except Exception as exc:
            print(json.dumps({"refused": str(exc)[:200]}), file=sys.stderr)
    print(json.dumps({"answered_after_deletion": answered_after, "store_exists": store.exists()}))
""")

READ = textwrap.dedent("""
    import json, sys
    from finrag import threads
    try:
        print(json.dumps({"turns": len(threads.read("t", sys.argv[1]))}))
    except threads.ThreadNotFound:
        print(json.dumps({"turns": 0}))
""")


def _py(py: str, env: dict, code: str, *args: str, timeout: float = 1800) -> dict | str:
    r = subprocess.run([py, "-c", code, *args], capture_output=True, text=True, env=env, timeout=timeout)
    last = (r.stdout.strip().splitlines() or [""])[-1]
    try:
        return json.loads(last)
    except ValueError:
        return r.stdout.strip() if r.returncode == 0 else f"exit {r.returncode}: {r.stderr.strip()[-300:]}"


def round4(work: Path, filings: Path, clean: Path, env: dict, py: str = sys.executable) -> dict[str, Any]:
    """The three scenarios over copies of the clean index `clean` (of `filings`), in `work`."""
    out: dict[str, Any] = {}
    index = work / "r4-leak"
    shutil.copytree(clean, index)
    leak = _py(py, env, LEAK, str(index), str(QUESTIONS))
    out["leak"] = leak
    # swap: a copy of the filings and an index of them whose paths are those copies
    swap_files, swap_index = work / "r4-filings", work / "r4-swap"
    shutil.copytree(filings, swap_files)
    subprocess.run([str(Path(py).with_name("finrag")), "index", str(swap_files), "--index", str(swap_index),
                    "--quiet"], env=env, capture_output=True, timeout=1800, check=True)
    names = {"ACMEWIDGETS": "Acme Widgets", "BOREALISENERGY": "Borealis Energy", "COBALTSOFTWARE": "Cobalt Software"}
    figures: dict[str, str] = {}
    for key, name in names.items():
        ans = _py(py, env, ASK, str(swap_index), f"What was {name}'s total revenue in FY2022?")
        figures[key] = str(ans).split(" was ", 1)[-1].split(" ", 1)[0] if " was " in str(ans) else ""
    swaps, wrong = [], 0
    for a in names:
        for b in names:
            if a == b:
                continue
            target, keep = swap_files / f"{a}_2022_10K.pdf", work / "r4-keep.pdf"
            shutil.copy2(target, keep)
            st = os.stat(target)
            shutil.copyfile(swap_files / f"{b}_2022_10K.pdf", target)
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
            (swap_index / "page_tables.sqlite").unlink(missing_ok=True)
            ans = str(_py(py, env, ASK, str(swap_index), f"What was {names[a]}'s total revenue in FY2022?"))
            bad = bool(figures[b]) and figures[b] in ans
            wrong += bad
            swaps.append({"asked": a, "file_of": b, "wrong_company": bad, "answer": ans[:160]})
            shutil.copy2(keep, target)
    out["swap"] = {"swaps": len(swaps), "wrong_company": wrong, "clean_figures": figures, "runs": swaps}
    store_index = work / "r4-store"
    shutil.copytree(clean, store_index)
    turns = _py(py, env, TURNS, str(store_index), "20")
    after = _py(py, env, READ, str(store_index))
    answered = turns.get("answered_after_deletion", 0) if isinstance(turns, dict) else 0
    found = after.get("turns", 0) if isinstance(after, dict) else 0
    out["deleted_store"] = {"turns": 20, "answered_after_deletion": answered, "found_after_restart": found,
                            "lost_turns": max(0, answered - found)}
    leak_ok = isinstance(leak, dict)
    out["summary"] = {
        "questions_under_256_open_files": 2 * QUESTIONS,
        "answered": leak.get("answered") if leak_ok else 0,
        "errors": leak.get("errors") if leak_ok else None,
        "open_files_after_10pct_and_end": leak.get("fds") if leak_ok else None,
        "wrong_company_answers": (leak.get("wrong_company", 0) if leak_ok else 0) + wrong,
        "lost_turns": out["deleted_store"]["lost_turns"],
    }
    return out
