# --endpoint-type completions without --streaming: /v1/completions, default
# request count 10 (GenAI-Perf), non-SSE bodies recorded once.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub
cd "$TMPDIR"
"$GENPERF" profile -m m1 --url "$URL" --endpoint-type completions --tokenizer builtin \
  --synthetic-input-tokens-mean 16 --output-tokens-mean 4 --extra-inputs temperature:0.5 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
d=artifacts/m1-openai-completions-concurrency1
[ -f $d/inputs.json ] || fail "no inputs.json"
n=$(grep -c ' /v1/completions ' "$LOG"); [ "$n" -eq 10 ] || fail "server saw $n completions requests, want 10"
[ "$(awk '{print $3}' "$LOG" | sort -n | tail -1)" = 1 ] || fail "concurrency 1 not honoured"
[ "$(json_get $d/profile_export.json 'len(d["experiments"][0]["requests"])')" = 10 ] || fail "export count"
[ "$(json_get $d/profile_export.json 'min(len(r["response_timestamps"]) for r in d["experiments"][0]["requests"])')" = 1 ] || fail "non-streamed body must be one response"
# dataset order with concurrency 1: entries 0, 1, 2, ... (perf_analyzer)
python3 - $d/inputs.json $d/profile_export.json <<'PY' || fail "dataset order"
import json, sys
ins = [e["payload"][0] for e in json.load(open(sys.argv[1]))["data"]]
reqs = json.load(open(sys.argv[2]))["experiments"][0]["requests"]
got = [json.loads(r["request_inputs"]["payload"]) for r in reqs]
assert got == [ins[i % len(ins)] for i in range(len(reqs))], "order differs"
assert "stream" not in got[0] and "prompt" in got[0], got[0]
assert got[0]["temperature"] == 0.5, got[0]
PY
echo ok
