#!/usr/bin/env bash
# Browser test: `genperf ui --db` over a store filled from tests/fixtures/report/store.sql
# (two jobs of one sweep, a model named <script>alert(1)</script>, telemetry samples).
# Checks the list, the job page's numbers against the database, the Hardware tab's charts
# (screenshot under build/test-artifacts/), the compare view and the JSON endpoints.
set -euo pipefail
. "$GP_ROOT/tests/browser/lib.sh"
gp_browser_setup
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing (scripts/deps.sh build)"; exit 77; }
trap gp_stop_ui EXIT
db="$TMPDIR/t.db"
# An empty migrated store (report and ui never create one); then load the rows.
"$GENPERF" results --db "$db" --create >/dev/null
sqlite3 "$db" < "$GP_ROOT/tests/fixtures/report/store.sql"
# A second host's CPU series (mpirun across hosts, store migration 6): the Hardware tab
# must draw it as its own series, labelled with the host.
for t in 5000000000 6000000000 7000000000; do
  sqlite3 "$db" "INSERT INTO telemetry_samples (job_id, t_ns, wall_ns, device, metric, value, host)
                 VALUES (1, $t, $t, 'host', 'cpu_util_pct', 42.0, 'node-b')"
done
# Host memory available around 23.078 GiB varying by 0.002 GiB: its y axis once read
# "3.078" (the 50 px axis cut the leading digit) with "23.078" repeated on two ticks.
for i in 0 1 2 3 4 5 6 7 8; do
  sqlite3 "$db" "INSERT INTO telemetry_samples (job_id, t_ns, wall_ns, device, metric, value)
                 VALUES (1, $((5000000000 + i * 1000000000)), $((5000000000 + i * 1000000000)), 'host', 'mem_available_bytes',
                         ROUND((23.077 + $i * 0.00025) * 1073741824))"
done
# Job 2: a short run on a machine without GPUs, one sample per metric (host CPU and the
# server's num_requests_waiting). Its Hardware tab draws the points and says why it is thin.
sqlite3 "$db" "INSERT INTO telemetry_samples (job_id, t_ns, wall_ns, device, metric, value) VALUES
               (2, 5000000000, 5000000000, 'host', 'cpu_util_pct', 37.5),
               (2, 5000000000, 5000000000, 'server', 'num_requests_waiting', 3)"
# Per-user throughput for both jobs (no GPU count): the compare view's Pareto chart is per server.
sqlite3 "$db" "INSERT INTO metric_values (job_id, metric_code, stat, value) VALUES
               (1, 'output_token_throughput_per_user', 'avg', 100.0), (2, 'output_token_throughput_per_user', 'avg', 50.0)"
# Energy and cost figures (store migration 8): the Pareto chart offers tokens/J and $/Mtok as its
# y axis. tokens/J: job 2 is better there, job 1 per user, so both are on the frontier; $/Mtok
# (lower is better): job 1 is cheaper and faster per user, so it alone is.
sqlite3 "$db" "INSERT INTO metric_values (job_id, metric_code, stat, value) VALUES
               (1, 'output_tokens_per_joule', 'avg', 2.0), (2, 'output_tokens_per_joule', 'avg', 3.0),
               (1, 'usd_per_million_output_tokens', 'avg', 1.0), (2, 'usd_per_million_output_tokens', 'avg', 2.0)"
# Job 2 ran against the completions endpoint: comparing it with job 1 (chat) warns.
sqlite3 "$db" "UPDATE scenarios SET endpoint_type = 'completions' WHERE id = 2"
# Job 2 was stopped by Ctrl-C (store migration 7): the list says so.
sqlite3 "$db" "UPDATE jobs SET interrupted = 1 WHERE id = 2"
# Job 1's client limited it (the fidelity verdict of its _genperf.json, kept whole as genperf_summary):
# the job page says so in its header.
sqlite3 "$db" "UPDATE jobs SET genperf_summary = '{\"fidelity\":{\"client_limited\":true,\"verdict\":\"limiting\",
  \"reasons\":[\"open-loop sends were late: schedule lag p99 40.0 ms\"],\"inputs\":{}}}' WHERE id = 1"
gp_start_ui --db "$db"
curl -s "$UI_URL/api/jobs" | python3 -c 'import json, sys; j = {r["id"]: r for r in json.load(sys.stdin)["jobs"]}; sys.exit(0 if j[2]["status"] == "interrupted" and j[2]["interrupted"] == 1 and j[1]["status"] != "interrupted" else 1)' ||
  { echo "/api/jobs: job 2 should read status interrupted"; curl -s "$UI_URL/api/jobs" | head -c 600; exit 1; }

