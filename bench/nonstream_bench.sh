#!/usr/bin/env bash
# Bench 2 — non-streaming capacity: requests/s of genperf profile (keeping a
# per-request record for every request) vs wrk posting the same body, both
# against `genperf serve --zero-delay`, same concurrency, same run.
set -u
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || { echo "wrk not installed (scripts/deps.sh installs it)"; exit 0; }
start_serve ns --zero-delay --tokenizer builtin
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
grps=$(awk -v n="$N" -v w="$TIMED_WALL" 'BEGIN{printf "%.0f", n/w}')
echo "genperf: $N requests in ${TIMED_WALL}s wall (${TIMED_CPU}s CPU) = $grps req/s; $recs per-request records written"
ratio=$(awk -v a="$grps" -v b="$wrps" 'BEGIN{printf "%.2f", b>0 ? a/b : 0}')
result nonstream "wrk requests/s (1 thread, c=$C)" "$wrps" req/s - -
result nonstream "genperf requests/s (c=$C, with records; includes start-up and artifact writing)" "$grps" req/s - -
result nonstream "genperf / wrk" "$ratio" x ">= 0.5" "$(awk -v r="$ratio" 'BEGIN{print r>=0.5 ? "yes" : "no"}')"
