# The exact command line of the issue (with --tokenizer builtin): 200 requests,
# concurrency 16 honoured, headers sent, artifacts named as GenAI-Perf names them.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --token-ms 0.5
cd "$TMPDIR"
"$GENPERF" profile -m Qwen/Qwen3-8B --url "$URL" -H "Authorization: Bearer KEY" \
  -H "Accept: text/event-stream" --tokenizer builtin --endpoint-type chat --streaming \
  --synthetic-input-tokens-mean 512 --synthetic-input-tokens-stddev 0 --output-tokens-mean 128 \
  --output-tokens-stddev 0 --request-count 200 --num-dataset-entries 200 --concurrency 16 --random-seed 0 \
  --profile-export-file my_run.json --artifact-dir artifacts >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
d=artifacts/Qwen_Qwen3-8B-openai-chat-concurrency16
[ -f $d/inputs.json ] || fail "no inputs.json"
[ "$(json_get $d/inputs.json 'len(d["data"])')" = 200 ] || fail "inputs.json entries"
[ "$(json_get $d/inputs.json 'd["data"][0]["payload"][0]["stream"]')" = True ] || fail "stream not set"
n=$(wc -l <"$LOG"); [ "$n" -eq 200 ] || fail "server saw $n requests, want 200"
maxc=$(awk '{print $3}' "$LOG" | sort -n | tail -1)
[ "$maxc" -le 16 ] && [ "$maxc" -ge 12 ] || fail "max in flight $maxc, want ~16"
grep -q "Bearer KEY" "$LOG" || fail "Authorization header not sent"
[ -f $d/my_run.json ] || fail "no my_run.json"
[ -f $d/my_run_genai_perf.json ] || fail "no my_run_genai_perf.json"
[ -f $d/my_run_genai_perf.csv ] || fail "no my_run_genai_perf.csv"
[ "$(json_get $d/my_run.json 'len(d["experiments"][0]["requests"])')" = 200 ] || fail "export requests"
[ "$(json_get $d/my_run_genai_perf.json 'd["request_count"]["avg"]')" = 200.0 ] || fail "request_count"
[ "$(json_get $d/my_run_genai_perf.json 'd["input_config"]["perf_analyzer"]["stimulus"]["concurrency"]')" = 16 ] || fail "input_config"
echo ok
