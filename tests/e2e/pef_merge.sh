#!/usr/bin/env bash
# process-export-files: (1) two genperf runs against `genperf serve` merged -> request count =
# the sum, throughput = the sum of the nodes' throughputs, per-request metrics equal to one
# recomputation over the union (the merge of a directory holding both nodes' requests as ONE
# node); (2) a hand-built directory whose metrics are worked out by hand below: role-only first
# chunk, empty final delta, ITL that rounds half-even; (3) a session run's export re-exported alone
# comes back byte-identical (session_id / delay in request_inputs).
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
"$GENPERF" serve --quiet --port 0 --port-file "$TMPDIR/url" --ttft-ms 5 --itl-ms 1 >/dev/null &
pid=$!
for _ in $(seq 200); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url")
for node in 1 2; do
  "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$url" --endpoint-type chat --streaming \
    --isl 16 --osl 6 --concurrency 2 --request-count $((node * 4)) --random-seed $node \
    --artifact-dir "$TMPDIR/n$node" >"$TMPDIR/n$node.out" 2>&1 || { cat "$TMPDIR/n$node.out"; exit 1; }
  mkdir -p "$TMPDIR/in/node$node"
  cp "$TMPDIR"/n$node/*/profile_export.json "$TMPDIR"/n$node/*/profile_export_genai_perf.json "$TMPDIR/in/node$node/"
  cp "$TMPDIR"/n$node/*/inputs.json "$TMPDIR/in/node$node/"   # must not be mistaken for the export
done
# a session run (request_inputs carry perf_analyzer's delay / session_id)
"$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$url" --endpoint-type chat --num-sessions 3 \
  --session-concurrency 2 --session-turns-mean 3 --session-turn-delay-mean 20 --isl 8 --osl 2 \
  --artifact-dir "$TMPDIR/s1" >"$TMPDIR/s1.out" 2>&1 || { cat "$TMPDIR/s1.out"; exit 1; }
mkdir -p "$TMPDIR/insess/node1"
cp "$TMPDIR"/s1/*/profile_export.json "$TMPDIR"/s1/*/profile_export_genai_perf.json "$TMPDIR/insess/node1/"
kill $pid; wait $pid 2>/dev/null; pid=
# (3) one session-run node re-exported: profile_export.json byte-identical to the original (the
# turns' session_id and delay kept, the experiment as the node wrote it)
"$GENPERF" process-export-files -d "$TMPDIR/insess" --artifact-dir "$TMPDIR/sessout" >"$TMPDIR/s.out" 2>&1 ||
  { cat "$TMPDIR/s.out"; exit 1; }
grep -q '"session_id":' "$TMPDIR/insess/node1/profile_export.json" || { echo "session run without session_id"; exit 1; }
cmp "$TMPDIR/insess/node1/profile_export.json" "$TMPDIR"/sessout/*/profile_export.json ||
  { echo "FAIL session run: re-exported profile_export.json differs from the original"; exit 1; }
echo "ok   session run re-exported byte-identical (session_id / delay kept)"
# the merged run directory is named from the stimulus {"session_concurrency": 2}, as profile names
# the node's run directory and GenAI-Perf's perf_analyzer_config.py names both
[ -d "$TMPDIR/s1/genperf-sim-openai-chat-session_concurrency2" ] ||
  { echo "FAIL session run directory: $(ls "$TMPDIR/s1")"; exit 1; }
[ -d "$TMPDIR/sessout/genperf-sim-openai-chat-session_concurrency2" ] ||
  { echo "FAIL merged session run directory: $(ls "$TMPDIR/sessout")"; exit 1; }
python3 - "$TMPDIR/sessout/genperf-sim-openai-chat-session_concurrency2/profile_export_genai_perf.json" \
  "$TMPDIR/insess/node1/profile_export_genai_perf.json" <<'PY' || exit 1
import json, sys
st = json.load(open(sys.argv[1]))["input_config"]["perf_analyzer"]["stimulus"]
assert st == {"session_concurrency": 2}, st
# GenAI-Perf's process-export-files writes the per-session statistics too (process_export_files.py)
node = json.load(open(sys.argv[2]))["sessions"]
got = json.load(open(sys.argv[1])).get("sessions")
assert got is not None and list(got) == list(node) and len(node) == 3, (got and list(got), list(node))
for sid in node:
    assert got[sid] == node[sid], (sid, got[sid], node[sid])
    assert got[sid]["request_count"] == node[sid]["request_count"] == {"unit": "count", "avg": 3.0}, sid
