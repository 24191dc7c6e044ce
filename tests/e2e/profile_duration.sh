# --duration: time-bounded run; in-flight requests at the deadline are dropped.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 5 --token-ms 5
cd "$TMPDIR"
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --concurrency 3 --duration 1 >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
ms=$(( (t1 - t0) / 1000000 )); [ $ms -ge 1000 ] && [ $ms -lt 3000 ] || fail "took $ms ms, want ~1 s"
n=$(wc -l <"$LOG"); [ "$n" -ge 20 ] || fail "only $n requests in 1 s"
# --measurement-interval 300 (perf_analyzer: 3 windows of 1.2 x 300 ms) with an open loop
: >"$LOG"
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-rate 50 -p 300 >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 0 ] || fail "interval exit $rc"
ms=$(( (t1 - t0) / 1000000 )); [ $ms -ge 1080 ] && [ $ms -lt 3500 ] || fail "interval run took $ms ms, want ~1.1 s"
n=$(wc -l <"$LOG"); [ "$n" -ge 45 ] && [ "$n" -le 60 ] || fail "$n arrivals at 50/s over 1.08 s"
g=artifacts/m-openai-chat-request_rate50.0/profile_export_genai_perf.json
[ "$(json_get $g 'd["input_config"]["perf_analyzer"]["measurement"]["mode"]')" = interval ] || fail "measurement mode"
echo ok
