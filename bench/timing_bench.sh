#!/usr/bin/env bash
# Bench 3 — timing fidelity: client-measured TTFT and per-chunk arrival times
# against `genperf serve --timing-log` ground truth, at 64, 512 and 4096
# streams with realistic delays (TTFT 50 ms, ITL 10 ms).
set -u
source "$(dirname "$0")/lib.sh"
ulimit -n 65536 2>/dev/null || true
for c in 64 512 4096; do
  log="$BENCH_TMP/timing$c.jsonl"
  start_serve t$c --tokenizer builtin --ttft-ms 50 --itl-ms 10 --timing-log "$log" --quiet
  spid=${bench_pids[-1]}
  dir="$BENCH_TMP/p$c"
  "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --streaming --tokenizer builtin \
    --synthetic-input-tokens-mean 32 --output-tokens-mean 64 --output-tokens-mean-deterministic \
    --request-count $(( c * 2 )) --num-dataset-entries 100 --concurrency $c --artifact-dir "$dir" \
    >"$dir.log" 2>&1 || { echo "profile failed at $c"; tail -3 "$dir.log"; }
  kill -TERM "$spid"; wait "$spid" 2>/dev/null
  export_file=$(ls "$dir"/*/profile_export.json 2>/dev/null | head -n1)
  if [ -z "$export_file" ] || [ ! -s "$log" ]; then echo "no export or timing log at $c"; continue; fi
  r=$(/usr/bin/python3 "$GP_ROOT/bench/timing_compare.py" "$export_file" "$log")
  echo "streams $c: $r"
  get() { /usr/bin/python3 -c "import json,sys; v=json.loads(sys.argv[1])[sys.argv[2]]; print('-' if v is None else round(v,1))" "$r" "$1"; }
  med=$(get chunk_median_us) p99=$(get chunk_p99_us)
  goal_med="-" goal_p99="-" met_med="-" met_p99="-"
  if [ "$c" = 512 ]; then
    goal_med="<= 20" goal_p99="<= 200"
    met_med=$(awk -v v="$med" 'BEGIN{print (v!="-" && v<=20) ? "yes" : "no"}')
    met_p99=$(awk -v v="$p99" 'BEGIN{print (v!="-" && v<=200) ? "yes" : "no"}')
  fi
  result timing "TTFT |measured-truth| median, $c streams" "$(get ttft_median_us)" us - -
  result timing "TTFT |measured-truth| p99, $c streams" "$(get ttft_p99_us)" us - -
  result timing "chunk arrival |measured-truth| median, $c streams" "$med" us "$goal_med" "$met_med"
  result timing "chunk arrival |measured-truth| p99, $c streams" "$p99" us "$goal_p99" "$met_p99"
done
