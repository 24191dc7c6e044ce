#!/usr/bin/env bash
# Issue 28 item 10: a job run over several endpoints (--urls) shows every
# endpoint and its share on its page, and a job with failed requests lists
# what they said, grouped (before, the page showed only "requests_failed: N").
set -euo pipefail
. "$GP_ROOT/tests/browser/lib.sh"
gp_browser_setup
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing (scripts/deps.sh build)"; exit 77; }
SERVE_PID=
cleanup() { gp_stop_ui; [ -n "$SERVE_PID" ] && { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }; true; }
trap cleanup EXIT
"$GENPERF" serve --port 0 --port-file "$TMPDIR/serve.url" --zero-delay --fault-rate-500 0.3 \
  >"$TMPDIR/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do [ -s "$TMPDIR/serve.url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/serve.url")
[ -n "$url" ] || { echo "genperf serve did not start"; cat "$TMPDIR/serve.log"; exit 1; }
url2=${url/127.0.0.1/localhost}
(cd "$TMPDIR" && "$GENPERF" profile -m m --urls "$url" "$url2" --endpoint-type chat --streaming --tokenizer builtin \
  --isl 16 --osl 4 --request-count 40 --concurrency 2 --artifact-dir "$TMPDIR/arts" >"$TMPDIR/p.out" 2>"$TMPDIR/p.err") ||
  { echo "profile failed"; tail -5 "$TMPDIR/p.err"; exit 1; }
db="$TMPDIR/split.db"
"$GENPERF" ingest "$TMPDIR/arts" --db "sqlite://$db" >"$TMPDIR/ingest.out" 2>&1 || { cat "$TMPDIR/ingest.out"; exit 1; }
job=$(sqlite3 "$db" "SELECT id FROM jobs")
failed=$(sqlite3 "$db" "SELECT COUNT(*) FROM requests WHERE job_id = $job AND status = 'failed' AND warmup = 0")
[ "$failed" -gt 0 ] || { echo "no failed request to show (fault rate 0.3 over 40 requests)"; exit 1; }
gp_start_ui --db "sqlite://$db"
cat > "$TMPDIR/spec.json" <<JSON
{"base": "$UI_URL/", "offline": false, "split": {"job": $job, "endpoints": 2, "failed": $failed, "text": "500"},
 "shots": "$SHOTS", "tag": "job-split"}
JSON
gp_check "$TMPDIR/spec.json"
