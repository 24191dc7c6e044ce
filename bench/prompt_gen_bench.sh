#!/usr/bin/env bash
# bench/prompt_gen_bench.sh — how long synthetic workload generation takes:
# 10,000 prompts x 4,096 tokens (goal: < 2 s on one core), for the builtin
# tokenizer and every tokenizer.json under .cache/tokenizers/<family>/.
# Each run re-encodes every prompt afterwards and fails on any count mismatch.
#   bash bench/prompt_gen_bench.sh [N] [ISL]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
N=${1:-10000}
ISL=${2:-4096}
cd "$root"
make -s -j2 "$BUILD/bench/prompt_gen" >/dev/null
bin="$root/$BUILD/bench/prompt_gen"
specs=(builtin)
for f in "$root"/.cache/tokenizers/*/tokenizer.json; do
  [ -f "$f" ] && specs+=("$f")
done
rc=0
for s in "${specs[@]}"; do
  # taskset: the goal is for one core
  if command -v taskset >/dev/null; then
    taskset -c 0 "$bin" --tokenizer "$s" -n "$N" --isl "$ISL" || rc=1
  else
    "$bin" --tokenizer "$s" -n "$N" --isl "$ISL" || rc=1
  fi
done
exit $rc