PY
echo "ok   merged session run in <model>-openai-chat-session_concurrency2, stimulus and sessions block kept"
"$GENPERF" process-export-files --input-directory "$TMPDIR/in" --artifact-dir "$TMPDIR/merged" \
  >"$TMPDIR/m.out" 2>&1 || { cat "$TMPDIR/m.out"; exit 1; }
cat "$TMPDIR/m.out"
# the union as one node: both exports' requests in one file, throughputs of node1 only
python3 - "$TMPDIR" <<'PY'
import json, os, sys
t = sys.argv[1]
a = json.load(open(t + "/in/node1/profile_export.json"))
b = json.load(open(t + "/in/node2/profile_export.json"))
a["experiments"][0]["requests"] += b["experiments"][0]["requests"]
os.makedirs(t + "/union/one")
json.dump(a, open(t + "/union/one/profile_export.json", "w"))
g = json.load(open(t + "/in/node1/profile_export_genai_perf.json"))
json.dump(g, open(t + "/union/one/profile_export_genai_perf.json", "w"))
PY
"$GENPERF" process-export-files -d "$TMPDIR/union" --artifact-dir "$TMPDIR/unionout" >/dev/null 2>&1 || exit 1
python3 - "$TMPDIR" <<'PY'
import glob, json, sys
t = sys.argv[1]
def one(p):
    f = glob.glob(p); assert len(f) == 1, (p, f); return json.load(open(f[0]))
n1 = one(t + "/in/node1/profile_export_genai_perf.json")
n2 = one(t + "/in/node2/profile_export_genai_perf.json")
m = one(t + "/merged/genperf-sim-openai-chat-concurrency2/profile_export_genai_perf.json")
u = one(t + "/unionout/*/profile_export_genai_perf.json")
bad = []
def check(c, what):
    print("ok  " if c else "FAIL", what)
    if not c: bad.append(what)
check(m["request_count"]["avg"] == 12 == n1["request_count"]["avg"] + n2["request_count"]["avg"], "request count = sum (4 + 8)")
for k in ("request_throughput", "output_token_throughput"):
    check(m[k]["avg"] == n1[k]["avg"] + n2[k]["avg"], k + " = sum of the nodes")
for k in ("time_to_first_token", "inter_token_latency", "request_latency", "time_to_second_token",
          "output_sequence_length", "input_sequence_length", "output_token_throughput_per_user"):
    check(m[k] == u[k], k + " equals the recomputation over the union")
# GenAI-Perf writes its Subcommand enum by name, lower-cased (base_config.py _get_legal_json_value)
check(m["input_config"]["subcommand"] == "process", "input_config.subcommand is 'process'")
pe = one(t + "/merged/*/profile_export.json")
check(len(pe["experiments"][0]["requests"]) == 12, "merged profile_export.json holds 12 requests")
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || exit 1

# ---- hand-built input ---------------------------------------------------------------------
python3 - "$TMPDIR/hand" <<'PY'
import json, os, sys
d = sys.argv[1]
ms = 1000000
def ev(obj): return "data: " + json.dumps(obj) + "\n\n"
def delta(d, fin=None): return ev({"choices": [{"index": 0, "delta": d, "finish_reason": fin}]})
ic = {"model_names": ["org/hand"], "endpoint": {"type": "chat", "streaming": True},
      "perf_analyzer": {"stimulus": {"concurrency": 3}},
      "input": {"goodput": ""}, "tokenizer": {"name": "builtin", "revision": "main"}}
def node(name, reqs, rt, ot):
    os.makedirs(d + "/" + name)
    pe = {"experiments": [{"experiment": {"mode": "concurrency", "value": 3}, "requests": reqs,
                           "window_boundaries": []}], "version": "x", "service_kind": "openai",
          "endpoint": "v1/chat/completions"}
    json.dump(pe, open(d + "/" + name + "/profile_export.json", "w"))
    json.dump({"request_throughput": {"unit": "requests/sec", "avg": rt},
               "output_token_throughput": {"unit": "tokens/sec", "avg": ot}, "input_config": ic},
              open(d + "/" + name + "/profile_export_genai_perf.json", "w"))
