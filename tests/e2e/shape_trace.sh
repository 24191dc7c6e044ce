#!/usr/bin/env bash
# shape_trace: --fixed-schedule true --input-file payload:FILE replays a 10-row trace at its
# timestamps: the server sees the rows in trace order at offsets equal to the timestamps within
# the lateness the client reports (records.jsonl sched_lag_ns) plus a small transit margin; rows
# sharing hash_ids arrive with identical prompt prefixes; the genperf.json "schedule" block is there.
# SHAPE_WORKERS=N (tests/e2e/shape_workers.sh) replays it with --workers N (row i on loop i mod N);
# SHAPE_MPI=K (tests/e2e/shape_mpi.sh) under `mpirun -n K` (row i on loop i mod K x N, the rows
# due on rank 0's timeline).
set -u
source "$(dirname "$0")/shape_common.inc"
W=${SHAPE_WORKERS:-1}
L=$((W * ${SHAPE_MPI:-1}))
wargs=(); [ "$W" -gt 1 ] && wargs=(--workers "$W")
python3 - "$TMPDIR/trace.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(10):
        # even rows share hash id 7 for their first 512-token block
        row = {"timestamp": [0, 40, 90, 100, 180, 260, 300, 310, 400, 480][i], "output_length": 3,
               "input_length": 600 if i % 2 == 0 else 24, "hash_ids": [7, 1000 + i] if i % 2 == 0 else [100 + i]}
        f.write(json.dumps(row) + "\n")
PY
shape_run trace --fixed-schedule true --input-file "payload:$TMPDIR/trace.jsonl" "${wargs[@]}" -- --ttft-ms 5 --itl-ms 1
python3 - "$TMPDIR" "$L" <<'PY'
import glob, json, sys
tmp, W = sys.argv[1], int(sys.argv[2])
bad = []
def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c: bad.append(what)
ts = [0, 40, 90, 100, 180, 260, 300, 310, 400, 480]
log = [json.loads(l) for l in open(tmp + "/trace.log")]
recs = [json.loads(l) for l in open(glob.glob(tmp + "/art.trace/*/*_records.jsonl")[0])]
check(len(log) == 10 and len(recs) == 10, "10 requests reached the server and were recorded")
log.sort(key=lambda e: e["t_request_ns"])
# The server sees requests in the order the client sent them; match the two by that order (a
# row's entry is its index). Rows go out in trace order unless the client was late by more than
# the gap to the next row (a loaded host, sanitizers, 4 loops on 2 cores): then the swap must be
# what the reported lateness says.
sent = sorted(recs, key=lambda r: r["t_start_ns"])
rows = [r["entry"] for r in sent]
due = {r["entry"]: r["t_sched_ns"] for r in recs}
lag = {r["entry"]: r["sched_lag_ns"] / 1e6 for r in recs}
max_lag = max(lag.values())
if max_lag < 9.0:  # the smallest gap between rows is 10 ms
    check(rows == list(range(10)), "rows sent in trace order (max lateness %.2f ms)" % max_lag)
else:
    print("note: max lateness %.2f ms: checking swaps against it" % max_lag)
for a, b in zip(rows, rows[1:]):
    if a > b:  # b was due first but went later: b was late by at least the gap
        gap = (due[a] - due[b]) / 1e6
        check(lag[b] + 1.0 >= gap, "row %d went after row %d: its lateness %.2f ms covers the %.2f ms gap" % (b, a, lag[b], gap))
check([e["prompt_tokens"] > 500 for e in log] == [i % 2 == 0 for i in rows], "server saw the rows in the order sent")
t0 = log[0]["t_request_ns"]
d0 = due[rows[0]]
# arrival offset = due offset + this send's lateness - the first send's, plus
# this row's transit minus the first row's. The server cannot read a request
# before it is sent, so no row arrives more than the first row's transit
# (< 5 ms) early: that bound holds on any host. How late the server reads
# it depends on when the server is scheduled: on a busy host one read can
# wait tens of ms (CI saw 5.45 ms for one row beside 0.2 ms for the rest).
# A client that sent late without reporting it would shift most rows, so the
# median is held to the quiet-host bound and each row only to a loose one.
slips = []
for e, i in zip(log, rows):
    off = (e["t_request_ns"] - t0) / 1e6
    want = (due[i] - d0) / 1e6 + lag[i] - lag[rows[0]]
    slips.append(off - want)
    check(-5.0 < off - want < 50.0, "row %d arrived at %.2f ms, due %.2f ms + reported lateness %.2f ms"
          % (i, off, (due[i] - d0) / 1e6, lag[i] - lag[rows[0]]))
slips.sort()
check(abs(slips[len(slips) // 2]) < 5.0, "median arrival slip %.2f ms (server clock vs due + reported lateness)"
      % slips[len(slips) // 2])
recs.sort(key=lambda r: r["t_sched_ns"])
check([r["t_sched_ns"] - recs[0]["t_sched_ns"] for r in recs] == [t * 1000000 for t in ts], "records carry the due times")
heads = {i: e["prompt_head"] for e, i in zip(log, rows)}
check(len({heads[i] for i in range(0, 10, 2)}) == 1, "rows sharing hash id 7 share their prompt prefix")
check(len({heads[i] for i in range(1, 10, 2)}) == 5, "rows with distinct hash ids do not")
if W > 1:
    check(sorted((r["entry"], r["worker"]) for r in recs) == [(i, i % W) for i in range(10)],
          "row i ran on loop i mod %d" % W)
gj = json.load(open(glob.glob(tmp + "/art.trace/*/*_genperf.json")[0]))
s = gj["schedule"]
check(s is not None and s["requests"] == 10 and s["lag"]["max_ms"] >= s["lag"]["p50_ms"] >= 0, "genperf.json schedule block")
# GenAI-Perf's create_config.py: {"fixed_schedule": null} is the stimulus, and names the run
runs = glob.glob(tmp + "/art.trace/*/*_genai_perf.json")
st = json.load(open(runs[0]))["input_config"]["perf_analyzer"]["stimulus"]
check(st == {"fixed_schedule": None}, "input_config stimulus %r" % st)
check(runs[0].split("/")[-2] == "genperf-sim-openai-chat-fixed_schedule", "run directory %s" % runs[0])
sys.exit(1 if bad else 0)
PY
