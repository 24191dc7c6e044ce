# Failures: server 5xx on some requests -> counted, exit 0; every request 401
# -> exit 1 with the HTTP error; unreachable server -> exit 1, one clear line;
# server dying mid-run -> the run finishes, exit 0.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_stub --tokens 3 --fail-every 4
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-count 12 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "partial failures must exit 0, got $rc"
grep -q "3 of 12 requests failed" err.txt || fail "failure count not reported"
grep -q "HTTP code 500" err.txt || fail "error text missing"
grep -rq "HTTP code 500" artifacts/ || fail "error text not in artifacts"
cleanup; PIDS=()

start_stub --status 401
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-count 4 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 1 ] || fail "all failed must exit 1, got $rc"
grep -q "all 4 requests .* failed: OpenAI response returns HTTP code 401" err.txt || fail "401 message"
cleanup; PIDS=()

# a port nobody listens on: bind-and-close
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$GENPERF" profile -m m --url "http://127.0.0.1:$port" --endpoint-type chat --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-count 3 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 1 ] || fail "unreachable must exit 1, got $rc"
grep -qi "couldn't connect" err.txt || fail "no connect error"

"$GENPERF" profile -m m --url "ftp://127.0.0.1:$port" --endpoint-type chat --tokenizer builtin \
  --synthetic-input-tokens-mean 8 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 1 ] || fail "bad URL must exit 1, got $rc"
grep -q "not an http" err.txt || fail "bad URL message"

start_stub --tokens 3 --die-after 5
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-count 12 --concurrency 2 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "server death mid-run: want exit 0 (some requests succeeded), got $rc"
grep -q "requests failed" err.txt || fail "failures after server death not counted"
echo ok
