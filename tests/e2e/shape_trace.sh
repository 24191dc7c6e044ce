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
# Each row reaches the server at (its due offset + its reported lateness) + its transit. Transit is
# the host's, not genperf's: a row that opens a connection pays connect + accept, which a busy host
# stretched by 5.3 ms on row 0, and under mpirun 11.6 ms on row 4 (`make test-loaded`), so no row is
# the anchor by position (row 0 was): the row with the fastest transit is. The clocks of the two
# logs differ by an unknown offset, so nothing tighter than a bound on the extra transit can be
# asked; 40 ms is far above what a busy host adds and far below what a replay at the wrong offsets
# (the whole trace at once: row 9 480 ms early) or a lateness misreported by a row's gap shows.
resid = {}
for e, i in zip(log, rows):
    resid[i] = (e["t_request_ns"] - due[i]) / 1e6 - lag[i]  # = transit + the logs' clock offset
fast = min(resid.values())
for i in rows:
    check(resid[i] - fast < 40.0, "row %d (due %.2f ms after row 0, reported lateness %.2f ms) arrived with %.2f ms "
          "more transit than the fastest row" % (i, (due[i] - due[rows[0]]) / 1e6, lag[i], resid[i] - fast))
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
