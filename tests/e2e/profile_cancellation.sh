# --request-cancellation-rate / --request-cancellation-delay (issue 31 item 4,
# AIPerf's flags): the chosen share of requests is aborted after the delay,
# recorded as cancelled, left out of the latency statistics and counted; the
# server sees the connections close (its /metrics running count falls to 0 and
# its abort counter counts them) long before the answers would have ended.
. "$GP_ROOT/tests/e2e/profile_common.inc"
command -v curl >/dev/null || { echo "curl not available"; exit 77; }
# 100 tokens at 50 ms: an answer takes 5 s unless it is cancelled
start_serve --ttft-ms 20 --itl-ms 50 --max-tokens-default 100
[ "$SERVER" = serve ] || fail "genperf serve did not start"
cd "$TMPDIR"
metric() { curl -s "$URL/metrics" | awk -v n="$1" 'index($0, n) == 1 { v = $NF } END { print v + 0 }'; }
abort_total() { curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ && /finished_reason="abort"/ { print $NF }'; }

# 1. every request cancelled after 0.3 s: the server's running count rises to 4,
# then falls to 0 well before the 5 s answers would have ended
( for i in $(seq 1 40); do metric 'vllm:num_requests_running{' >>running.txt; sleep 0.05; done ) &
poll=$!
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --concurrency 4 --request-count 4 \
  --request-cancellation-rate 100 --request-cancellation-delay 0.3 --artifact-dir all >out1.txt 2>err1.txt
rc=$?; t1=$(date +%s%N); cat err1.txt
ms=$(( (t1 - t0) / 1000000 ))
sleep 0.2
running_after=$(metric 'vllm:num_requests_running{')
wait $poll
check_rc $rc 1
[ $ms -lt 4000 ] || fail "all cancelled after 0.3 s, yet the run took $ms ms"
grep -q "all 4 requests were cancelled by --request-cancellation-rate 100" err1.txt || fail "all cancelled: message"
max_running=$(sort -n running.txt | tail -1)
[ "$max_running" = 4 ] || fail "server never saw 4 requests running (max $max_running)"
[ "$running_after" = 0 ] || fail "server still runs $running_after requests after the client cancelled them"
[ "$(abort_total)" = 4 ] || fail "server counted $(abort_total) aborted requests, want 4"

# 2. a share: 40 requests, 30 % chosen by the seed, cancelled after 0.2 s
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 6 --concurrency 8 --request-count 40 --random-seed 7 \
  --request-cancellation-rate 30 --request-cancellation-delay 0.2 --artifact-dir share >out2.txt 2>err2.txt
rc=$?; cat err2.txt
check_rc $rc 0
# cancellations asked for are not failures: no 'failures by kind' line counts them
grep -q "failures by kind" err2.txt && fail "planned cancellations reported as failures"
# 6 tokens finish in 0.27 s: a chosen request is still in flight at 0.2 s
d=$(ls -d share/*/ | head -1)
check_artifacts "$d" 40
python3 - "$d" <<'PY' || fail "share artifacts"
import glob, json, os, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(glob.glob(os.path.join(d, "*_records.jsonl"))[0])]
gp = json.load(open(glob.glob(os.path.join(d, "*_genperf.json"))[0]))
ga = json.load(open(glob.glob(os.path.join(d, "*_genai_perf.json"))[0]))
canc = [r for r in recs if r["fail_kind"] == "cancelled"]
ok = [r for r in recs if r["status"] == "ok"]
assert 4 <= len(canc) <= 20, "cancelled %d of 40 at 30 %%" % len(canc)
assert len(canc) + len(ok) == 40, (len(canc), len(ok))
for r in canc:
    assert "request cancelled 0.200 s after it was sent" in r["error"], r["error"]
    assert r["request_latency_ns"] is None or r["status"] != "ok"
c = gp["cancellation"]
assert c == {"rate_percent": 30.0, "delay_s": 0.2, "chosen": len(canc), "cancelled": len(canc),
             "completed_before_delay": 0}, c
assert gp["failures"]["cancelled"] == len(canc), gp["failures"]
# left out of the latency statistics: every counted request ran its 6 tokens
assert ga["request_count"]["avg"] == len(ok), (ga["request_count"], len(ok))
assert ga["request_latency"]["min"] > 250, ga["request_latency"]
PY
grep -q "client: $(json_get "$(ls $d/*_genperf.json)" 'd["cancellation"]["cancelled"]') of 40 measured requests cancelled" err2.txt \
  || fail "share: console line"
grep -q "requests failed" err2.txt && fail "planned cancellations reported as failures"
# the same seed chooses the same requests
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 6 --concurrency 8 --request-count 40 --random-seed 7 \
  --request-cancellation-rate 30 --request-cancellation-delay 0.2 --artifact-dir again >/dev/null 2>&1
d2=$(ls -d again/*/ | head -1)
sel() { python3 -c 'import json,sys; print(sorted((r["slot"], r["entry"]) for r in map(json.loads, open(sys.argv[1])) if r["fail_kind"] == "cancelled"))' "$(ls $1/*_records.jsonl)"; }
[ "$(sel "$d")" = "$(sel "$d2")" ] || fail "same --random-seed chose other requests: $(sel "$d") vs $(sel "$d2")"

# 3. refused values
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --request-cancellation-rate 101 >/dev/null 2>err3.txt
check_rc $? 1 2
grep -q -- "--request-cancellation-rate 101: must be a percentage from 0 to 100" err3.txt || fail "rate 101 message"
echo ok
