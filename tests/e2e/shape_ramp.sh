#!/usr/bin/env bash
# shape_ramp: --ramp-up-duration (issue 16).
# 1. --concurrency 4 --ramp-up-duration 1 against a ~50 ms server: slot k opens at (k-1)/3 s, so the
#    server's timing log never has more than k requests in flight before slot k+1 opens, and reaches 4
#    after the ramp; requests started in the ramp are left out of the measurement: *_genperf.json
#    "ramp" counts them, GenAI-Perf's request_count is the rest, _records.jsonl marks them warmup.
# 2. --request-rate 40 --ramp-up-duration 1 (the rate grows 0 -> 40/s over 1 s: 20 arrivals in the
#    ramp): exactly those 20 are excluded, 40 are measured.
set -u
source "$(dirname "$0")/shape_common.inc"
shape_run conc --concurrency 4 --ramp-up-duration 1 --request-count 160 --isl 8 --osl 1 \
    -- --ttft-ms 50 --itl-ms 0
shape_run rate --request-rate 40 --request-rate-mode constant --ramp-up-duration 1 --request-count 60 \
    --isl 8 --osl 1 -- --ttft-ms 20 --itl-ms 0
python3 - "$TMPDIR" <<'PY'
import glob, json, sys
tmp = sys.argv[1]
bad = []
def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c: bad.append(what)
def art(name, suffix):
    return glob.glob("%s/art.%s/*/*%s" % (tmp, name, suffix))[0]

# ---- concurrency ramp
log = sorted((json.loads(l) for l in open(tmp + "/conc.log")), key=lambda e: e["t_request_ns"])
check(len(log) == 160, "160 requests reached the server (%d)" % len(log))
t0 = log[0]["t_request_ns"]
ev = []
for e in log:
    ev += [(e["t_request_ns"] - t0, 1), (max(e["chunks_ns"]) - t0, -1)]
cur = 0
peak = {}  # peak in flight per third of the ramp, and after it
for t, d in sorted(ev, key=lambda x: (x[0], x[1])):
    cur += d
    k = min(int(t / (1e9 / 3)), 3)
    peak[k] = max(peak.get(k, 0), cur)
# 20 ms slack at each boundary: a slot opening at (k-1)/3 s is seen a little later by the server
for k in range(3):
    lo, hi = k * 1000 / 3 + 20, (k + 1) * 1000 / 3 - 5
    cur = 0
    inflight_max = 0
    for t, d in sorted(ev, key=lambda x: (x[0], x[1])):
        cur += d
        if lo * 1e6 <= t <= hi * 1e6:
            inflight_max = max(inflight_max, cur)
    check(inflight_max <= k + 1, "ramp third %d (%.0f-%.0f ms): at most %d in flight (saw %d)" % (k, lo, hi, k + 1, inflight_max))
check(peak.get(3, 0) == 4, "4 in flight after the ramp (peak %d)" % peak.get(3, 0))
g = json.load(open(art("conc", "_genperf.json")))
ramp = g.get("ramp")
check(ramp is not None and ramp["seconds"] == 1.0, "_genperf.json has ramp.seconds = 1: %r" % (ramp,))
recs = [json.loads(l) for l in open(art("conc", "_records.jsonl"))]
starts = sorted(r["t_start_ns"] for r in recs)
in_ramp = sum(1 for r in recs if r["t_start_ns"] - starts[0] < 1e9)
ex = ramp["excluded_requests"] if ramp else -1
# the phase starts a hair before the first request: allow the boundary request either way
check(abs(ex - in_ramp) <= 1 and ex >= 30, "excluded %d = requests started in the first second (%d)" % (ex, in_ramp))
check(sum(1 for r in recs if r["warmup"]) == ex, "_records.jsonl marks the %d excluded requests warmup" % ex)
gp = json.load(open(art("conc", "_genai_perf.json")))
check(gp["request_count"]["avg"] == 160 - ex, "GenAI-Perf request_count %r = 160 - %d" % (gp["request_count"]["avg"], ex))

# ---- rate ramp: 0 -> 40/s over 1 s puts arrivals 0..19 in the ramp (arrival 20 is due at 1.000 s)
g = json.load(open(art("rate", "_genperf.json")))
check(g.get("ramp", {}).get("excluded_requests") == 20, "rate ramp: 20 excluded (%r)" % (g.get("ramp"),))
gp = json.load(open(art("rate", "_genai_perf.json")))
check(gp["request_count"]["avg"] == 40, "rate ramp: 40 measured (%r)" % gp["request_count"]["avg"])
check(g["schedule"]["requests"] == 40, "rate ramp: the schedule block covers the 40 measured (%r)" % g["schedule"]["requests"])
recs = sorted((json.loads(l) for l in open(art("rate", "_records.jsonl"))), key=lambda r: r["t_sched_ns"])
due = [(r["t_sched_ns"] - recs[0]["t_sched_ns"]) / 1e9 for r in recs]
check(abs(due[19] - (19 / 20) ** 0.5) < 1e-6 and abs(due[20] - 1.0) < 1e-6 and abs(due[21] - 1.025) < 1e-6,
      "due times follow the ramp: %.4f %.4f %.4f" % tuple(due[19:22]))
sys.exit(1 if bad else 0)
PY
