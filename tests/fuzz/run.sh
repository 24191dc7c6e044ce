#!/usr/bin/env bash
# tests/fuzz/run.sh — runs every fuzz target in $BUILD/fuzz/ (built by `make fuzz`)
# for $FUZZ_S seconds each, and prints one line per target and a closing line.
#
# Corpus of target T: the seeds in tests/fuzz/T/ (committed, read only) plus,
# for the store targets, seeds made here from tests/fixtures/genai-perf/; new
# inputs libFuzzer finds go to $BUILD/fuzz-out/T/corpus/ (kept between runs,
# so a later run starts where the last one stopped). A crash, leak, UBSan
# report or timeout is saved as $BUILD/fuzz-out/T/crash-* (reproduce it with
# `$BUILD/fuzz/T FILE`) and fails the run; each becomes a unit test in the
# module. The per-target log is $BUILD/fuzz-out/T/log, the summary table
# $BUILD/fuzz-out/summary.txt.
# Usage: tests/fuzz/run.sh [pattern]    (FUZZ_S=60 default; BUILD=build-fuzz)
set -u
BUILD=${BUILD:-build-fuzz}
FUZZ_S=${FUZZ_S:-60}
pattern=${1:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out="$BUILD/fuzz-out"
mkdir -p "$out"
fix=tests/fixtures/genai-perf

# Seeds for the store targets, from the fixtures the store tests use.
store_seeds() {
  local t=$1 dir="$out/$1/seeds"
  rm -rf "$dir"; mkdir -p "$dir"
  case $t in
    store_fuzz_ingest)
      # fuzz_ingest.c: odd first byte = CSV, even = JSON (a leading space keeps it JSON)
      local i=0 f
      for f in $(find "$fix" -name '*_genai_perf.json' | sort); do
        { printf ' '; cat "$f"; } >"$dir/json$i"; i=$((i + 1))
      done
      for f in $(find "$fix" -name '*_genai_perf.csv' | sort); do
        { printf 'M'; tail -c +2 "$f"; } >"$dir/csv$i"; i=$((i + 1))   # "Metric,..." starts odd
      done ;;
    store_fuzz_artifacts)
      # fuzz_artifacts.c: main, profile export, records, summary, telemetry, genperf_run.json,
      # separated by NUL bytes (an empty part leaves the file out)
      local i=0 d stem part
      for d in $(find "$fix" -name '*_genai_perf.*' -printf '%h\n' | sort -u); do
        stem=profile_export
        for main in "$d/${stem}_genai_perf.json" "$d/${stem}_genai_perf.csv"; do
          [ -f "$main" ] || continue
          {
            cat "$main"
            for part in "$d/$stem.json" "$d/${stem}_records.jsonl" "$d/${stem}_genperf.json" \
                        "$d/${stem}_telemetry.jsonl" "$d/../genperf_run.json"; do
              printf '\0'; [ -f "$part" ] && head -c 20000 "$part"
            done
          } >"$dir/job$i"; i=$((i + 1))
        done
      done ;;
  esac
}

n_ok=0 n_bad=0 total_runs=0
summary="$out/summary.txt"
printf '%-28s %12s %10s %8s %s\n' target executions exec/s corpus result >"$summary"
for bin in "$BUILD"/fuzz/*; do
  [ -x "$bin" ] && [ -f "$bin" ] || continue
  t=$(basename "$bin")
  [ -n "$pattern" ] && [[ "$t" != *"$pattern"* ]] && continue
  mkdir -p "$out/$t/corpus"
  seeds=()
  [ -d "tests/fuzz/$t" ] && seeds+=("tests/fuzz/$t")
  case $t in store_*) store_seeds "$t"; seeds+=("$out/$t/seeds") ;; esac
  envs=()
  if [ "$t" = tokenizer_fuzz_tokenize ] && [ -f .cache/tokenizers/llama3/tokenizer.json ]; then
    envs+=(GP_FUZZ_TOKENIZER=.cache/tokenizers/llama3)   # a real BPE when fetched; else the built-in one
  fi
  rm -f "$out/$t"/crash-* "$out/$t"/leak-* "$out/$t"/timeout-* "$out/$t"/oom-*
  # -timeout: one input may take 10 s at most (a hang is a finding);
  # the outer timeout only guards against the fuzzer itself hanging.
  env "${envs[@]}" timeout $((FUZZ_S + 120)) "$bin" -max_total_time="$FUZZ_S" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/$t/" \
    "$out/$t/corpus" "${seeds[@]}" >"$out/$t/log" 2>&1
  rc=$?
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$out/$t/log" | tail -n1)
  eps=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$out/$t/log" | tail -n1)
  corpus=$(find "$out/$t/corpus" -type f | wc -l)
  found=$(ls "$out/$t" | grep -E '^(crash|leak|timeout|oom)-' | head -n3 | tr '\n' ' ')
  runs=${runs:-0}; total_runs=$((total_runs + runs))
  if [ "$rc" -eq 0 ] && [ -z "$found" ]; then
    result=ok; n_ok=$((n_ok + 1))
  else
    result="FAIL rc=$rc ${found}"; n_bad=$((n_bad + 1))
  fi
  line=$(printf '%-28s %12s %10s %8s %s' "$t" "$runs" "${eps:-0}" "$corpus" "$result")
  echo "$line" | tee -a "$summary"
  if [ "$result" != ok ]; then
    grep -E 'ERROR: |runtime error|SUMMARY|^    #[0-9] ' "$out/$t/log" | head -n 20 | sed 's/^/    /'
    echo "    reproduce: $bin $out/$t/<crash file>; log: $out/$t/log"
  fi
done
echo "fuzz: $n_ok targets clean, $n_bad failed, $total_runs executions in all (${FUZZ_S}s each)" | tee -a "$summary"
[ "$n_bad" -eq 0 ] && [ $((n_ok + n_bad)) -gt 0 ]
