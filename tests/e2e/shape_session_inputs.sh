#!/usr/bin/env bash
# shape_session_inputs: a synthetic session run has GenAI-Perf 0.0.16's artifacts shape (issue 16):
# the run directory is <model>-openai-chat-session_concurrency<C> (perf_analyzer_config.py), the
# export's experiment is request_rate 0.0 (subcommand.py), and inputs.json has one entry per turn,
# in session order, each {"payload": [..], "session_id": ["<uuid4>"], "delay": [ms]} with "delay"
# on every turn but a session's last (synthetic_data_retriever.py). A --fixed-schedule run's
# directory ends in -fixed_schedule. profile_export.json's request_inputs of a session turn is
# {"delay": ms, "session_id": id, "payload": body} as perf_analyzer's session mode writes it
# (no "delay" on a last turn; ids and delays those of inputs.json), a trace's session rows the
# same with their names and scaled delays, and a request outside sessions keeps {"payload"} only.
set -u
source "$(dirname "$0")/shape_common.inc"
shape_run sess --num-sessions 3 --session-concurrency 2 --session-turns-mean 3 --session-turn-delay-mean 40 \
    --session-turn-delay-stddev 10 --isl 8 --osl 2 -- --ttft-ms 5 --itl-ms 1
printf '%s\n' '{"timestamp": 0, "input_length": 8, "output_length": 2}' \
    '{"timestamp": 20, "input_length": 8, "output_length": 2}' >"$TMPDIR/trace.jsonl"
shape_run fixed --fixed-schedule true --input-file "payload:$TMPDIR/trace.jsonl" -- --ttft-ms 5 --itl-ms 1
# a trace with sessions: "chat-1" (two turns, delay 30 ms scaled by 0.5), 7 (two turns), one single row
printf '%s\n' '{"timestamp": 0, "session_id": "chat-1", "input_length": 8, "output_length": 2, "delay": 30}' \
    '{"session_id": "chat-1", "input_length": 8, "output_length": 2}' \
    '{"timestamp": 5, "session_id": 7, "input_length": 8, "output_length": 2, "delay": 9}' \
    '{"session_id": 7, "input_length": 8, "output_length": 2, "delay": 100}' \
    '{"timestamp": 10, "input_length": 8, "output_length": 2}' >"$TMPDIR/tsess.jsonl"
shape_run tsess --fixed-schedule true --input-file "payload:$TMPDIR/tsess.jsonl" --session-delay-ratio 0.5 \
    -- --ttft-ms 5 --itl-ms 1
python3 - "$TMPDIR" <<'PY'
import glob, json, os, re, sys
tmp = sys.argv[1]
bad = []
def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c: bad.append(what)
d = glob.glob(tmp + "/art.sess/*/")
check(len(d) == 1 and os.path.basename(d[0].rstrip("/")) == "genperf-sim-openai-chat-session_concurrency2",
      "run directory %r" % [os.path.basename(x.rstrip("/")) for x in d])
ex = json.load(open(d[0] + "profile_export.json"))["experiments"][0]["experiment"]
check(ex == {"mode": "request_rate", "value": 0.0}, "experiment %r" % ex)
data = json.load(open(d[0] + "inputs.json"))["data"]
check(len(data) == 9, "inputs.json: 9 entries (3 sessions x 3 turns), got %d" % len(data))
check(all(list(e) in (["payload", "session_id", "delay"], ["payload", "session_id"]) for e in data),
      "keys in GenAI-Perf's order: %r" % sorted({tuple(e) for e in data}))
ids = [e["session_id"][0] for e in data]
uuid4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
check(all(uuid4.match(i) for i in ids), "session ids are UUID4 text")
check(ids[0:3] == [ids[0]] * 3 and ids[3:6] == [ids[3]] * 3 and ids[6:9] == [ids[6]] * 3 and len(set(ids)) == 3,
      "one id per session, turns contiguous")
dl = [e.get("delay") for e in data]
check([d is None for d in dl] == [False, False, True] * 3 and all(len(d) == 1 and isinstance(d[0], int) and d[0] >= 0
      for d in dl if d is not None), "delay [ms] on turns 1-2, none on the last: %r" % dl)
