#!/usr/bin/env bash
# shape_rate_cap: --request-rate 40 --max-concurrency 2 against a server that takes ~100 ms per
# request (capacity 20/s, half the rate; 40 requests): the server never has more than 2 requests in flight;
# requests queue in the client, and each record's sched_lag_ns equals the queueing the server's
# timing log shows (its arrival minus the constant-rate due time); the genperf.json "schedule"
# block's from-schedule latency exceeds from-send latency by that queueing, and the console warns.
set -u
source "$(dirname "$0")/shape_common.inc"
shape_run cap --request-rate 40 --request-rate-mode constant --max-concurrency 2 --request-count 40 \
    --isl 8 --osl 1 -- --ttft-ms 100 --itl-ms 0
python3 - "$TMPDIR" <<'PY'
import glob, json, statistics, sys
tmp = sys.argv[1]
bad = []
def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c: bad.append(what)
log = sorted((json.loads(l) for l in open(tmp + "/cap.log")), key=lambda e: e["t_request_ns"])
check(len(log) == 40, "40 requests reached the server")
ev = []
for e in log:
    ev += [(e["t_request_ns"], 1), (max(e["chunks_ns"]), -1)]
cur = peak = 0
for _, d in sorted(ev, key=lambda x: (x[0], x[1])):
    cur += d; peak = max(peak, cur)
check(peak <= 2, "never more than 2 requests in flight at the server (peak %d)" % peak)
recs = sorted((json.loads(l) for l in open(glob.glob(tmp + "/art.cap/*/*_records.jsonl")[0])), key=lambda r: r["t_sched_ns"])
gaps = [(b["t_sched_ns"] - a["t_sched_ns"]) / 1e6 for a, b in zip(recs, recs[1:])]
check(all(abs(g - 25.0) < 0.01 for g in gaps), "due times 25 ms apart (constant 40/s)")
t0 = log[0]["t_request_ns"]
truth = [(e["t_request_ns"] - t0) / 1e6 - 25.0 * i for i, e in enumerate(log)]  # queueing seen by the server
lag = [r["sched_lag_ns"] / 1e6 for r in recs]
# truth is relative to the first request's arrival, which carries its connect and the
# server's accept (ms on a loaded host): compare up to the median constant, not to lag[0]
off = statistics.median(t - l for t, l in zip(truth, lag))
errs = sorted(abs(t - l - off) for t, l in zip(truth, lag))
# The median is the claim (the client's lag is the queueing the server sees); the worst case
# also holds the server's own scheduling on a shared 2-core host (seen: 22 ms under load).
check(statistics.median(errs) < 2.0 and errs[-1] < 50.0,
      "client-reported lag matches the server's queueing: median %.2f ms (< 2), worst %.2f ms (< 50)"
      % (statistics.median(errs), errs[-1]))
check(truth[-1] > 800, "the last request queued %.0f ms in the client" % truth[-1])
s = json.load(open(glob.glob(tmp + "/art.cap/*/*_genperf.json")[0]))["schedule"]
# every request but the first two fell due while both slots were busy (100 ms each, one due
# every 25 ms); counted even though the loop does not wake at a due time under a full cap
check(s["cap_delayed"] == 38, "cap_delayed %d (want 38)" % s["cap_delayed"])
fs, fsend = s["from_schedule"]["request_latency_ms"], s["from_send"]["request_latency_ms"]
want = statistics.median(truth)  # p50 of the sum ~ p50 send latency + p50 queueing (latency is ~constant)
diff = fs["p50"] - fsend["p50"]
check(abs(diff - want) < 15, "from-schedule p50 - from-send p50 = %.1f ms, server-side queueing p50 %.1f ms" % (diff, want))
check(fs["p99"] > fsend["p99"] + 800, "from-schedule p99 %.0f ms vs from-send %.0f ms" % (fs["p99"], fsend["p99"]))
out = open(tmp + "/cap.out").read()
check("warning: open loop fell behind its schedule" in out and "schedule lag p99" in out
      and "38 requests waited for the --max-concurrency cap (2 in flight)" in out, "console warning line")
sys.exit(1 if bad else 0)
PY
