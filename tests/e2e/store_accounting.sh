#!/usr/bin/env bash
# store_accounting: a run against `genperf serve --reasoning 2 --miscount-rate 0.5`
# with --server-usage is ingested into SQLite; the token accounting (OSL vs
# completion_tokens disagreements = the server's own miscount count, template
# overhead 0) and the reasoning figures (TTFR, 2 reasoning tokens per request,
# total output throughput) come back from plain SQL with the values of
# *_genperf.json. An artifact without those blocks (as written before them:
# the same run with the blocks taken out) still ingests and adds none of
# their rows.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
"$GENPERF" serve --quiet --port 0 --port-file url --ttft-ms 5 --itl-ms 2 --reasoning 2 --seed 11 \
  --miscount-rate 0.5 --timing-log log.jsonl >/dev/null 2>&1 &
pid=$!
wait_file url 10 || fail "serve did not start"
"$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$(cat url)" --endpoint-type chat --streaming \
  --isl 16 --osl 6 --genperf-output-tokens-deterministic --request-count 12 --server-usage \
  --artifact-dir arts/run >prof.out 2>&1 || { cat prof.out; fail "profile failed"; }
kill -TERM $pid; wait $pid
cp -r arts/run arts/old
python3 - arts/old <<'PY' || fail "making the old-style artifact"
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*/*_genperf.json"):
    g = json.load(open(p)); g.pop("token_accounting"); g.pop("reasoning")
    json.dump(g, open(p, "w"), indent=2)
for p in glob.glob(sys.argv[1] + "/*/*_genai_perf.json"):  # another artifact hash: another job
    json.dump(json.load(open(p)), open(p, "w"), indent=4)
PY
"$GENPERF" ingest arts --db "sqlite://$TMPDIR/r.db" >ing.out 2>&1 || { cat ing.out; fail "ingest failed"; }
grep -q "2 jobs: 2 added" ing.out || fail "ingest: $(cat ing.out)"
q() { "$GENPERF" query --db "$TMPDIR/r.db" --format csv "$1" | tail -n +2; }
python3 - "$(find arts/run -name '*_genperf.json')" log.jsonl \
  "$(q "SELECT v.metric_code || ':' || v.stat || '=' || v.value FROM metric_values v JOIN jobs j ON j.id = v.job_id
        WHERE j.artifact_dir LIKE '%arts/run%' ORDER BY 1")" <<'PY' || fail "accounting rows"
import json, sys
g = json.load(open(sys.argv[1]))
truth = sum(1 for l in open(sys.argv[2]) if json.loads(l)["usage_miscount"])
rows = {}
for line in sys.argv[3].splitlines():
    k, v = line.rsplit("=", 1)
    rows[k] = float(v)
ta, rs = g["token_accounting"], g["reasoning"]
assert 0 < truth < 12, truth
assert rows["osl_server_disagree_count:avg"] == truth == ta["osl_vs_completion_tokens"]["disagree"], rows
assert rows["osl_server_difference:max"] == 1, rows
assert abs(rows["osl_server_difference:avg"] - truth / 12) < 1e-9, rows
assert rows["requests_with_server_usage:avg"] == 12, rows
assert rows["isl_template_overhead_tokens:avg"] == 0 and rows["isl_server_disagree_count:avg"] == 0, rows
assert rows["reasoning_tokens_per_request:avg"] == 2 == rows["reasoning_tokens_per_request:max"], rows
assert abs(rows["time_to_first_reasoning_token:p50"] - rs["time_to_first_reasoning_token"]["p50"]) < 1e-9, rows
assert 0 < rows["time_to_first_reasoning_token:avg"], rows
assert abs(rows["total_output_token_throughput:avg"] - rs["total_output_token_throughput"]) < 1e-6, rows
assert abs(rows["reasoning_token_throughput:avg"] - rs["reasoning_token_throughput"]) < 1e-6, rows
PY
got=$(q "SELECT COUNT(*) FROM metric_values v JOIN jobs j ON j.id = v.job_id JOIN metric_templates t
         ON t.code = v.metric_code WHERE j.artifact_dir LIKE '%arts/old%' AND
         (t.category = 'accounting' OR v.metric_code LIKE '%reasoning%' OR v.metric_code = 'total_output_token_throughput')")
[ "$got" = 0 ] || fail "old artifact gained accounting rows: $got"
[ "$(q "SELECT display_name FROM metric_templates WHERE code = 'time_to_first_reasoning_token'")" = \
  "Time To First Reasoning Token" ] || fail "template"
echo ok
