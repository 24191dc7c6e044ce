# --endpoint-type completions without --streaming: /v1/completions, default
# request count 10 (GenAI-Perf), non-SSE bodies recorded once.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub
cd "$TMPDIR"
"$GENPERF" profile -m m1 --url "$URL" --endpoint-type completions --tokenizer builtin \
  --synthetic-input-tokens-mean 16 --output-tokens-mean 4 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
d=artifacts/m1-openai-completions-concurrency1
[ -f $d/inputs.json ] || fail "no inputs.json"
n=$(grep -c ' /v1/completions ' "$LOG"); [ "$n" -eq 10 ] || fail "server saw $n completions requests, want 10"
[ "$(awk '{print $3}' "$LOG" | sort -n | tail -1)" = 1 ] || fail "concurrency 1 not honoured"
[ "$(json_get $d/profile_export.json 'len(d["experiments"][0]["requests"])')" = 10 ] || fail "export count"
[ "$(json_get $d/profile_export.json 'min(len(r["response_timestamps"]) for r in d["experiments"][0]["requests"])')" = 1 ] || fail "non-streamed body must be one response"
echo ok
