#!/usr/bin/env python3
"""Compares client-measured arrival times (genperf's per-request profile export,
one response per network read, wall-clock ns) with `genperf serve
--timing-log` ground truth (CLOCK_MONOTONIC ns when each SSE event was handed
to send()). Requests are matched by the completion id that every chunk carries.
Wall times are turned back into monotonic ones with this host's
CLOCK_REALTIME - CLOCK_MONOTONIC offset (the client derives wall = wall0 +
(mono - mono0), so the offset is the same system-wide constant).

Prints one JSON object: TTFT and per-chunk |measured - truth| median / p99 (us).
With --floor FILE instead of an export, the measured times are the JSON lines
{"id", "t0", "t": [monotonic ns per content event]} that bench/timing_floor
(bench/timing_floor.c) writes.

TTFT start (bench/ttft_start_bench.sh) is in the same object: the client's
TTFT (first content event - request start: genperf's request_timestamp, the
floor's t0) minus the server's own (first content chunk handed to send() -
t_request_ns, the request parsed), median / p90 / max in us, split into the
send side (t_request_ns - client start) and the receive side (client
arrival - server send of the first content chunk).
"""
import json
import re
import sys
import time

floor = sys.argv[1] == "--floor"
if floor:
    sys.argv.pop(1)
export_path, log_path = sys.argv[1], sys.argv[2]
offset = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)

truth = {}
t_req = {}  # request id -> when the server had parsed it
with open(log_path) as f:
    for line in f:
        r = json.loads(line)
        kinds = r.get("kinds", "")
        truth[r["id"]] = [t for t, k in zip(r["chunks_ns"], kinds) if k == "C"]
        t_req[r["id"]] = r["t_request_ns"]

measured = []  # (request id, monotonic arrival of each content event, monotonic request start)
if floor:
    with open(export_path) as f:
        for line in f:
            r = json.loads(line)
            measured.append((r["id"], r["t"], r.get("t0")))
id_re = re.compile(r'"id"\s*:\s*"([^"]+)"')
content_re = re.compile(r'"content"\s*:\s*"(?:[^"\\]|\\.)+"')
ttft_err, chunk_err, matched, unmatched = [], [], 0, 0
for req in ([] if floor else json.load(open(export_path))["experiments"][0]["requests"]):
    rid = None
    arrivals = []  # monotonic arrival of each content event, in order
    for ts, out in zip(req["response_timestamps"], req["response_outputs"]):
        text = out.get("response", "")
        if rid is None:
            m = id_re.search(text)
            if m:
                rid = m.group(1)
        n = len(content_re.findall(text))
        arrivals.extend([ts - offset] * n)
    measured.append((rid, arrivals, req["timestamp"] - offset))
excess, send_side, recv_side = [], [], []
for rid, arrivals, t0 in measured:
    t = truth.get(rid)
    if not t:
        unmatched += 1
        continue
    matched += 1
    n = min(len(t), len(arrivals))
    if n == 0:
        continue
    ttft_err.append(abs(arrivals[0] - t[0]))
    if t0 is not None:
        excess.append((arrivals[0] - t0) - (t[0] - t_req[rid]))
        send_side.append(t_req[rid] - t0)
        recv_side.append(arrivals[0] - t[0])
    chunk_err.extend(abs(arrivals[i] - t[i]) for i in range(n))


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return (xs[lo] + (xs[hi] - xs[lo]) * (k - lo)) / 1000.0


print(json.dumps({
    "matched": matched, "unmatched": unmatched, "chunks": len(chunk_err),
    "ttft_median_us": pct(ttft_err, 50), "ttft_p99_us": pct(ttft_err, 99),
    "chunk_median_us": pct(chunk_err, 50), "chunk_p99_us": pct(chunk_err, 99),
    "excess_median_us": pct(excess, 50), "excess_p90_us": pct(excess, 90), "excess_max_us": pct(excess, 100),
    "send_median_us": pct(send_side, 50), "send_p90_us": pct(send_side, 90), "send_max_us": pct(send_side, 100),
    "recv_median_us": pct(recv_side, 50), "recv_p90_us": pct(recv_side, 90), "recv_max_us": pct(recv_side, 100),
}))
