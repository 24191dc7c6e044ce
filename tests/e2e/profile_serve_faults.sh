# Against `genperf serve` with seeded faults (429/500/503, mid-stream error
# events, TCP resets, malformed chunks, stalls cut by --request-timeout, slow
# headers): the run completes, and every fault the server's timing log says
# it injected is one client record of the matching kind, one for one (exact
# counts), with its error text; every artifact parses; resets are followed by
# exactly one reconnect back-off each (but a slot's last request).
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --ttft-ms 2 --itl-ms 0.5 --quiet --seed 3 --fault-rate-429 0.05 --fault-rate-500 0.05 \
  --fault-rate-503 0.05 --fault-rate-stream-error 0.05 --fault-rate-reset 0.05 --fault-rate-malformed 0.05 \
  --fault-rate-stall 0.05 --stall-s 5 --fault-rate-slow-headers 0.05 --slow-headers-ms 300 \
  --timing-log "$TMPDIR/truth.jsonl"
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 16 --output-tokens-mean 16 --concurrency 8 --request-count 200 \
  --request-timeout 1 >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
check_rc $rc 0
ms=$(( (t1 - t0) / 1000000 )); echo "wall $ms ms"; [ $ms -lt 20000 ] || fail "too slow"
stop_serve
d=artifacts/m-openai-chat-concurrency8
check_artifacts $d 200
python3 - "$d/profile_export_genperf.json" "$d/profile_export_records.jsonl" truth.jsonl <<'PY' || fail "failure accounting"
import collections, json, sys
g = json.load(open(sys.argv[1]))
recs = [json.loads(l) for l in open(sys.argv[2])]
log = [json.loads(l) for l in open(sys.argv[3])]
# a reset before any byte on a reused connection looks like a stale keep-alive
# connection: resent once (not a failure), so the server saw it twice
retried = g["requests"]["retried_stale_connection"]
assert len(log) == 200 + retried, "server saw %d requests, client sent 200 + %d resends" % (len(log), retried)
assert retried <= sum(1 for e in log if e["fault"] == "reset" and not e["kinds"]), retried
fault = collections.Counter(e["fault"] for e in log)
print("server faults:", dict(fault))
assert sum(v for k, v in fault.items() if k) >= 40, fault  # ~8 kinds x 5 %
for k in ("429", "500", "503", "stream_error", "reset", "stall", "malformed", "slow_headers"):
    assert fault[k] > 0, "seed 3 injects no %s fault: pick another seed" % k
failed = [r for r in recs if r["status"] != "ok"]
n_ok_log = sum(1 for e in log if e["outcome"] == "ok")
def n(pred):
    return sum(1 for r in recs if pred(r))
def fk(kind, text):
    got = [r for r in failed if r["fail_kind"] == kind]
    assert all(text in r["error"] for r in got), (kind, [r["error"] for r in got if text not in r["error"]][:2])
    return got
http = fk("http", "OpenAI response returns HTTP code")
for code in (429, 500, 503):
    c = sum(1 for r in http if r["http_status"] == code)
    assert c == fault[str(code)], (code, c, fault[str(code)])
assert len(http) == fault["429"] + fault["500"] + fault["503"]
assert len(fk("stream_error", "in-stream error")) == fault["stream_error"]
# a reset after some bytes is a cut stream (truncated), before any a transport failure
resets = [r for r in failed if "Connection reset by peer" in r["error"]]
assert all(r["fail_kind"] in ("truncated", "transport") for r in resets), resets
assert len(resets) == fault["reset"] - retried, (len(resets), fault["reset"], retried)
assert len(fk("timeout", "request timed out after 1 s (--request-timeout)")) == fault["stall"]
assert len(failed) == len(log) - retried - n_ok_log, (len(failed), len(log), retried, n_ok_log)
assert len(failed) == fault["429"] + fault["500"] + fault["503"] + fault["stream_error"] + len(resets) + fault["stall"]
assert n(lambda r: r["status"] == "ok") == 200 - len(failed)
# a malformed chunk is counted, not a failure; slow headers only delay the first token
assert sum(r["bad_events"] for r in recs) == fault["malformed"] == g["requests"]["malformed_events"]
assert n(lambda r: r["status"] == "ok" and r["ttft_ns"] >= 300e6) == fault["slow_headers"]
req, f = g["requests"], g["failures"]
assert (req["measured"], req["failed"], req["ok"]) == (200, len(failed), 200 - len(failed)), req
assert (f["http"], f["stream_error"], f["transport"] + f["truncated"], f["timeout"]) == \
    (len(http), fault["stream_error"], len(resets), fault["stall"]), f
# back-off: one per reset, except after the last request of its slot (no next request to delay)
last = {}
for r in recs:
    if r["slot"] not in last or r["t_start_ns"] > last[r["slot"]]["t_start_ns"]:
        last[r["slot"]] = r
want = sum(1 for r in resets if last[r["slot"]] is not r)
bo = g["client"].get("backoff", {"count": 0, "total_ms": 0})
print("resets", len(resets), "back-offs", bo)
assert bo["count"] == want and (want == 0 or bo["total_ms"] >= 5 * want), (bo, want)
PY
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
