#!/usr/bin/env bash
# Browser test over a real run: genperf serve (model named <script>alert(1)</script>) ->
# genperf profile at concurrency 1 and 4 (telemetry from the fake NVML library when built) ->
# genperf ingest -> genperf ui --db; then the same checks as report_ui_fixture, with the
# expected numbers read back from the database, plus a report of job 1.
set -euo pipefail
. "$GP_ROOT/tests/browser/lib.sh"
for c in profile ingest; do
  help=$("$GENPERF" "$c" --help 2>&1 || true)
  if grep -q "not implemented" <<<"$help"; then
    echo "skip: genperf $c is not in this build yet (report_ui_fixture covers the page over fixture rows)"; exit 77
  fi
done
gp_browser_setup
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing (scripts/deps.sh build)"; exit 77; }
SERVE_PID=
cleanup() { gp_stop_ui; [ -n "$SERVE_PID" ] && { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }; true; }
trap cleanup EXIT

model='<script>alert(1)</script>'
"$GENPERF" serve --port 0 --port-file "$TMPDIR/serve.url" --model "$model" --ttft-ms 8 --itl-ms 2 \
  >"$TMPDIR/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do [ -s "$TMPDIR/serve.url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/serve.url")
[ -n "$url" ] || { echo "genperf serve did not start"; cat "$TMPDIR/serve.log"; exit 1; }

nvml="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
[ -f "$nvml" ] && export GENPERF_NVML_LIB="$nvml"
for c in 1 4; do
  (cd "$TMPDIR" && "$GENPERF" profile -m "$model" --url "$url" --endpoint-type chat --streaming \
    --tokenizer builtin --synthetic-input-tokens-mean 32 --synthetic-input-tokens-stddev 0 \
    --output-tokens-mean 24 --output-tokens-stddev 0 --request-count 24 --num-dataset-entries 24 \
    --concurrency "$c" --random-seed 1 --telemetry-interval 0.1 --artifact-dir "$TMPDIR/artifacts" \
    >"$TMPDIR/profile$c.out" 2>"$TMPDIR/profile$c.err") ||
    { echo "genperf profile -c $c failed:"; tail -5 "$TMPDIR/profile$c.err"; exit 1; }
done
db="$TMPDIR/real.db"
"$GENPERF" ingest "$TMPDIR/artifacts" --db "sqlite://$db" --framework genperf-serve --hardware ci-sim \
  --label real-sweep >"$TMPDIR/ingest.out" 2>&1 || { echo "ingest failed:"; cat "$TMPDIR/ingest.out"; exit 1; }
njobs=$(sqlite3 "$db" "SELECT COUNT(*) FROM jobs")
[ "$njobs" = 2 ] || { echo "want 2 jobs in the store, got $njobs"; cat "$TMPDIR/ingest.out"; exit 1; }
job=$(sqlite3 "$db" "SELECT job_id FROM v_jobs WHERE concurrency = 4")
ntel=$(sqlite3 "$db" "SELECT COUNT(*) FROM telemetry_samples WHERE job_id = $job")
hw=false; [ "$ntel" -gt 0 ] && hw=true

gp_start_ui --db "sqlite://$db"
q() { sqlite3 "$db" "SELECT $1 FROM v_genai_perf_outputs WHERE job_id = $job AND metric = '$2'"; }
cat > "$TMPDIR/spec.json" <<JSON
{"base": "$UI_URL/", "offline": false, "jobs": 2, "model": "$(printf '%s' "$model" | sed 's/"/\\"/g')", "job": $job,
 "metrics": {"request_latency.avg": $(q avg request_latency), "request_latency.p99": $(q p99 request_latency),
             "time_to_first_token.p50": $(q p50 time_to_first_token),
             "inter_token_latency.avg": $(q avg inter_token_latency),
             "output_token_throughput.avg": $(q avg output_token_throughput),
             "request_count.avg": $(q avg request_count)},
 "charts_min": 3, "hardware": $hw, "compare": "1,2", "sort": "request_latency.p50",
 "shots": "$SHOTS", "tag": "real-run"}
JSON
gp_check "$TMPDIR/spec.json"
[ "$hw" = true ] || echo "note: no telemetry samples were stored (no fake NVML library and no host sampler?)"

"$GENPERF" report --db "sqlite://$db" --job "$job" -o "$TMPDIR/real.html" >/dev/null
sed -e "s|\"base\": \"$UI_URL/\"|\"base\": \"file://$TMPDIR/real.html\"|" -e 's/"offline": false/"offline": true/' \
  -e 's/"jobs": 2/"jobs": 1/' -e "s/\"compare\": \"1,2\"/\"compare\": \"$job\"/" -e 's/"tag": "real-run"/"tag": "real-report"/' \
  "$TMPDIR/spec.json" > "$TMPDIR/spec-report.json"
gp_check "$TMPDIR/spec-report.json"

# The same runs reported straight from the artifact directory (no store): list of both,
# exact ITL by position, the Hardware tab from <stem>_telemetry.jsonl.
"$GENPERF" report "$TMPDIR/artifacts" -o "$TMPDIR/art.html" >/dev/null
job1=$(sqlite3 "$db" "SELECT job_id FROM v_jobs WHERE concurrency = 1")
q1() { sqlite3 "$db" "SELECT $1 FROM v_genai_perf_outputs WHERE job_id = $job1 AND metric = '$2'"; }
cat > "$TMPDIR/spec-art.json" <<JSON
{"base": "file://$TMPDIR/art.html", "offline": true, "jobs": 2, "model": "$(printf '%s' "$model" | sed 's/"/\\"/g')", "job": 1,
 "metrics": {"request_latency.avg": $(q1 avg request_latency), "time_to_first_token.p99": $(q1 p99 time_to_first_token),
             "output_token_throughput.avg": $(q1 avg output_token_throughput)},
 "charts_min": 3, "hardware": $hw, "compare": "1,2", "sort": "request_latency.p50",
 "shots": "$SHOTS", "tag": "real-artifacts"}
JSON
gp_check "$TMPDIR/spec-art.json"
