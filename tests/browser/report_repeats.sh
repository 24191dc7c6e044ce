#!/usr/bin/env bash
# Browser test of the job page's Repeats table: genperf serve -> genperf profile --num-runs 3
# -> genperf ingest (one repeat group, store migration 11) -> genperf ui; check_repeats.js:
# for run 2's page, each key statistic's mean, 95% interval (the whisker's ends) and CV are
# those of the aggregate file profile wrote, each run is a dot at its value, run 2's filled;
# then the same page in `genperf report --db` (the embedded bundle).
set -euo pipefail
. "$GP_ROOT/tests/browser/lib.sh"
gp_browser_setup
SERVE_PID=
cleanup() { gp_stop_ui; [ -n "$SERVE_PID" ] && { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }; true; }
trap cleanup EXIT
"$GENPERF" serve --port 0 --port-file "$TMPDIR/serve.url" --quiet --ttft-ms 5 --itl-ms 1 >"$TMPDIR/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do [ -s "$TMPDIR/serve.url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/serve.url")
"$GENPERF" profile -m m --url "$url" --endpoint-type chat --streaming --tokenizer builtin --isl 16 --osl 8 \
  --concurrency 2 --request-count 12 --warmup-request-count 0 --num-runs 3 --artifact-dir "$TMPDIR/art" \
  >"$TMPDIR/profile.out" 2>"$TMPDIR/profile.err" || { echo "genperf profile failed:"; tail -5 "$TMPDIR/profile.err"; exit 1; }
agg=$(ls "$TMPDIR"/art/*/profile_export_genperf_aggregate.json)
"$GENPERF" ingest "$TMPDIR/art" --db "sqlite://$TMPDIR/t.db" >"$TMPDIR/ingest.out" 2>&1 ||
  { echo "ingest failed:"; cat "$TMPDIR/ingest.out"; exit 1; }
grep -q "run 3 of repeat group 1" "$TMPDIR/ingest.out" || { cat "$TMPDIR/ingest.out"; echo "no repeat group"; exit 1; }
gp_start_ui --db "sqlite://$TMPDIR/t.db"
CHROMIUM="$CHROMIUM" NODE_PATH="$NODE_DIR/node_modules" timeout 120 node "$GP_ROOT/tests/browser/check_repeats.js" \
  "$UI_URL/#/job/2" "$agg" 2 "$SHOTS/repeats"
gp_stop_ui
"$GENPERF" report --db "sqlite://$TMPDIR/t.db" --job 2 -o "$TMPDIR/r.html" >/dev/null 2>&1 ||
  { echo "genperf report --db --job 2 failed"; exit 1; }
CHROMIUM="$CHROMIUM" NODE_PATH="$NODE_DIR/node_modules" timeout 120 node "$GP_ROOT/tests/browser/check_repeats.js" \
  "file://$TMPDIR/r.html#/job/2" "$agg" 2 "$SHOTS/repeats-report"
