#!/usr/bin/env bash
# shape_sessions: --num-sessions 4 --session-turns-mean 3 --session-turn-delay-mean 150 give 12
# requests; turn k+1 of a session (the server sees 2k+1 messages, same first message) carries
# the reply the server actually generated for turn k, and arrives no earlier than 150 ms after
# turn k's response ended. Non-streamed and streamed (the reply rebuilt from SSE deltas).
# SHAPE_WORKERS=N (tests/e2e/shape_workers.sh) runs it with --workers N: each session stays on
# one loop and the loops together run all of them. SHAPE_MPI=K (tests/e2e/shape_mpi.sh) runs it
# under `mpirun -n K`: the job's K x N loops (loop rank x N + w) split the sessions the same way.
set -u
source "$(dirname "$0")/shape_common.inc"
W=${SHAPE_WORKERS:-1}
L=$((W * ${SHAPE_MPI:-1}))
for mode in plain stream; do
  extra=(); [ $mode = stream ] && extra=(--streaming)
  [ "$W" -gt 1 ] && extra+=(--workers "$W")
  shape_run $mode --num-sessions 4 --session-concurrency 4 --session-turns-mean 3 --session-turn-delay-mean 150 \
      --isl 12 --osl 5 "${extra[@]}" -- --ttft-ms 10 --itl-ms 2
done
python3 - "$TMPDIR" "$L" <<'PY'
import collections, glob, json, sys
tmp, W = sys.argv[1], int(sys.argv[2])
bad = []
def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c: bad.append(what)
for mode in ("plain", "stream"):
    log = [json.loads(l) for l in open("%s/%s.log" % (tmp, mode))]
    check(len(log) == 12, "%s: 12 requests (4 sessions x 3 turns), got %d" % (mode, len(log)))
    sess = collections.defaultdict(list)
    for e in log:
        sess[e["prompt_head"]].append(e)
    check(len(sess) == 4, "%s: 4 sessions (first user message)" % mode)
    for head, turns in sess.items():
        turns.sort(key=lambda e: e["messages"])
        check([t["messages"] for t in turns] == [1, 3, 5], "%s: turns carry 1, 3, 5 messages" % mode)
        for a, b in zip(turns, turns[1:]):
            check(a["reply_head"] and b["assistant_head"].startswith(a["reply_head"][:20]),
                  "%s: turn carries the previous reply %r" % (mode, a["reply_head"][:20]))
            end = max(a["chunks_ns"]) if a["chunks_ns"] else a["t_request_ns"]
            gap = (b["t_request_ns"] - end) / 1e6
            check(150 <= gap < 250, "%s: next turn %.1f ms after the previous response ended (delay 150)" % (mode, gap))
    gj = json.load(open(glob.glob(tmp + "/art.%s/*/*_genperf.json" % mode)[0]))
    check(gj["schedule"] and gj["schedule"]["requests"] == 12, "%s: schedule block counts 12 turns" % mode)
    # GenAI-Perf's create_config.py: the session concurrency is the stimulus, and names the run
    runs = glob.glob(tmp + "/art.%s/*/*_genai_perf.json" % mode)
    st = json.load(open(runs[0]))["input_config"]["perf_analyzer"]["stimulus"]
    check(st == {"session_concurrency": 4}, "%s: input_config stimulus %r" % (mode, st))
    check(runs[0].split("/")[-2] == "genperf-sim-openai-chat-session_concurrency4", "%s: run directory %s" % (mode, runs[0]))
    if W > 1:
        recs = [json.loads(l) for l in open(glob.glob(tmp + "/art.%s/*/*_records.jsonl" % mode)[0])]
        recs = [r for r in recs if not r["warmup"]]
        on = collections.defaultdict(set)
        for r in recs:
            on[r["entry"] // 3].add(r["worker"])  # turns mean 3, stddev 0: session s is entries 3s..3s+2
        check(len(recs) == 12 and all(len(w) == 1 for w in on.values()), "%s: each session on one loop %r" % (mode, dict(on)))
        check(set().union(*on.values()) == set(range(W)), "%s: all %d loops ran sessions" % (mode, W))
sys.exit(1 if bad else 0)
PY
