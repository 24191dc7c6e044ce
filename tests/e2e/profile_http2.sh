# --http2 through nghttpx (an h2c front end for `genperf serve`): every request
# succeeds and most go over HTTP/2. Skipped when nghttpx is not installed.
. "$GP_ROOT/tests/e2e/profile_common.inc"
command -v nghttpx >/dev/null || { echo "nghttpx not installed (apt-get install nghttp2-proxy)"; exit 77; }
start_serve --ttft-ms 1 --itl-ms 0.5 --quiet
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
bp=${URL##*:}
fp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
nghttpx --conf=/dev/null --frontend="127.0.0.1,$fp;no-tls" --backend="127.0.0.1,$bp" --workers=1 \
  --accesslog-file="$TMPDIR/access.log" --errorlog-file="$TMPDIR/error.log" & PIDS+=($!)
for i in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$fp) 2>/dev/null && break; sleep 0.1; done
"$GENPERF" profile -m m --url "http://127.0.0.1:$fp" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 10 --concurrency 4 --request-count 40 --http2 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
grep -q "requests failed" err.txt && fail "failures over HTTP/2"
h2=$(grep -c 'HTTP/2"' "$TMPDIR/access.log")
[ "$h2" -ge 30 ] || fail "only $h2 of 40 requests used HTTP/2"
echo ok
