#!/usr/bin/env bash
# The six systems' `finrag batch` answers to one question file, for `bench/diff_batches.py` (before/after a refactoring).
#   bash bench/six_batches.sh <repo with .venv> <index> <questions.jsonl> <out dir>
# questions.jsonl: {"id": ..., "question": ...} per line. Nothing is embedded on demand (FINRAG_EMBED_ON_DEMAND=false),
# so the index is only read; give both sides identical copies of it.
set -euo pipefail
repo=$1; index=$2; questions=$3; out=$4
mkdir -p "$out"
for s in sfr hdrr cbr cbr_meta cbr_llm_ctx agentic; do
  FINRAG_EMBED_ON_DEMAND=false "$repo/.venv/bin/finrag" batch --system "$s" --index "$index" \
    --in "$questions" --out "$out/$s.jsonl" -q
done
