"""Open files and memory of a long `finrag batch` under a low open-file limit (issue 49 case 1).

    python -m bench.open_files --index .finrag-demo/index --n 2000 --limit 256 --out docs/results/bench_open_files.json

Writes N questions (the demo questions, cycled, distinct ids), runs `finrag batch` on them as a subprocess with
RLIMIT_NOFILE set to `--limit` (what `ulimit -n 256` sets), and samples the process's open files (/proc/PID/fd)
and resident memory (VmRSS) every 0.25 s. Reports the exit code, how many answers were written, and the open files
and RSS after the first 10% and after 90% of the answers (the most open files over the run, too).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _sample(pid: int) -> tuple[int, int] | None:
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                   if line.startswith("VmRSS"))
        return fds, rss
    except (OSError, StopIteration):
        return None


def _lines(path: Path) -> int:
    try:
        return sum(1 for _ in path.open("rb"))
    except OSError:
        return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", default=".finrag-demo/index")
    ap.add_argument("--system", default="hdrr")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=256)
    ap.add_argument("--out", default="")
    args = ap.parse_args()


    questions = [f"What was {c}'s {m} in FY{y}?" for c in ("Acme Widgets", "Borealis Energy", "Cobalt Software")
                 for m in ("total revenue", "net income", "operating income") for y in (2022, 2023)]
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "q.jsonl", Path(tmp) / "a.jsonl"
        src.write_text("".join(json.dumps({"id": f"q{i}", "question": questions[i % len(questions)]}) + "\n"
                               for i in range(args.n)))

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (args.limit, args.limit))

        exe = Path(sys.executable).with_name("finrag")
        t0 = time.time()
        proc = subprocess.Popen([str(exe), "batch", "--index", args.index, "--system", args.system, "--in", str(src),
                                 "--out", str(dst), "-q"], preexec_fn=limit, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        samples: list[tuple[float, int, int, int]] = []
        while proc.poll() is None:
            got = _sample(proc.pid)
            if got:
                samples.append((time.time() - t0, _lines(dst), *got))
            time.sleep(0.25)
        err = proc.stderr.read() if proc.stderr else ""
        answers = _lines(dst)
    early = [s for s in samples if s[1] >= args.n // 10] or samples
    late = [s for s in samples if s[1] >= args.n * 9 // 10] or samples[-1:]  # before the exit's teardown
    result = {
        "command": f"finrag batch --system {args.system} (ulimit -n {args.limit}), {args.n} questions",
        "exit_code": proc.returncode, "answers": answers, "seconds": round(time.time() - t0, 1),
        "open_files_after_10pct": early[0][2] if early else None, "open_files_after_90pct": late[0][2] if late else None,
        "open_files_max": max((s[2] for s in samples), default=None),
        "rss_mb_after_10pct": round(early[0][3] / 1024, 1) if early else None,
        "rss_mb_after_90pct": round(late[0][3] / 1024, 1) if late else None,
        "stderr_tail": err.strip().splitlines()[-3:],
    }
    print(json.dumps(result, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if proc.returncode == 0 and answers == args.n else 1


if __name__ == "__main__":
    sys.exit(main())
