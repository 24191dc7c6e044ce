#!/usr/bin/env bash
# metrics_telemetry_artifacts: a profile with the fake NVML library (2 GPUs):
# telemetry_stats sits between the last metric and input_config in
# *_genai_perf.json, the CSV gets GenAI-Perf's two telemetry sections (rebuilt
# here with csv.writer: "{:,.2f}" dynamic rows, "{:.2f}" constants, 0.00 for a
# missing stat), and *_genperf.json carries the telemetry summary.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
lib="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
[ -f "$lib" ] || { echo "fake NVML library not built ($lib)"; exit 77; }
if "$GENPERF" profile --help 2>&1 | grep -q "not implemented"; then echo "genperf profile not on this branch yet"; exit 77; fi
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 10 --itl-ms 20 --quiet >"$TMPDIR/serve.out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url") || { echo "no port file"; exit 1; }
GENPERF_NVML_LIB="$lib" GENPERF_FAKE_NVML_DEVICES=2 "$GENPERF" profile -m m --url "$url" --endpoint-type chat \
    --streaming --concurrency 2 --request-count 8 --output-tokens-mean 20 --tokenizer builtin \
    --artifact-dir "$TMPDIR/art" >"$TMPDIR/out" 2>"$TMPDIR/err" || { cat "$TMPDIR/err"; echo "FAIL: profile"; exit 1; }
python3 - "$TMPDIR/art/m-openai-chat-concurrency2" <<'PY'
import csv, io, json, sys
run = sys.argv[1]
gp = json.load(open(f"{run}/profile_export_genai_perf.json"))
keys = list(gp)
assert "telemetry_stats" in gp, keys
assert keys[-2:] == ["telemetry_stats", "input_config"] and keys[-3] == "input_sequence_length", keys
ts = gp["telemetry_stats"]
assert sorted(k for k in ts["gpu_power_usage"] if k != "unit") == ["0", "1"], ts["gpu_power_usage"].keys()
def label(name, unit):
    words = [("GPU" if w == "gpu" else w[:1].upper() + w[1:]) for w in name.split("_")]
    return " ".join(words) + f" ({unit})"
const = ("gpu_power_limit", "total_gpu_memory")
cols = ["avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "p10", "p5", "p1"]
out = io.StringIO()
w = csv.writer(out)
w.writerow([])
w.writerow(["Metric", "GPU"] + cols)
for name, m in ts.items():
    if name in const:
        continue
    for gpu, st in m.items():
        if gpu == "unit":
            continue
        w.writerow([label(name, m["unit"]), gpu] + [f"{st.get(c, 0):,.2f}" for c in cols])
w.writerow([])
w.writerow(["Metric", "GPU", "Value"])
for name, m in ts.items():
    if name not in const:
        continue
    for gpu, st in m.items():
        if gpu != "unit":
            w.writerow([label(name, m["unit"]), gpu, f"{st['avg']:.2f}"])
text = open(f"{run}/profile_export_genai_perf.csv", newline="").read()
tail = out.getvalue()
assert text.endswith("Request Count (count),8.00\r\n" + tail), (text[-400:], tail[-400:])
g = json.load(open(f"{run}/profile_export_genperf.json"))
assert "telemetry" not in g or isinstance(g["telemetry"], dict)
print("telemetry sections ok:", len(ts), "metrics x 2 GPUs")
PY