def req(t0, prompt, chunks):
    return {"timestamp": t0,
            "request_inputs": {"payload": json.dumps({"model": "org/hand", "messages": [
                {"role": "user", "content": prompt}], "stream": True, "max_tokens": 3})},
            "response_timestamps": [t0 + c[0] for c in chunks], "response_outputs": [{"response": c[1]} for c in chunks]}
T = 1000 * ms
# A: role-only first chunk at 10 ms (not the first token), "a" at 50 ms, "bc" at 95.000001 ms,
#    an empty final delta with finish_reason at 100 ms, [DONE] at 101 ms.
A = req(T, "hello world", [(10 * ms, delta({"role": "assistant"})), (50 * ms, delta({"content": "a"})),
                           (95 * ms + 1, delta({"content": "bc"})), (100 * ms, delta({}, "stop")),
                           (101 * ms, "data: [DONE]\n\n")])
# B: "x" at 30 ms, "yz" at 60.000003 ms, [DONE].
B = req(T + 200 * ms, "hi", [(30 * ms, delta({"content": "x"})), (60 * ms + 3, delta({"content": "yz"})),
                             (61 * ms, "data: [DONE]\n\n")])
node("node_a", [A], 3.5, 10.0)
node("node_b", [B], 4.25, 20.5)
PY
"$GENPERF" process-export-files -d "$TMPDIR/hand" --artifact-dir "$TMPDIR/handout" >"$TMPDIR/h.out" 2>&1 ||
  { cat "$TMPDIR/h.out"; exit 1; }
ls "$TMPDIR/handout"
python3 - "$TMPDIR" <<'PY'
import json, sys
t = sys.argv[1]
m = json.load(open(t + "/handout/org_hand-openai-chat-concurrency3/profile_export_genai_perf.json"))
bad = []
def check(got, want, what):
    ok = got == want
    print("ok  " if ok else "FAIL", what, got, "" if ok else "want %r" % (want,))
    if not ok: bad.append(what)
# TTFT: A 50 ms (the role-only chunk is not a token), B 30 ms
check(m["time_to_first_token"]["avg"], 40.0, "TTFT avg")
check(m["time_to_first_token"]["max"], 50.0, "TTFT max (role-only chunk skipped)")
# latency = last content chunk, not the empty final delta nor [DONE]: A 95.000001, B 60.000003
check(m["request_latency"]["max"], 95.000001, "latency A")
check(m["request_latency"]["min"], 60.000003, "latency B")
# ITL = round_half_even((latency - TTFT) / (OSL - 1)) ns, OSL 3 bytes (builtin tokenizer):
#   A: 45000001 / 2 = 22500000.5 -> 22500000 (even);  B: 30000003 / 2 = 15000001.5 -> 15000002
# (ns -> ms is GenAI-Perf's `value * (1 / 1e6)`, so 15000002 ns prints as 15.000001999999999)
check(m["inter_token_latency"]["max"], 22500000 * (1 / 1e6), "ITL A rounds half to even (down)")
check(m["inter_token_latency"]["min"], 15000002 * (1 / 1e6), "ITL B rounds half to even (up)")
check(m["inter_token_latency"]["min"] == 15000001 * (1 / 1e6), False, "ITL B is not truncated")
check(m["output_token_throughput_per_user"]["min"], 1e9 / 22500000, "TPS/user A from the rounded ITL")
check(m["output_token_throughput_per_user"]["max"], 1e9 / 15000002, "TPS/user B from the rounded ITL")
check(m["time_to_second_token"]["max"], 45.000001, "TTST A")
check(m["output_sequence_length"]["avg"], 3.0, "OSL")
check(m["input_sequence_length"]["max"], 11.0, "ISL A = len('hello world')")
check(m["input_sequence_length"]["min"], 2.0, "ISL B = len('hi')")
check(m["request_count"]["avg"], 2, "request count")
check(m["request_throughput"]["avg"], 7.75, "request throughput = 3.5 + 4.25")
check(m["output_token_throughput"]["avg"], 30.5, "output token throughput = 10.0 + 20.5")
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || exit 1
# no node directory: a clear error
mkdir -p "$TMPDIR/empty/x"
if "$GENPERF" process-export-files -d "$TMPDIR/empty" 2>"$TMPDIR/e.err"; then echo "empty dir accepted"; exit 1; fi
grep -q "no sub-directory holds a profile export" "$TMPDIR/e.err" || { cat "$TMPDIR/e.err"; exit 1; }
echo PASS
