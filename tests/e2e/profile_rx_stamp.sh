# Chunk stamps come from the socket's receive time (SO_TIMESTAMPNS), not from
# when the event loop got round to the read. The client is stopped (SIGSTOP)
# for 150 ms, then runs for 30-110 ms, while the server streams one chunk per 200 ms
# per request, so most chunks wait in the socket for the loop; each read then
# holds one chunk. Every chunk's stamp is compared with the server's own send
# time (--timing-log, CLOCK_MONOTONIC):
#  - kernel stamps (the default): every chunk within 30 ms of the truth;
#  - GENPERF_RX_STAMP=user, the same run stamped when recv returns: some chunk
#    over 50 ms late (proof that the stops did delay the reads, so the first
#    check could fail).
# _genperf.json says which stamp was used and how late the reads were. A
# non-streamed body (below) is stamped with its last read's receive time.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"

run() { # dir, env...: a fresh server each time; its log is complete once it stopped
  local dir=$1; shift
  start_serve --ttft-ms 20 --itl-ms 200 --tokenizer builtin --timing-log "$TMPDIR/$dir.truth"
  [ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
  local spid=${PIDS[${#PIDS[@]}-1]}
  env "$@" "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
    --synthetic-input-tokens-mean 8 --output-tokens-mean 12 --genperf-output-tokens-deterministic \
    --request-count 4 --concurrency 4 --artifact-dir "$dir" >"$dir.out" 2>"$dir.err" &
  local pid=$!
  sleep 0.1
  # The running gaps vary (30-110 ms) so that the stops sweep every phase of
  # the 200 ms chunk period: with one fixed gap the cycle (150 + 30 ms plus
  # two forks of sleep) came out at 194-200 ms here, the chunks kept one phase
  # for the whole run, and whether any read was delayed depended on how long
  # genperf took to start (both checks below failed that way, 3 runs of 3).
  local gaps=(0.03 0.09 0.05 0.11 0.07) k=0
  while kill -0 $pid 2>/dev/null; do
    kill -STOP $pid 2>/dev/null; sleep 0.15; kill -CONT $pid 2>/dev/null; sleep ${gaps[k++ % 5]}
  done
  wait $pid || { cat "$dir.err"; fail "$dir: exit $?"; }
  kill -TERM $spid; wait $spid 2>/dev/null
}

check() { # dir, expect: kernel|user
  python3 - "$1"/*/ "$TMPDIR/$1.truth" "$2" <<'PY'
import glob, json, re, sys, time
d, log, mode = sys.argv[1:4]
off = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
truth = {}
for line in open(log):
    r = json.loads(line)
    truth[r["id"]] = [t for t, k in zip(r["chunks_ns"], r["kinds"]) if k == "C"]
reqs = json.load(open(d + "profile_export.json"))["experiments"][0]["requests"]
errs = []
for q in reqs:
    rid, got = None, []
    for ts, out in zip(q["response_timestamps"], q["response_outputs"]):
        text = out.get("response", "")
        m = re.search(r'"id"\s*:\s*"([^"]+)"', text)
        rid = rid or (m and m.group(1))
        got += [ts - off] * len(re.findall(r'"content"\s*:\s*"(?:[^"\\]|\\.)+"', text))
    want = truth[rid]
    assert len(got) == len(want) == 12, (rid, len(got), len(want))
    errs += [abs(g - w) / 1e6 for g, w in zip(got, want)]
worst = max(errs)
cl = json.load(open(glob.glob(d + "*_genperf.json")[0]))["client"]
print("%s: %d chunks, worst |stamp - server send| %.1f ms, median %.2f ms; receive_stamp %s, recv_lag %s"
      % (mode, len(errs), worst, sorted(errs)[len(errs) // 2], cl["receive_stamp"], cl["recv_lag"]))
if mode == "kernel":
    assert cl["receive_stamp"] == "kernel", cl
    assert cl["recv_lag"]["max_us"] > 50000, "the stops did not delay a read: %s" % cl["recv_lag"]
    assert worst < 30, "a chunk stamped %.1f ms away from its send" % worst
else:
    assert cl["receive_stamp"] == "recv", cl
    assert worst > 50, "stamped on return, yet no chunk was late: %.1f ms" % worst
PY
}

run k
check k kernel || fail "kernel stamps"
run u GENPERF_RX_STAMP=user
check u user || fail "recv stamps (control)"

# Non-streamed: the body is one chunk stamped at completion, which is its last
# read's receive time. The server answers ~820 ms after the request; the
# client is stopped as soon as the server has the request (its /metrics say
# so) and for 1.2 s, so the body waits in the socket for ~0.4 s or more
# however slowly the client started.
ns_run() { # dir, env...
  local dir=$1; shift
  start_serve --ttft-ms 20 --itl-ms 400 --tokenizer builtin --timing-log "$TMPDIR/$dir.truth"
  local spid=${PIDS[${#PIDS[@]}-1]}
  env "$@" "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --tokenizer builtin \
    --synthetic-input-tokens-mean 8 --output-tokens-mean 3 --genperf-output-tokens-deterministic \
    --request-count 1 --concurrency 1 --artifact-dir "$dir" >"$dir.out" 2>"$dir.err" &
  local pid=$!
  local i
  for i in $(seq 200); do
    [ "$(curl -s "$URL/metrics" | awk '/^vllm:num_requests_running/ {s += $2} END {print s + 0}')" -ge 1 ] && break
    sleep 0.01
  done
  kill -STOP $pid; sleep 1.2; kill -CONT $pid
  wait $pid || { cat "$dir.err"; fail "$dir: exit $?"; }
  kill -TERM $spid; wait $spid 2>/dev/null
  python3 - "$dir"/*/ "$TMPDIR/$dir.truth" <<'PY'
import json, sys, time
d, log = sys.argv[1:3]
off = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
sent = json.loads(open(log).readline())["chunks_ns"][-1]
q = json.load(open(d + "profile_export.json"))["experiments"][0]["requests"][0]
print("%.1f" % ((q["response_timestamps"][-1] - off - sent) / 1e6))
PY
}
late=$(ns_run nk) || fail "non-streamed, kernel stamps"
echo "non-streamed body stamped $late ms after the server sent it (kernel stamps)"
python3 -c "import sys; sys.exit(0 if abs(float('$late')) < 30 else 1)" || fail "non-streamed: $late ms off"
late=$(ns_run nu GENPERF_RX_STAMP=user) || fail "non-streamed, recv stamps"
echo "non-streamed body stamped $late ms after the server sent it (recv stamps)"
python3 -c "import sys; sys.exit(0 if float('$late') > 200 else 1)" || fail "non-streamed control: only $late ms late"

# a typo in the variable fails before anything runs
GENPERF_RX_STAMP=kernal "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --request-count 1 \
  --artifact-dir bad >bad.out 2>bad.err && fail "GENPERF_RX_STAMP=kernal accepted"
grep -q 'GENPERF_RX_STAMP=kernal' bad.err || { cat bad.err; fail "no message naming GENPERF_RX_STAMP"; }
[ ! -e bad ] || fail "artifacts written for a bad GENPERF_RX_STAMP"
echo ok
