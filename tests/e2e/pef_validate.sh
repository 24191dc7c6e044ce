#!/usr/bin/env bash
# process-export-files refuses what would merge into nonsense (issue 26 item 9): a request
# timestamp of -1 (was: TTFT 1.8e12 ms), response timestamps before the request or out of
# order, response_outputs not one per response timestamp, and no request at all (was: exit 0).
# Each exits 1 with a message naming the file and the field; the same node, well formed, merges.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
python3 - "$TMPDIR" <<'PY' || exit 1
import json, os, sys
d = sys.argv[1]
ms = 1000000
T = 1000 * ms
def ev(obj): return "data: " + json.dumps(obj) + "\n\n"
def delta(c, fin=None): return ev({"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": fin}]})
def req(t0, rts, outs=None):
    outs = outs if outs is not None else [{"response": delta("a")} for _ in rts]
    return {"timestamp": t0,
            "request_inputs": {"payload": json.dumps({"model": "m", "messages": [
                {"role": "user", "content": "hi"}], "stream": True})},
            "response_timestamps": rts, "response_outputs": outs}
good = [T + 10 * ms, T + 20 * ms]
cases = {
    "good": [req(T, good)],
    "negts": [req(T, good), req(-1, good)],
    "early": [req(T, [T - 5 * ms, T + 20 * ms])],
    "reversed": [req(T, [T + 20 * ms, T + 10 * ms])],
    "mismatch": [req(T, good, [{"response": delta("a")}])],
    "zero": [],
}
ic = {"model_names": ["m"], "endpoint": {"type": "chat", "streaming": True},
      "perf_analyzer": {"stimulus": {"concurrency": 1}}, "tokenizer": {"name": "builtin"}}
for name, reqs in cases.items():
    n = os.path.join(d, name, "node1")
    os.makedirs(n)
    json.dump({"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": reqs}],
               "version": "x", "service_kind": "openai", "endpoint": "v1/chat/completions"},
              open(n + "/profile_export.json", "w"))
    json.dump({"request_throughput": {"unit": "requests/sec", "avg": 1.0}, "input_config": ic},
              open(n + "/profile_export_genai_perf.json", "w"))
PY
fails=0
expect() { # case message
  "$GENPERF" process-export-files -d "$TMPDIR/$1" --artifact-dir "$TMPDIR/out-$1" --tokenizer builtin \
    >"$TMPDIR/$1.out" 2>"$TMPDIR/$1.err"
  local rc=$?
  if [ $rc -ne 1 ]; then echo "FAIL $1: exit $rc, want 1"; cat "$TMPDIR/$1.err"; fails=1; return; fi
  if ! grep -qF -- "$2" "$TMPDIR/$1.err"; then echo "FAIL $1: want: $2"; cat "$TMPDIR/$1.err"; fails=1; return; fi
  if ls "$TMPDIR/out-$1"/*/*_genai_perf.json >/dev/null 2>&1; then echo "FAIL $1: artifacts written"; fails=1; return; fi
  echo "ok   $1: $(head -c 300 "$TMPDIR/$1.err")"
}
p=profile_export.json
expect negts "$TMPDIR/negts/node1/$p: field 'experiments[0].requests[1].timestamp': -1 is negative"
expect early "$TMPDIR/early/node1/$p: field 'experiments[0].requests[0].response_timestamps[0]': 995000000 is before the timestamp (1000000000)"
expect reversed "$TMPDIR/reversed/node1/$p: field 'experiments[0].requests[0].response_timestamps[1]': 1010000000 is before the response before it (1020000000)"
expect mismatch "$TMPDIR/mismatch/node1/$p: field 'experiments[0].requests[0].response_outputs': 1 outputs for 2 response_timestamps"
expect zero "'$TMPDIR/zero/node1/$p': field 'experiments[0].requests': empty"
"$GENPERF" process-export-files -d "$TMPDIR/good" --artifact-dir "$TMPDIR/out-good" --tokenizer builtin \
  >"$TMPDIR/good.out" 2>"$TMPDIR/good.err" || { echo "FAIL good: the well-formed node was refused"; cat "$TMPDIR/good.err"; fails=1; }
[ $fails -eq 0 ] && echo PASS
exit $fails
