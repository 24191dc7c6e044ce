#!/usr/bin/env bash
# bench/prompt_gen_bench.sh — how long synthetic workload generation takes:
# 10,000 prompts x 4,096 tokens (goal: < 2 s on one core), for the builtin
# tokenizer and every tokenizer.json under .cache/tokenizers/<family>/
# (scripts/fetch-tokenizers.sh). The figure is the CPU time of
# gp_dataset_build (vocabulary scan included, tokenizer load excluded); wall
# time is printed too but includes waiting for a core on a shared machine.
# Each run then re-encodes a spread sample of 200 prompts and fails on any
# count mismatch.
#   bash bench/prompt_gen_bench.sh [N] [ISL]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
N=${1:-10000}
ISL=${2:-4096}
cd "$root"
make -s -j2 "$BUILD/bench/prompt_gen" >/dev/null
bin="$root/$BUILD/bench/prompt_gen"
specs=(builtin)
for f in "$root"/.cache/tokenizers/*/tokenizer.json; do
  [ -f "$f" ] && specs+=("$f")
done
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)  # the goal is for one core
rc=0
for s in "${specs[@]}"; do
  name=$s
  [ "$s" = builtin ] || name=$(basename "$(dirname "$s")")
  if out=$("${pin[@]}" "$bin" --tokenizer "$s" -n "$N" --isl "$ISL"); then ok=1; else ok=0; rc=1; fi
  printf '%s\n' "$out" | grep -v '^figures:'
  cpu=$(printf '%s\n' "$out" | sed -n 's/^figures: cpu=\([0-9.]*\).*/\1/p')
  [ -n "$cpu" ] || { echo "prompt_gen failed for $name"; rc=1; continue; }
  met=$(awk -v c="$cpu" -v ok="$ok" 'BEGIN{print (c < 2.0 && ok) ? "yes" : "no"}')
  result prompt_gen "${N}x${ISL}-token prompts, $name (CPU)" "$cpu" s "< 2" "$met"
done
exit $rc
