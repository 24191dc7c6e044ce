#!/usr/bin/env bash
# Browser test of the job page's timeline: genperf serve under an overload step
# (40 requests/s into --max-batch 4 of 20 tokens at 10 ms a step: about 20/s served, so the
# queue grows while sending on any host) -> genperf profile --timeslice-duration 0.5
# with the fake NVML and the server's /metrics -> genperf ingest -> genperf ui;
# check_timeline.js: throughput, TTFT, failures, the server's running/waiting
# requests and KV cache, GPU power share one x axis, and TTFT and the queue climb on it;
# then the same over `genperf ui --artifacts` (no store).
set -euo pipefail
. "$GP_ROOT/tests/browser/lib.sh"
gp_browser_setup
nvml="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
[ -f "$nvml" ] || { echo "missing $nvml"; exit 1; }
SERVE_PID=
cleanup() { gp_stop_ui; [ -n "$SERVE_PID" ] && { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }; true; }
trap cleanup EXIT
"$GENPERF" serve --port 0 --port-file "$TMPDIR/serve.url" --quiet --seed 4 --max-batch 4 --decode-step-ms 10 \
  --fault-rate-500 0.05 >"$TMPDIR/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do [ -s "$TMPDIR/serve.url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/serve.url")
(cd "$TMPDIR" && GENPERF_NVML_LIB="$nvml" GENPERF_FAKE_NVML_DEVICES=1 "$GENPERF" profile -m m --url "$url" \
  --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 20 --output-tokens-mean 20 \
  --request-rate 40 --request-count 80 --telemetry-interval 0.1 --server-metrics-url "$url/metrics" \
  --timeslice-duration 0.5 --artifact-dir "$TMPDIR/art" >"$TMPDIR/profile.out" 2>"$TMPDIR/profile.err") ||
  { echo "genperf profile failed:"; tail -5 "$TMPDIR/profile.err"; exit 1; }
"$GENPERF" ingest "$TMPDIR/art" --db "sqlite://$TMPDIR/t.db" >"$TMPDIR/ingest.out" 2>&1 ||
  { echo "ingest failed:"; cat "$TMPDIR/ingest.out"; exit 1; }
gp_start_ui --db "sqlite://$TMPDIR/t.db"
CHROMIUM="$CHROMIUM" NODE_PATH="$NODE_DIR/node_modules" timeout 120 node "$GP_ROOT/tests/browser/check_timeline.js" \
  "$UI_URL/#/job/1" "$SHOTS/timeline"
# the same page straight from the artifact directory (no store)
gp_stop_ui
gp_start_ui --artifacts "$TMPDIR/art"
CHROMIUM="$CHROMIUM" NODE_PATH="$NODE_DIR/node_modules" timeout 120 node "$GP_ROOT/tests/browser/check_timeline.js" \
  "$UI_URL/#/job/1" "$SHOTS/timeline-artifacts"
