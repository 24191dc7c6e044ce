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
# one request in flight at the deadline (concurrency 1, an answer takes 2 s): the closing
# note counts it in the singular (issue 43 item 6: it said "1 requests ... were dropped")
stop_serve
start_stub --tokens 20 --token-ms 100
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --concurrency 1 --duration 0.5 --artifact-dir one >out.txt 2>err.txt
rc=$?; cat err.txt
check_rc $rc 0 1
grep -q "^genperf: 1 request still in flight at the end of the time-bounded run was dropped$" err.txt ||
  fail "one dropped request: $(grep dropped err.txt)"
start_stub --tokens 5 --token-ms 5
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
