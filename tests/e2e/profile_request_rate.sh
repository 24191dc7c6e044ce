# --request-rate: open loop at the asked rate (constant and Poisson), with
# --max-concurrency capping requests in flight.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 4 --token-ms 1
cd "$TMPDIR"
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-rate 40 --request-count 40 >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
ms=$(( (t1 - t0) / 1000000 ))
# 40 arrivals 25 ms apart: the last one is sent at 975 ms
[ $ms -ge 950 ] && [ $ms -lt 4000 ] || fail "constant rate run took $ms ms, want ~1 s"
[ -d artifacts/m-openai-chat-request_rate40.0 ] || fail "run dir name"
[ "$(wc -l <"$LOG")" -eq 40 ] || fail "want 40 requests"
: >"$LOG"
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-rate 50 --request-count 60 --request-distribution poisson \
  --max-concurrency 2 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "poisson exit $rc"
[ "$(wc -l <"$LOG")" -eq 60 ] || fail "want 60 requests"
maxc=$(awk '{print $3}' "$LOG" | sort -n | tail -1)
[ "$maxc" -le 2 ] || fail "--max-concurrency 2 exceeded: $maxc"
echo ok
