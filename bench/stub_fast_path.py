"""HDRR's generator fast path with an LLM: how many questions the statement reader answers without the
generator call, and how many LLM calls that saves.

    python -m bench.stub_fast_path --index .finrag-fb \
        --dataset ../shared/data/financebench/questions_dev.jsonl --out runs/fb-dev-stub

Starts the loopback OpenAI-compatible stub of the tests (tests/support/openai_stub.py: deterministic replies,
exact token usage) and runs `finrag eval run --systems hdrr` against it (`llm=openai/stub-model`, offline
judge). The stub's generated answers are not meant to be right, so only the cost side is read: the fast path
share, the LLM calls made and saved, and the tokens. The run directory's report has the same numbers in its
Cost table. `--fast-path off` runs the same questions with every generator call made, for comparison.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fast-path", default="auto", choices=("auto", "on", "off"))
    ap.add_argument("--groups", type=int, default=5)
    args = ap.parse_args(argv)

    from finrag.cli import main as finrag_main
    from tests.support.openai_stub import OpenAIStub

    with OpenAIStub() as stub:
        code = finrag_main(["eval", "run", "--systems", "hdrr", "--dataset", args.dataset, "--groups", str(args.groups),
                            "--index", args.index, "--out", args.out, "--no-plots", "-q",
                            "--configurable", "llm=openai/stub-model", "--configurable", f"llm_base_url={stub.base_url}",
                            "--configurable", f"fast_path={args.fast_path}"])
        requests = len(stub.chat_requests())
    if code:
        return code
    answers = [json.loads(p.read_text()) for p in sorted((Path(args.out) / "answers" / "hdrr").glob("*.json"))]
    n = len(answers)
    fast = sum(bool((a.get("reader") or {}).get("fast_path")) for a in answers)
    calls = sum(int((a.get("cost") or {}).get("llm_calls") or 0) for a in answers)
    saved = sum(int((a.get("cost") or {}).get("llm_calls_saved") or 0) for a in answers)
    tokens = sum(int((a.get("cost") or {}).get("prompt_tokens") or 0) + int((a.get("cost") or {}).get("completion_tokens") or 0)
                 for a in answers)
    summary = {"questions": n, "fast_path_answers": fast, "fast_path_share": round(fast / n, 4) if n else None,
               "llm_calls": calls, "llm_calls_saved": saved, "llm_calls_without_fast_path": calls + saved,
               "saved_share_of_calls": round(saved / (calls + saved), 4) if calls + saved else None,
               "tokens": tokens, "chat_requests_seen_by_stub": requests}
    (Path(args.out) / "fast_path.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
