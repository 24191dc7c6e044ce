#!/usr/bin/env bash
# Issue 43 item 4: `genperf results` fits a terminal. A store with several kinds of runs (a
# closed loop with a long model name, an open-loop rate, a --fixed-schedule trace replayed at
# --trace-speedup 2, and a GenAI-Perf run ingested with --label/--framework): every line of the
# default table is at most 160 characters; its load column says the trace and its speed-up
# for the replay (it was blank); --wide has the columns the default leaves out, unclipped;
# CSV/JSON keep every column, the trace's file and speed-up as their own fields.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --ttft-ms 2 --itl-ms 1
cd "$TMPDIR"
P=(--url "$URL" --tokenizer builtin --endpoint-type chat --streaming)
long=meta-llama/Llama-3.1-405B-Instruct-FP8-dynamic-quantized-w8a8
"$GENPERF" profile -m "$long" "${P[@]}" --isl 8 --osl 2 --concurrency 2 --request-count 10 \
  --artifact-dir conc >conc.log 2>&1 || { cat conc.log; fail "concurrency run"; }
"$GENPERF" profile -m m "${P[@]}" --isl 8 --osl 2 --request-rate 50 --request-count 50 \
  --artifact-dir rate >rate.log 2>&1 || { cat rate.log; fail "request-rate run"; }
printf '%s\n' '{"timestamp": 0, "input_length": 8, "output_length": 2}' \
  '{"timestamp": 20, "input_length": 8, "output_length": 2}' \
  '{"timestamp": 40, "input_length": 8, "output_length": 2}' >day1_trace.jsonl
"$GENPERF" profile -m m "${P[@]}" --fixed-schedule true --input-file payload:day1_trace.jsonl --trace-speedup 2 \
  --artifact-dir trace >trace.log 2>&1 || { cat trace.log; fail "trace run"; }
gp=$(ls trace/*/*_genperf.json)
[ "$(json_get "$gp" 'd["trace"]')" = "{'file': 'day1_trace.jsonl', 'speedup': 2.0}" ] ||
  fail "_genperf.json trace block: $(json_get "$gp" 'd.get("trace")')"
db="$TMPDIR/r.db"
for d in conc rate trace; do "$GENPERF" ingest "$d" --db "$db" >/dev/null || fail "ingest $d"; done
"$GENPERF" ingest "$GP_ROOT/tests/fixtures/genai-perf/real-genai-perf" --db "$db" --label a-rather-long-baseline-label \
  --framework vllm >/dev/null || fail "ingest the GenAI-Perf fixture"
"$GENPERF" results --db "$db" >table.txt || fail "results"
"$GENPERF" results --db "$db" --wide >wide.txt || fail "results --wide"
cat table.txt wide.txt
python3 - table.txt wide.txt <<'PY' || fail "results tables"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
wide = open(sys.argv[2], encoding="utf-8").read().splitlines()
assert len(lines) == 6, lines  # header, rule, four jobs
for l in lines:
    assert len(l) <= 160, "%d characters: %s" % (len(l), l)
head = lines[0].split()
start = lines[0].index("load")
end = start + len(lines[1].split()[head.index("load")])
loads = [l[start:end].strip() for l in lines[2:]]
assert loads[0] == "concurrency 2", loads
assert loads[1].startswith("rate 50"), loads
assert loads[2] == "trace x2 day1_trace.jsonl", loads
assert loads[3] == "concurrency 2", loads
import re  # how much is clipped depends on the other columns' widths
assert re.search("meta\\S*\u2026\\S*w8a8", lines[2]), "the long model is clipped in the middle: " + lines[2]
# --wide: every column the default leaves out, nothing clipped
whead = wide[0].split()
missing = {"endpoint_type", "concurrency", "request_rate", "trace_file", "trace_speedup", "started_at",
           "requests_ok", "requests_failed", "tokens_per_s", "requests_per_s"} - set(whead)
assert not missing, missing
assert set(head) - {"id", "started", "ok", "failed", "tokens/s", "req/s", "osl_out"} <= set(whead), (head, whead)
assert "osl_out" in head and "osl_measured" in whead, (head, whead)
assert any("meta-llama/Llama-3.1-405B-Instruct-FP8-dynamic-quantized-w8a8" in l for l in wide), "wide clipped"
PY
csv=$("$GENPERF" results --db "$db" --format csv)
grep -Eq "^3,,m,,chat,,,day1_trace.jsonl,2,8,2,[0-9.]+,completed," <<<"$csv" || fail "csv: the trace's file and speed-up: $csv"
"$GENPERF" results --db "$db" --format json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert rows[2]["trace_file"] == "day1_trace.jsonl" and rows[2]["trace_speedup"] == 2, rows[2]
assert rows[0]["concurrency"] == 2 and rows[1]["request_rate"] == 50, rows[:2]' || fail "json"
# columns empty in every row are left out of the default table, kept by --wide
"$GENPERF" ingest conc --db "$TMPDIR/one.db" >/dev/null || fail "ingest into one.db"
"$GENPERF" results --db "$TMPDIR/one.db" | head -n1 | grep -qw "label\|framework" && fail "empty label/framework shown"
"$GENPERF" results --db "$TMPDIR/one.db" --wide | head -n1 | grep -q "label .*framework" || fail "--wide lost label/framework"
echo ok
