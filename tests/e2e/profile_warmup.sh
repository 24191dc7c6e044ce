# --warmup-request-count: sent first, excluded from the measured requests.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 3
cd "$TMPDIR"
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --concurrency 2 --request-count 6 --warmup-request-count 5 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
[ "$(wc -l <"$LOG")" -eq 11 ] || fail "server saw $(wc -l <"$LOG") requests, want 5 warmup + 6"
d=artifacts/m-openai-chat-concurrency2
[ "$(json_get $d/profile_export.json 'len(d["experiments"][0]["requests"])')" = 6 ] || fail "warmup not excluded"
echo ok
