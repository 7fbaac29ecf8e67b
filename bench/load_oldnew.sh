#!/usr/bin/env bash
# The serving load test of two checkouts on one machine, alternated (bench/load_test.py, HDRR, 200 requests,
# 8 concurrent, 40 warm-up requests, the written load questions), each on its own copy of one index:
#   bash bench/load_oldnew.sh <old checkout> <old index copy> <new checkout> <new index copy> <out dir> [rounds]
set -u
old=$1; old_index=$2; new=$3; new_index=$4; out=$5; rounds=${6:-2}
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for side in old new; do
    if [ "$side" = old ]; then repo=$old; index=$old_index; else repo=$new; index=$new_index; fi
    echo "== round $round $side, load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$repo/.venv/bin/python" "$here/load_test.py" --index "$index" --system hdrr --requests 200 --concurrency 8 \
      --warmup 40 --questions "$here/../eval/data/load_questions.jsonl" --json-out "$out/${side}_$round.json" 2>&1 | tail -1
  done
done
