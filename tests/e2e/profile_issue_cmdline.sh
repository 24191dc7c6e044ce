# The exact command line of the issue (with --tokenizer builtin) against
# `genperf serve --api-key KEY`: 200 requests, concurrency 16 honoured (max
# overlap of the exported request intervals), every artifact written.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --api-key KEY --ttft-ms 5 --itl-ms 0.2 --quiet
cd "$TMPDIR"
t0=$(date +%s%N)
"$GENPERF" profile -m Qwen/Qwen3-8B --url "$URL" -H "Authorization: Bearer KEY" \
  -H "Accept: text/event-stream" --tokenizer builtin --endpoint-type chat --streaming \
  --synthetic-input-tokens-mean 512 --synthetic-input-tokens-stddev 0 --output-tokens-mean 128 \
  --output-tokens-stddev 0 --request-count 200 --num-dataset-entries 200 --concurrency 16 --random-seed 0 \
  --profile-export-file my_run.json --artifact-dir artifacts >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
echo "wall $(( (t1 - t0) / 1000000 )) ms"
d=artifacts/Qwen_Qwen3-8B-openai-chat-concurrency16
for f in inputs.json my_run.json my_run_genai_perf.json my_run_genai_perf.csv; do
  [ -f $d/$f ] || fail "missing $d/$f"
done
grep -q "NVIDIA GenAI-Perf | LLM Metrics" out.txt || fail "no console table"
[ "$(json_get $d/inputs.json 'len(d["data"])')" = 200 ] || fail "inputs.json entries"
[ "$(json_get $d/inputs.json 'd["data"][0]["payload"][0]["stream"]')" = True ] || fail "stream not set"
[ "$(json_get $d/inputs.json 'd["data"][0]["payload"][0]["max_tokens"]')" = 128 ] || fail "max_tokens"
[ "$(json_get $d/my_run.json 'len(d["experiments"][0]["requests"])')" = 200 ] || fail "export requests"
[ "$(json_get $d/my_run_genai_perf.json 'd["request_count"]["avg"]')" = 200.0 ] || fail "request_count (failures?)"
[ "$(json_get $d/my_run_genai_perf.json 'd["input_config"]["perf_analyzer"]["stimulus"]["concurrency"]')" = 16 ] || fail "input_config"
# issue 14: the bearer token is written redacted (GenAI-Perf writes it verbatim)
[ "$(json_get $d/my_run_genai_perf.json 'd["input_config"]["input"]["header"][0]')" = "Authorization: ***" ] || fail "header in input_config"
# closed loop: never more than 16 requests in flight, and 16 reached
maxc=$(json_get $d/my_run.json '(lambda ev: max(__import__("itertools").accumulate(x[1] for x in sorted(ev))))([(r["timestamp"],1) for r in d["experiments"][0]["requests"]] + [(r["response_timestamps"][-1],-1) for r in d["experiments"][0]["requests"]])')
[ "$maxc" -le 16 ] && [ "$maxc" -ge 14 ] || fail "max in flight $maxc, want 16"
echo ok
