# Issue 28 item 11: an AIPerf command line runs as written. AIPerf's
# spellings (--model-names, --prompt-input-tokens-mean, --output-artifact-dir,
# --api-key, --custom-dataset-type mooncake_trace, bare --fixed-schedule, ...)
# are read as genperf's flags with one note each; the API key reaches the
# server (which refuses requests without it) and is written nowhere; a
# Mooncake trace with timestamps replays on its schedule; flags genperf
# cannot honour are refused naming the flag (exit 2).
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --zero-delay --api-key sk-aiperf-7f3e
cd "$TMPDIR"
rc=0
"$GENPERF" profile --model-names sim --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --prompt-input-tokens-mean 32 --prompt-output-tokens-mean 8 --osl-stddev 0 --request-count 12 \
  --concurrency 2 --output-artifact-dir arts --api-key sk-aiperf-7f3e --ui-type none \
  --request-timeout-seconds 30 >out.txt 2>err.txt || rc=$?
cat err.txt
check_rc $rc 0
grep -q "AIPerf's --prompt-input-tokens-mean read as --synthetic-input-tokens-mean" err.txt || fail "no note"
grep -q "AIPerf's --ui-type ignored" err.txt || fail "no ignore note"
d=arts/sim-openai-chat-concurrency2
check_artifacts "$d" 12
[ "$(json_get "$d/profile_export_genai_perf.json" 'int(d["request_count"]["avg"])')" = 12 ] || fail "not 12 requests"
[ "$(json_get "$d/profile_export_genai_perf.json" 'd["input_config"]["input"]["synthetic_tokens"]["mean"]')" = 32 ] ||
  fail "ISL not 32"
if grep -rq "sk-aiperf-7f3e" arts out.txt err.txt; then grep -rl "sk-aiperf-7f3e" arts out.txt err.txt; fail "the key was written"; fi

# a Mooncake trace, as AIPerf takes it: no payload: prefix, --fixed-schedule inferred from the timestamps
printf '{"timestamp": 0, "input_length": 20, "output_length": 4, "hash_ids": [1]}\n{"timestamp": 300, "input_length": 30, "output_length": 4, "hash_ids": [1]}\n' >trace.jsonl
rc=0
"$GENPERF" profile -m sim --url "$URL" --endpoint-type chat --tokenizer builtin --api-key sk-aiperf-7f3e \
  --custom-dataset-type mooncake_trace --input-file trace.jsonl --output-artifact-dir tr >out2.txt 2>err2.txt || rc=$?
cat err2.txt
check_rc $rc 0
grep -q "open loop" err2.txt || fail "the trace did not replay on its schedule"
python3 - tr/*/profile_export.json <<'P' || fail "trace rows not 300 ms apart"
import json, sys
d = json.load(open(sys.argv[1]))
ts = sorted(r["timestamp"] for r in d["experiments"][0]["requests"])
assert len(ts) == 2 and 0.25e9 < ts[1] - ts[0] < 0.6e9, ts
P

# refused, naming the flag
for bad in "--benchmark-grace-period 5" "--custom-dataset-type random_pool" "--isl-block-size 64"; do
  rc=0
  # shellcheck disable=SC2086
  "$GENPERF" profile -m sim --url "$URL" --tokenizer builtin $bad >/dev/null 2>e.txt || rc=$?
  [ $rc = 2 ] || fail "$bad: exit $rc, want 2"
  grep -q "error: .*${bad%% *}" e.txt || { cat e.txt; fail "$bad: message"; }
done
echo ok
