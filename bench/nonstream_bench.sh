#!/usr/bin/env bash
# Bench 2 — non-streaming capacity: requests/s of genperf profile (keeping a
# per-request record for every request) vs wrk posting the same body, both
# against `genperf serve --zero-delay`, same concurrency, same run.
set -u
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || { echo "wrk not installed (scripts/deps.sh installs it)"; exit 77; }
start_serve ns --zero-delay --tokenizer builtin --quiet
C=64 OSL=16 N=40000
body='{"messages":[{"role":"user","content":"hello hello hello hello"}],"model":"sim","max_tokens":16,"min_tokens":16,"ignore_eos":true}'
cat > "$BENCH_TMP/post.lua" <<L
wrk.method = "POST"
wrk.body   = '$body'
wrk.headers["Content-Type"] = "application/json"
L
wout=$(wrk -t1 -c$C -d8s -s "$BENCH_TMP/post.lua" "$SERVE_URL/v1/chat/completions" 2>&1)
echo "$wout" | sed 's/^/  wrk: /'
wrps=$(awk '/Requests\/sec/ {print $2}' <<<"$wout")
timed "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --tokenizer builtin \
  --synthetic-input-tokens-mean 4 --output-tokens-mean $OSL --output-tokens-mean-deterministic \
  --request-count $N --num-dataset-entries 100 --concurrency $C --artifact-dir "$BENCH_TMP/ns" >"$BENCH_TMP/ns.log" 2>&1 \
  || { tail -5 "$BENCH_TMP/ns.log"; exit 1; }
recs=$(cat "$BENCH_TMP"/ns/*/*_records.jsonl | wc -l)
read -r okrecs window < <(/usr/bin/python3 -c 'import json,glob,sys; d=json.load(open(glob.glob(sys.argv[1]+"/*/*_genperf.json")[0])); print(d["requests"]["ok"], d["window"]["duration_s"])' "$BENCH_TMP/ns")
grps=$(calc %.0f 'n/w' n="$N" w="$TIMED_WALL")
wrps_g=$(calc %.0f 'n/w' n="$okrecs" w="$window")
echo "genperf: $N requests in ${TIMED_WALL}s wall (${TIMED_CPU}s CPU) = $grps req/s end to end; $okrecs ok in the measured window of ${window}s = $wrps_g req/s; $recs per-request records written"
ratio=$(calc %.2f 'b>0 ? a/b : 0' a="$wrps_g" b="$wrps")
ratio_e2e=$(calc %.2f 'b>0 ? a/b : 0' a="$grps" b="$wrps")
result nonstream "wrk requests/s (1 thread, c=$C)" "$wrps" req/s - -
result nonstream "genperf requests/s in the measured window (c=$C, 1 thread, per-request records)" "$wrps_g" req/s - -
result nonstream "genperf requests/s end to end (start-up + artifact writing included)" "$grps" req/s - -
result nonstream "genperf / wrk (measured window)" "$ratio" x ">= 0.5" "$(met 'r>=0.5' r="$ratio")"
result nonstream "genperf / wrk (end to end)" "$ratio_e2e" x - -
result nonstream "per-request records written / requests" "$recs/$N" records "$N/$N" "$(met 'a==b' a="$recs" b="$N")"
