#!/usr/bin/env bash
# shape_session_inputs: a synthetic session run has GenAI-Perf 0.0.16's artifacts shape (issue 16):
# the run directory is <model>-openai-chat-session_concurrency<C> (perf_analyzer_config.py), the
# export's experiment is request_rate 0.0 (subcommand.py), and inputs.json has one entry per turn,
# in session order, each {"payload": [..], "session_id": ["<uuid4>"], "delay": [ms]} with "delay"
# on every turn but a session's last (synthetic_data_retriever.py). A --fixed-schedule run's
# directory ends in -fixed_schedule.
set -u
source "$(dirname "$0")/shape_common.inc"
shape_run sess --num-sessions 3 --session-concurrency 2 --session-turns-mean 3 --session-turn-delay-mean 40 \
    --isl 8 --osl 2 -- --ttft-ms 5 --itl-ms 1
printf '%s\n' '{"timestamp": 0, "input_length": 8, "output_length": 2}' \
    '{"timestamp": 20, "input_length": 8, "output_length": 2}' >"$TMPDIR/trace.jsonl"
shape_run fixed --fixed-schedule true --input-file "payload:$TMPDIR/trace.jsonl" -- --ttft-ms 5 --itl-ms 1
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
check([e.get("delay") for e in data] == [[40], [40], None] * 3, "delay [40] on turns 1-2, none on the last: %r"
      % [e.get("delay") for e in data])
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
by_start = sorted(recs, key=lambda r: r["t_start_ns"])
check(len(by_start) == len(reqs) and [int(c) for c in cnt] == [r["isl"] for r in by_start],
      "records.jsonl ISL = tokens of the sent conversation: %r vs %r" % (cnt, [r["isl"] for r in by_start]))
check(any(r["isl"] > 8 for r in recs), "later turns count more than their own prompt")
d = glob.glob(tmp + "/art.fixed/*/")
check(len(d) == 1 and d[0].rstrip("/").endswith("-openai-chat-fixed_schedule"), "fixed-schedule directory %r" % d)
sys.exit(1 if bad else 0)
PY
