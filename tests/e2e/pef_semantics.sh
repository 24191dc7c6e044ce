#!/usr/bin/env bash
# process-export-files as GenAI-Perf 0.0.16 does it (issue 27 items 3 and 7), on hand-built nodes:
#  - what genperf cannot recompute is refused with one line, exit 1, nothing written: a Triton
#    (service_kind triton) or TensorRT-LLM engine (triton_c_api) export, a huggingface/generate
#    endpoint, an input_config.endpoint.type such as kserve (was: exit 0, empty statistics, an
#    "<model>-openai-kserve-..." directory);
#  - input_config.output is the command's own (--artifact-dir, --profile-export-file,
#    --checkpoint-dir, --generate-plots), not the first node's;
#  - profile_export.json's "version" is the first node's;
#  - a node without throughputs adds 0 to the sums, and no node with one gives 0;
#  - the nodes' telemetry_stats are aggregated (mean of the avgs for power, utilization and
#    energy, max for the rest), one "avg" per GPU;
#  - --input-directory defaults to ./aggregated.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
python3 - "$TMPDIR" <<'PY' || exit 1
import json, os, sys
d = sys.argv[1]
ms = 1000000
T = 1000 * ms
def ev(obj): return "data: " + json.dumps(obj) + "\n\n"
def delta(c): return ev({"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]})
def req(t0):
    return {"timestamp": t0,
            "request_inputs": {"payload": json.dumps({"model": "m", "messages": [
                {"role": "user", "content": "hi"}], "stream": True})},
            "response_timestamps": [t0 + 10 * ms, t0 + 20 * ms],
            "response_outputs": [{"response": delta("a")}, {"response": delta("b")}]}
def ic(etype="chat"):
    return {"model_names": ["m"], "endpoint": {"type": etype, "streaming": True},
            "perf_analyzer": {"stimulus": {"concurrency": 1}},
            "input": {"goodput": ""}, "tokenizer": {"name": "builtin", "revision": "main"},
            "output": {"artifact_directory": "node_artifacts", "checkpoint_directory": "node_ckpt",
                       "profile_export_file": "node.json", "generate_plots": True,
                       "enable_checkpointing": True}}
def node(top, name, version="perf_analyzer 9.9", sk="openai", ep="v1/chat/completions",
         etype="chat", tp=None, tele=None):
    p = os.path.join(d, top, name)
    os.makedirs(p)
    pe = {"experiments": [{"experiment": {"mode": "concurrency", "value": 1},
                           "requests": [req(T)], "window_boundaries": []}],
          "version": version, "service_kind": sk, "endpoint": ep}
    json.dump(pe, open(p + "/profile_export.json", "w"))
    g = {"input_config": ic(etype)}
    if tp:
        g["request_throughput"] = {"unit": "requests/sec", "avg": tp[0]}
        g["output_token_throughput"] = {"unit": "tokens/sec", "avg": tp[1]}
    if tele is not None:
        g["telemetry_stats"] = tele
    json.dump(g, open(p + "/profile_export_genai_perf.json", "w"))
# refused inputs
node("triton", "n1", sk="triton")
node("trtllm", "n1", sk="triton_c_api")
node("hfgen", "n1", ep="huggingface/generate")
node("kserve", "n1", etype="kserve")
node("tritonlate", "a", tp=(1, 1))
node("tritonlate", "b", sk="triton")          # the second node is Triton's: refused too
# accepted: telemetry on nodes a and c, none on b; throughputs on a and c only
def t(v): return {"avg": v, "min": v, "max": v, "p99": v}
node("ok", "a", version="perf_analyzer 2.59.1", tp=(2.5, 10.0), tele={
    "gpu_power_usage": {"unit": "W", "0": t(100.0), "1": t(50.0)},
    "gpu_power_limit": {"unit": "W", "0": {"avg": 700.0}},
    "gpu_utilization": {"unit": "%", "0": t(40.0)},
    "energy_consumption": {"unit": "MJ", "0": t(1.0)},
    "gpu_memory_used": {"unit": "GB", "0": t(10.0)},
    "total_gpu_memory": {"unit": "GB", "0": {"avg": 80.0}},
    "sm_utilization": {"unit": "%"}})          # no GPU: dropped
node("ok", "b", version="other", tele={})
node("ok", "c", version="other", tp=(1.25, 5.5), tele={
    "gpu_power_usage": {"unit": "W", "0": t(200.0), "2": t(30.0)},
    "gpu_power_limit": {"unit": "W", "0": {"avg": 600.0}},
    "gpu_utilization": {"unit": "%", "0": t(60.0)},
    "energy_consumption": {"unit": "MJ", "0": t(2.0)},
    "gpu_memory_used": {"unit": "GB", "0": t(30.0)},
    "total_gpu_memory": {"unit": "GB", "0": {"avg": 80.0}}})
node("notp", "a")
node("notp", "b")
node("cwd/aggregated", "a", tp=(3.0, 4.0))
PY
bad=0
refuse() { # dir, what the message must say
  local out="$TMPDIR/out_$1"
  "$GENPERF" process-export-files -d "$TMPDIR/$1" --artifact-dir "$out" >"$TMPDIR/$1.out" 2>"$TMPDIR/$1.err"
  local rc=$?
  if [ $rc -ne 1 ]; then echo "FAIL $1: exit $rc, want 1"; cat "$TMPDIR/$1.err"; bad=1; return; fi
  if ! grep -q "$2" "$TMPDIR/$1.err"; then echo "FAIL $1: message lacks '$2':"; cat "$TMPDIR/$1.err"; bad=1; return; fi
  if [ "$(wc -l <"$TMPDIR/$1.err")" -ne 1 ]; then echo "FAIL $1: not one line:"; cat "$TMPDIR/$1.err"; bad=1; return; fi
  if [ -e "$out" ]; then echo "FAIL $1: wrote $(find "$out")"; bad=1; return; fi
  echo "ok   $1 refused: $(cat "$TMPDIR/$1.err")"
}
refuse triton "service_kind 'triton' is not supported"
refuse trtllm "service_kind 'triton_c_api' is not supported"
refuse hfgen "endpoint 'huggingface/generate' (Hugging Face generate) is not supported"
refuse kserve "endpoint.type 'kserve' is not supported"
refuse tritonlate "tritonlate/b/profile_export.json': service_kind 'triton'"

"$GENPERF" process-export-files -d "$TMPDIR/ok" --artifact-dir "$TMPDIR/okout" --profile-export-file merged.json \
  --checkpoint-dir ck --generate-plots >"$TMPDIR/ok.out" 2>&1 || { cat "$TMPDIR/ok.out"; exit 1; }
"$GENPERF" process-export-files -d "$TMPDIR/notp" --artifact-dir "$TMPDIR/notpout" >"$TMPDIR/notp.out" 2>&1 ||
  { cat "$TMPDIR/notp.out"; exit 1; }
# no -d: ./aggregated
(cd "$TMPDIR/cwd" && "$GENPERF" process-export-files --artifact-dir out) >"$TMPDIR/cwd.out" 2>&1 ||
  { cat "$TMPDIR/cwd.out"; exit 1; }
python3 - "$TMPDIR" <<'PY' || bad=1
import glob, json, sys
t = sys.argv[1]
def one(p):
    f = glob.glob(p); assert len(f) == 1, (p, f); return json.load(open(f[0]))
bad = []
def check(got, want, what):
    ok = got == want
    print("ok  " if ok else "FAIL", what, got, "" if ok else "want %r" % (want,))
    if not ok: bad.append(what)
g = one(t + "/okout/m-openai-chat-concurrency1/merged_genai_perf.json")
pe = one(t + "/okout/m-openai-chat-concurrency1/merged.json")
check(g["input_config"]["output"], {"artifact_directory": t + "/okout", "checkpoint_directory": "ck",
      "profile_export_file": "merged.json", "generate_plots": True, "enable_checkpointing": False},
      "input_config.output is the command's")
check(pe["version"], "perf_analyzer 2.59.1", "profile_export.json version = the first node's")
check(g["request_throughput"]["avg"], 3.75, "request throughput: 2.5 + (none) + 1.25")
check(g["output_token_throughput"]["avg"], 15.5, "output token throughput: 10.0 + (none) + 5.5")
ts = g.get("telemetry_stats")
check(ts, {"gpu_power_usage": {"unit": "W", "0": {"avg": 150.0}, "1": {"avg": 50.0}, "2": {"avg": 30.0}},
           "gpu_power_limit": {"unit": "W", "0": {"avg": 700.0}},
           "gpu_utilization": {"unit": "%", "0": {"avg": 50.0}},
           "energy_consumption": {"unit": "MJ", "0": {"avg": 1.5}},
           "gpu_memory_used": {"unit": "GB", "0": {"avg": 30.0}},
           "total_gpu_memory": {"unit": "GB", "0": {"avg": 80.0}}},
      "telemetry_stats aggregated (mean power/utilization/energy, max the rest)")
n = one(t + "/notpout/*/profile_export_genai_perf.json")
check(n["request_throughput"]["avg"], 0, "no node with a request throughput: 0")
check(n["output_token_throughput"]["avg"], 0, "no node with an output token throughput: 0")
check("telemetry_stats" in n, False, "no telemetry: no telemetry_stats")
c = one(t + "/cwd/out/*/profile_export_genai_perf.json")
check(c["input_config"]["process"]["input_path"], "aggregated", "default --input-directory")
check(c["request_throughput"]["avg"], 3.0, "./aggregated merged")
csv = open(glob.glob(t + "/okout/*/merged_genai_perf.csv")[0]).read()
check("GPU Power Usage (W),0,150.00," in csv, True, "CSV telemetry row from the aggregate")
sys.exit(1 if bad else 0)
PY
[ $bad -eq 0 ] || exit 1
echo PASS