check(len({d[0] for d in dl if d}) > 1, "drawn delays (mean 40, sd 10) differ from turn to turn: %r" % dl)
log = [json.loads(l) for l in open(tmp + "/sess.log")]
check(len(log) == 9, "the server saw 9 requests")
# per-turn ISL and request_inputs: GenAI-Perf tokenizes " ".join(contents) of the body actually sent,
# i.e. the whole conversation (earlier user turns, the replies returned, the new turn)
import subprocess
run = glob.glob(tmp + "/art.sess/*/")[0]
reqs = json.load(open(run + "profile_export.json"))["experiments"][0]["requests"]
recs = [json.loads(l) for l in open(run + "profile_export_records.jsonl")]
recs = [r for r in recs if not r["warmup"]]
bodies = [json.loads(q["request_inputs"]["payload"]) for q in reqs]
texts = [" ".join(m["content"] for m in b["messages"]) for b in bodies]
cnt = subprocess.run([os.environ["GENPERF"], "tokenize", "--tokenizer", "builtin", "--jsonl", "--count"],
                     input="".join(json.dumps(t) + "\n" for t in texts), capture_output=True, text=True).stdout.split()
nmsg = sorted(len(b["messages"]) for b in bodies)
check(nmsg == [1, 1, 1, 3, 3, 3, 5, 5, 5], "sent bodies carry the conversation (message counts %r)" % nmsg)
check(all(b["messages"][k]["role"] == "assistant" and b["messages"][k]["content"]
          for b in bodies for k in range(1, len(b["messages"]), 2)), "replies the server returned are in them")
# records.jsonl and profile_export.json list measured requests in the same (store) order, which is
# not start order: with two sessions in flight a later-started turn can be stored first. Pair them
# by position, never by sorting one side (sorting by t_start_ns failed in CI on such a swap).
check(len(recs) == len(reqs) and [int(c) for c in cnt] == [r["isl"] for r in recs],
      "records.jsonl ISL = tokens of the sent conversation: %r vs %r" % (cnt, [r["isl"] for r in recs]))
check(any(r["isl"] > 8 for r in recs), "later turns count more than their own prompt")
# request_inputs of each turn: perf_analyzer's keys (delay, session_id, payload: libstdc++'s
# unordered_map order), the turn's id and delay from inputs.json (records.jsonl "entry" maps a
# request to its inputs.json entry; both files list measured requests in store order)
check(len(recs) == len(reqs), "one record per exported request")
keys = [list(q["request_inputs"]) for q in reqs]
check(all(k in (["delay", "session_id", "payload"], ["session_id", "payload"]) for k in keys),
      "request_inputs keys in perf_analyzer's order: %r" % sorted({tuple(k) for k in keys}))
check(all(q["request_inputs"]["session_id"] == data[r["entry"]]["session_id"][0] for q, r in zip(reqs, recs)),
      "request_inputs.session_id = the turn's inputs.json session_id")
check(all(q["request_inputs"].get("delay") == data[r["entry"]].get("delay", [None])[0] for q, r in zip(reqs, recs)),
      "request_inputs.delay = the turn's drawn inputs.json delay (none on last turns): %r"
      % [q["request_inputs"].get("delay") for q in reqs])
check(sorted(q["request_inputs"].get("delay", -1) for q in reqs) == sorted(d[0] if d else -1 for d in dl),
      "the same 6 delays as inputs.json")
check(all(isinstance(q["request_inputs"].get("delay", 0), int) for q in reqs), "delay is an integer")
d = glob.glob(tmp + "/art.fixed/*/")
check(len(d) == 1 and d[0].rstrip("/").endswith("-openai-chat-fixed_schedule"), "fixed-schedule directory %r" % d)
freqs = json.load(open(d[0] + "profile_export.json"))["experiments"][0]["requests"]
check(len(freqs) == 2 and all(list(q["request_inputs"]) == ["payload"] for q in freqs),
      "no sessions: request_inputs is the payload alone")
d = glob.glob(tmp + "/art.tsess/*/")
treqs = json.load(open(d[0] + "profile_export.json"))["experiments"][0]["requests"]
trecs = [json.loads(l) for l in open(d[0] + "profile_export_records.jsonl")]
trecs = [r for r in trecs if not r["warmup"]]
got = sorted((r["entry"], q["request_inputs"].get("session_id"), q["request_inputs"].get("delay"),
              tuple(q["request_inputs"])) for q, r in zip(treqs, trecs))
want = [(0, "chat-1", 15, ("delay", "session_id", "payload")), (1, "chat-1", None, ("session_id", "payload")),
        (2, "7", 4, ("delay", "session_id", "payload")), (3, "7", None, ("session_id", "payload")),
        (4, None, None, ("payload",))]
check(len(trecs) == len(treqs) and got == want, "trace sessions: names, int(delay * 0.5), last turns without: %r" % got)
sys.exit(1 if bad else 0)
PY
