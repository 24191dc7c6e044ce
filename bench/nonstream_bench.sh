#!/usr/bin/env bash
# Bench 2 — non-streaming capacity: requests/s of genperf profile (one client
# thread, keeping a per-request record for every request) vs wrk (one thread)
# posting the same body, both against `genperf serve --zero-delay`, same
# concurrency. The host is shared and its load changes from second to second,
# so the two are alternated twice and the better round of each is kept; both
# are also measured per client CPU-second (/usr/bin/time, whole process),
# which does not depend on what the server and other processes take.
# GENPERF_BASE=/path/to/older/genperf runs that binary too in each round
# (before/after side by side in one run).
set -u
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || { echo "wrk not installed (scripts/deps.sh installs it)"; exit 77; }
start_serve ns --zero-delay --tokenizer builtin --quiet
C=64 OSL=16 N=30000 D=5
body='{"messages":[{"role":"user","content":"hello hello hello hello"}],"model":"sim","max_tokens":16,"min_tokens":16,"ignore_eos":true}'
cat > "$BENCH_TMP/post.lua" <<L
wrk.method = "POST"
wrk.body   = '$body'
wrk.headers["Content-Type"] = "application/json"
L
best_w=0 best_wc=0 best_g=0 best_ge=0 best_gc=0
for round in 1 2; do
  timed wrk -t1 -c$C -d${D}s -s "$BENCH_TMP/post.lua" "$SERVE_URL/v1/chat/completions" >"$BENCH_TMP/wrk.txt" 2>&1
  wrps=$(awk '/Requests\/sec/ {print $2}' "$BENCH_TMP/wrk.txt")
  wreq=$(awk '/requests in/ {print $1}' "$BENCH_TMP/wrk.txt")
  wcpu=$TIMED_CPU
  wpc=$(calc %.0f 'c>0 ? n/c : 0' n="$wreq" c="$wcpu")
  echo "round $round wrk:     $wreq requests in ${D} s = $wrps req/s wall, $wcpu CPU-s = $wpc req/CPU-s" \
       "($(awk '/Non-2xx|Socket errors/' "$BENCH_TMP/wrk.txt" | tr -s ' ' | tr '\n' ' '))"
  rm -rf "$BENCH_TMP/ns"
  timed "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --tokenizer builtin \
    --synthetic-input-tokens-mean 4 --output-tokens-mean $OSL --genperf-output-tokens-deterministic \
    --request-count $N --num-dataset-entries 100 --concurrency $C --artifact-dir "$BENCH_TMP/ns" >"$BENCH_TMP/ns.log" 2>&1 \
    || { tail -5 "$BENCH_TMP/ns.log"; exit 1; }
  recs=$(cat "$BENCH_TMP"/ns/*/*_records.jsonl | wc -l)
  read -r okrecs window < <(/usr/bin/python3 -c 'import json,glob,sys; d=json.load(open(glob.glob(sys.argv[1]+"/*/*_genperf.json")[0])); print(d["requests"]["ok"], d["window"]["duration_s"])' "$BENCH_TMP/ns")
  ge=$(calc %.0f 'n/w' n="$N" w="$TIMED_WALL")
  g=$(calc %.0f 'n/w' n="$okrecs" w="$window")
  gc=$(calc %.0f 'c>0 ? n/c : 0' n="$N" c="$TIMED_CPU")
  echo "round $round genperf: $N requests, $okrecs ok in the measured window of $(calc %.2f w w="$window") s = $g req/s;" \
       "end to end ${TIMED_WALL} s = $ge req/s; $TIMED_CPU CPU-s = $gc req/CPU-s; $recs records"
  if [ -n "${GENPERF_BASE:-}" ]; then
    rm -rf "$BENCH_TMP/nb"
    timed "$GENPERF_BASE" profile -m sim --url "$SERVE_URL" --endpoint-type chat --tokenizer builtin \
      --synthetic-input-tokens-mean 4 --output-tokens-mean $OSL --genperf-output-tokens-deterministic \
      --request-count $N --num-dataset-entries 100 --concurrency $C --artifact-dir "$BENCH_TMP/nb" >"$BENCH_TMP/nb.log" 2>&1 \
      || { tail -5 "$BENCH_TMP/nb.log"; exit 1; }
    read -r bok bwin < <(/usr/bin/python3 -c 'import json,glob,sys; d=json.load(open(glob.glob(sys.argv[1]+"/*/*_genperf.json")[0])); print(d["requests"]["ok"], d["window"]["duration_s"])' "$BENCH_TMP/nb")
    bg=$(calc %.0f 'n/w' n="$bok" w="$bwin") bgc=$(calc %.0f 'c>0 ? n/c : 0' n="$N" c="$TIMED_CPU")
    echo "round $round base:    $bok ok in $(calc %.2f w w="$bwin") s = $bg req/s; $TIMED_CPU CPU-s = $bgc req/CPU-s"
    best_b=$(calc %.0f 'a>b ? a : b' a="$bg" b="${best_b:-0}"); best_bc=$(calc %.0f 'a>b ? a : b' a="$bgc" b="${best_bc:-0}")
  fi
  best_w=$(calc %.0f 'a>b ? a : b' a="$wrps" b="$best_w"); best_wc=$(calc %.0f 'a>b ? a : b' a="$wpc" b="$best_wc")
  best_g=$(calc %.0f 'a>b ? a : b' a="$g" b="$best_g"); best_ge=$(calc %.0f 'a>b ? a : b' a="$ge" b="$best_ge")
  best_gc=$(calc %.0f 'a>b ? a : b' a="$gc" b="$best_gc")
done
ratio=$(calc %.2f 'b>0 ? a/b : 0' a="$best_g" b="$best_w")
result nonstream "wrk requests/s, wall (1 thread, c=$C, best of 2)" "$best_w" req/s - -
result nonstream "genperf requests/s in the measured window, wall (1 thread, c=$C, records kept, best of 2)" "$best_g" req/s - -
result nonstream "genperf / wrk, wall" "$ratio" x ">= 0.9" "$(met 'r>=0.9' r="$ratio")"
result nonstream "genperf / wrk, end to end (start-up + artifacts included)" "$(calc %.2f 'b>0 ? a/b : 0' a="$best_ge" b="$best_w")" x - -
result nonstream "wrk requests per client CPU-second" "$best_wc" req/CPU-s - -
result nonstream "genperf requests per client CPU-second (whole process)" "$best_gc" req/CPU-s - -
cpr=$(calc %.2f 'b>0 ? a/b : 0' a="$best_gc" b="$best_wc")
result nonstream "genperf / wrk per client CPU-second" "$cpr" x ">= 0.5" "$(met 'r>=0.5' r="$cpr")"
if [ -n "${GENPERF_BASE:-}" ]; then
  result nonstream "genperf before (GENPERF_BASE) requests/s in the measured window, wall" "$best_b" req/s - -
  result nonstream "genperf before (GENPERF_BASE) requests per client CPU-second" "$best_bc" req/CPU-s - -
fi
result nonstream "per-request records written / requests" "$recs/$N" records "$N/$N" "$(met 'a==b' a="$recs" b="$N")"
