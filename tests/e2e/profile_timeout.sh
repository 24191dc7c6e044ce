# A stalled stream fails after --request-timeout; the run goes on and exits 0.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 3 --stall-every 3
cd "$TMPDIR"
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-count 6 --concurrency 2 --request-timeout 1 >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
ms=$(( (t1 - t0) / 1000000 )); [ $ms -lt 5000 ] || fail "took $ms ms"
grep -q "2 of 6 requests failed; first error: request timed out" err.txt || fail "timeouts not counted"
echo ok
