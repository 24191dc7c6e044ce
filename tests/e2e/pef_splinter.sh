#!/usr/bin/env bash
# process-export-files recomputes GenAI-Perf's numbers for "splintered" SSE responses (issue 27
# item 2): an event split over two responses counts at the response where it STARTED, as
# llm_profile_data_parser.py's repair appends the continuation to the previous response and drops
# the emptied one with its timestamp (GenAI-Perf's own test_splintered_sse_responses cases).
# `genperf profile` times it where it completes (docs/metrics.md); before this fix
# process-export-files did too: TTFT 20 / 20 ms here instead of 10 / 10, TTST 25 / 10 instead of
# 20 / 20, ITL 2.5 / 5 instead of 3.5 / 10. The merged profile_export.json keeps the responses as
# they were read.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
python3 - "$TMPDIR" <<'PY' || exit 1
import json, os, sys
d = sys.argv[1]
ms = 1000000
T = 1000 * ms
def ch(c): return 'data: {"object":"chat.completion.chunk","choices":[{"delta":{"content":"%s"}}],"model":"m"}\n\n' % c
head = 'data: {"object":"chat.completion.chunk","choices":[{"de'
def tail(c): return 'lta":{"content":"%s"}}],"model":"m"}\n\n' % c
def req(t0, resp):
    return {"timestamp": t0,
            "request_inputs": {"payload": json.dumps({"model": "m", "messages": [
                {"role": "user", "content": "hi"}], "stream": True})},
            "response_timestamps": [t0 + t * ms for t, _ in resp],
            "response_outputs": [{"response": r} for _, r in resp]}
# A: "abc" split 10|20 ms; "123" split 30|45 ms with "hello" completed in the same 45 ms response
A = req(T, [(10, head), (20, tail("abc")), (30, head), (45, tail("123") + ch("hello")), (50, "data: [DONE]\n\n")])
# B: cut right after "data:" (GenAI-Perf's edge case): "xy" 10|20 ms, then "z" at 30 ms
B = req(T + 100 * ms, [(10, "data:"), (20, ch("xy")[5:]), (30, ch("z")), (40, "data: [DONE]\n\n")])
# C before and D after them: nothing split, unchanged (the repaired copy starts at A with C in it)
C = req(T - 100 * ms, [(5, ch("p")), (15, ch("q")), (16, "data: [DONE]\n\n")])
D = req(T + 200 * ms, [(7, ch("s")), (9, ": keep-alive\n\n"), (12, ch("u")), (13, "data: [DONE]\n\n")])
os.makedirs(d + "/in/node")
json.dump({"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": [C, A, B, D],
                            "window_boundaries": []}], "version": "v", "service_kind": "openai",
           "endpoint": "v1/chat/completions"}, open(d + "/in/node/profile_export.json", "w"))
ic = {"model_names": ["m"], "endpoint": {"type": "chat", "streaming": True},
      "perf_analyzer": {"stimulus": {"concurrency": 1}}, "input": {"goodput": ""},
      "tokenizer": {"name": "builtin", "revision": "main"}}
json.dump({"request_throughput": {"avg": 1.0}, "output_token_throughput": {"avg": 2.0}, "input_config": ic},
          open(d + "/in/node/profile_export_genai_perf.json", "w"))
PY
"$GENPERF" process-export-files -d "$TMPDIR/in" --artifact-dir "$TMPDIR/out" >"$TMPDIR/o.out" 2>&1 ||
  { cat "$TMPDIR/o.out"; exit 1; }
python3 - "$TMPDIR" <<'PY'
import glob, json, sys
t = sys.argv[1]
g = json.load(open(glob.glob(t + "/out/*/profile_export_genai_perf.json")[0]))
recs = [json.loads(l) for l in open(glob.glob(t + "/out/*/profile_export_records.jsonl")[0])]
bad = []
def check(got, want, what):
    ok = got == want
    print("ok  " if ok else "FAIL", what, got, "" if ok else "want %r" % (want,))
    if not ok: bad.append(what)
M = 1000000
check(len(recs), 4, "4 requests")
c, a, b, dd = recs
check(a["content_ns"], [10 * M, 30 * M, 45 * M], "A's contents where each split event started (10, 30, 45 ms)")
check((a["ttft_ns"], a["ttst_ns"], a["request_latency_ns"], a["itl_ns"], a["osl"]),
      (10 * M, 20 * M, 45 * M, 3500000, 11), "A: TTFT 10, TTST 20, latency 45, ITL (45-10)/10 ms, OSL 11")
check(b["content_ns"], [10 * M, 30 * M], "B's contents (cut after 'data:'): 10, 30 ms")
check((b["ttft_ns"], b["ttst_ns"], b["request_latency_ns"], b["itl_ns"]), (10 * M, 20 * M, 30 * M, 10 * M),
      "B: TTFT 10, TTST 20, latency 30, ITL (30-10)/2 ms")
check(c["content_ns"], [5 * M, 15 * M], "C (before, unsplit) unchanged")
check(dd["content_ns"], [7 * M, 12 * M], "D (after, a comment between events) unchanged")
check(g["time_to_first_token"]["max"], 10.0, "TTFT max in _genai_perf.json")
check(g["request_count"]["avg"], 4, "request count")
inp = json.load(open(t + "/in/node/profile_export.json"))
out = json.load(open(glob.glob(t + "/out/*/profile_export.json")[0]))
for k in ("response_timestamps", "response_outputs"):
    check([r[k] for r in out["experiments"][0]["requests"]] == [r[k] for r in inp["experiments"][0]["requests"]],
          True, "merged export keeps the responses as read: " + k)
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || exit 1
echo PASS
