#!/usr/bin/env bash
# Browser test: `genperf report` files (from an artifact sweep and from the store) open
# from file:// with every request outside the file blocked, and show the same tables/charts.
set -euo pipefail
. "$GP_ROOT/tests/browser/lib.sh"
gp_browser_setup
fx="$GP_ROOT/tests/fixtures/report"

"$GENPERF" report "$fx/sweep" -o "$TMPDIR/sweep.html" >/dev/null
ttft=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["time_to_first_token"]["avg"])' \
  "$fx/sweep/m-openai-chat-concurrency1/profile_export_genai_perf.json" 2>/dev/null || echo 25.5)
cat > "$TMPDIR/spec1.json" <<JSON
{"base": "file://$TMPDIR/sweep.html", "offline": true, "jobs": 2, "model": "<script>alert(1)</script>", "job": 1,
 "metrics": {"time_to_first_token.avg": $ttft}, "charts_min": 3, "hardware": true, "compare": "1,2",
 "sort": "request_latency.p50", "shots": "$SHOTS", "tag": "report-artifacts"}
JSON
gp_check "$TMPDIR/spec1.json"

if command -v sqlite3 >/dev/null; then
  db="$TMPDIR/t.db"
  "$GENPERF" results --db "$db" --create >/dev/null # an empty migrated store: report never creates one
  sqlite3 "$db" < "$fx/store.sql"
  "$GENPERF" report --db "$db" --job 1 -o "$TMPDIR/job1.html" >/dev/null
  lat=$(sqlite3 "$db" "SELECT avg FROM v_genai_perf_outputs WHERE job_id=1 AND metric='request_latency'")
  cat > "$TMPDIR/spec2.json" <<JSON
{"base": "file://$TMPDIR/job1.html", "offline": true, "jobs": 1, "model": "<script>alert(1)</script>", "job": 1,
 "metrics": {"request_latency.avg": $lat}, "charts_min": 3, "hardware": true, "compare": "1",
 "shots": "$SHOTS", "tag": "report-db"}
JSON
  gp_check "$TMPDIR/spec2.json"
fi

if command -v sqlite3 >/dev/null; then
  # Several jobs in one report: the list, each job, and a comparison the bundle does not
  # hold verbatim (ids in another order) built in the page from the list rows.
  "$GENPERF" report --db "$db" --job 2,1 -o "$TMPDIR/jobs21.html" >/dev/null
  cat > "$TMPDIR/spec3.json" <<JSON
{"base": "file://$TMPDIR/jobs21.html", "offline": true, "jobs": 2, "model": "<script>alert(1)</script>", "job": 2,
 "metrics": {"request_latency.avg": $(sqlite3 "$db" "SELECT avg FROM v_genai_perf_outputs WHERE job_id=2 AND metric='request_latency'")},
 "charts_min": 3, "hardware": false, "compare": "1,2", "sort": "request_latency.p50",
 "shots": "$SHOTS", "tag": "report-db-2jobs"}
JSON
  gp_check "$TMPDIR/spec3.json"
fi
