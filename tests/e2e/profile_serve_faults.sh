# Against `genperf serve` with seeded faults (429/500/503, mid-stream error
# events, TCP resets, malformed chunks, stalls cut by --request-timeout): the
# run completes, failures are counted with their error text, exit 0.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --ttft-ms 2 --itl-ms 0.5 --quiet --seed 3 --fault-rate-429 0.05 --fault-rate-500 0.05 \
  --fault-rate-503 0.05 --fault-rate-stream-error 0.05 --fault-rate-reset 0.05 --fault-rate-malformed 0.05 \
  --fault-rate-stall 0.05 --stall-s 5
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 16 --output-tokens-mean 16 --concurrency 8 --request-count 200 \
  --request-timeout 1 >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
ms=$(( (t1 - t0) / 1000000 )); echo "wall $ms ms"; [ $ms -lt 20000 ] || fail "too slow"
d=artifacts/m-openai-chat-concurrency8
g=$d/profile_export_genperf.json
[ -f $g ] || fail "no genperf.json"
python3 - "$g" "$d/profile_export_records.jsonl" <<'PY' || fail "failure accounting"
import json, sys
g = json.load(open(sys.argv[1]))
req, f = g["requests"], g["failures"]
print(req, f)
assert req["measured"] == 200, req
assert 20 <= req["failed"] <= 120, req
assert req["ok"] + req["failed"] == 200
assert f["http"] > 0 and f["timeout"] > 0, f
recs = [json.loads(l) for l in open(sys.argv[2])]
assert len(recs) == 200, len(recs)
PY
grep -q "HTTP code 429\|HTTP code 50[03]" $d/profile_export_records.jsonl || fail "no HTTP error text in records"
grep -q "requests failed; first error" err.txt || fail "no failure summary on stderr"

# idle keep-alive connections closed by the server are not failures
: >err.txt
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url2" --idle-timeout-s 0.2 --zero-delay --quiet & PIDS+=($!)
wait_file "$TMPDIR/url2" 10 || fail "second server"
"$GENPERF" profile -m m --url "$(cat "$TMPDIR/url2")" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 4 --request-rate 3 --request-count 4 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "idle exit $rc"
grep -q "requests failed" err.txt && fail "stale keep-alive counted as failures"
echo ok