# JSON endpoints: content type, escaping, errors.
ct=$(curl -s -o "$TMPDIR/jobs.json" -w '%{content_type}' "$UI_URL/api/jobs")
[ "$ct" = "application/json; charset=utf-8" ] || { echo "bad content type $ct"; exit 1; }
grep -q '"model":"<script>alert(1)</script>"' "$TMPDIR/jobs.json" || { echo "jobs JSON lacks the model"; cat "$TMPDIR/jobs.json"; exit 1; }
code=$(curl -s -o "$TMPDIR/e.json" -w '%{http_code}' "$UI_URL/api/job?id=999")
[ "$code" = 404 ] && grep -q '"error":' "$TMPDIR/e.json" || { echo "unknown job: want 404 JSON, got $code"; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "$UI_URL/api/jobs?sort=bogus")
[ "$code" = 400 ] || { echo "bad sort: want 400, got $code"; exit 1; }
n=$(curl -s "$UI_URL/api/jobs?model=nope" | { grep -o "\"job_label\"" || true; } | wc -l)
[ "$n" = 0 ] || { echo "model filter did not filter"; exit 1; }
curl -sI "$UI_URL/" >"$TMPDIR/head.txt"
grep -qi '^content-security-policy:.*script-src .self.' "$TMPDIR/head.txt" || { echo "page lacks CSP"; cat "$TMPDIR/head.txt"; exit 1; }

code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example:80' "$UI_URL/api/jobs")
[ "$code" = 403 ] || { echo "a rebinding Host header must get 403, got $code"; exit 1; }

curl -s -D "$TMPDIR/rep.h" -o "$TMPDIR/rep.html" "$UI_URL/report?id=1,2"
grep -qi '^content-disposition: attachment' "$TMPDIR/rep.h" && grep -q 'id="gp-bundle"' "$TMPDIR/rep.html" ||
  { echo "/report?id=1,2 is not a report download"; cat "$TMPDIR/rep.h"; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "$UI_URL/report")
[ "$code" = 400 ] || { echo "/report without id: want 400, got $code"; exit 1; }

q() { sqlite3 "$db" "$1"; }
lat=$(q "SELECT avg FROM v_genai_perf_outputs WHERE job_id=1 AND metric='request_latency'")
p99=$(q "SELECT p99 FROM v_genai_perf_outputs WHERE job_id=1 AND metric='request_latency'")
ttft=$(q "SELECT p50 FROM v_genai_perf_outputs WHERE job_id=1 AND metric='time_to_first_token'")
thr=$(q "SELECT avg FROM v_genai_perf_outputs WHERE job_id=1 AND metric='output_token_throughput'")
cat > "$TMPDIR/spec.json" <<JSON
{"base": "$UI_URL/", "offline": false, "jobs": 2, "model": "<script>alert(1)</script>", "job": 1,
 "metrics": {"request_latency.avg": $lat, "request_latency.p99": $p99, "time_to_first_token.p50": $ttft,
             "output_token_throughput.avg": $thr},
 "charts_min": 3, "hardware": true, "hardware_short": 2,
 "hardware_axis": {"chart": "host memory available (GiB)", "prefix": "23.07"}, "hardware_labels": ["host", "host @ node-b"], "compare": "1,2", "sort": "request_latency.p50",
 "status_bad": "interrupted", "fidelity": {"verdict": "limiting", "text": "client: limiting — open-loop sends were late: schedule lag p99 40.0 ms"}, "missing_job": 999, "sweep_links": true, "pareto_y": "output tokens/s per server", "pareto_axes": [{"value": "tpj", "label": "output tokens per joule", "front": 2}, {"value": "usd", "label": "$ per million output tokens", "front": 1}], "compare_mixed": "endpoint types (chat, completions)",
 "shots": "$SHOTS", "tag": "ui-fixture"}
JSON
gp_check "$TMPDIR/spec.json"
gp_stop_ui

# An empty store: the list says how to add jobs, not an empty table.
"$GENPERF" results --db "$TMPDIR/empty.db" --create >/dev/null || { echo "FAIL: results --create"; exit 1; }
gp_start_ui --db "$TMPDIR/empty.db"
cat > "$TMPDIR/empty.json" <<JSON
{"base": "$UI_URL/", "offline": false, "empty": true, "shots": "$SHOTS", "tag": "ui-empty"}
JSON
gp_check "$TMPDIR/empty.json"
