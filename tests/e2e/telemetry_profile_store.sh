#!/usr/bin/env bash
# A profile run with the fake NVML (2 GPUs, gpu1 lost mid-run) against
# genperf serve: <stem>_telemetry.jsonl and telemetry_stats land in the
# artifacts, `genperf ingest` stores the samples (status lines skipped) and
# v_telemetry_job_summary reads them.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
"$GENPERF" serve --help >/dev/null 2>&1 || { echo "genperf serve not available"; exit 77; }
"$GENPERF" ingest --help >/dev/null 2>&1 || { echo "genperf ingest not available"; exit 77; }
lib="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 20 --itl-ms 10 >"$TMPDIR/serve.log" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true; wait $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url") || { echo "no port file"; exit 1; }
GENPERF_NVML_LIB="$lib" GENPERF_FAKE_NVML_DEVICES=2 GENPERF_FAKE_NVML_FAIL_DEV=1 GENPERF_FAKE_NVML_FAIL_AFTER=2 \
  "$GENPERF" profile -m m --url "${url#http://}" --endpoint-type chat --streaming --concurrency 2 \
    --request-count 16 --synthetic-input-tokens-mean 20 --output-tokens-mean 20 --tokenizer builtin \
    --telemetry-interval 0.1 --server-metrics-url "$url/metrics" --artifact-dir "$TMPDIR/art" \
    >"$TMPDIR/profile.log" 2>&1 || { echo "profile failed"; tail -20 "$TMPDIR/profile.log"; exit 1; }
tj=$(find "$TMPDIR/art" -name '*_telemetry.jsonl' | head -1)
gj=$(find "$TMPDIR/art" -name '*_genai_perf.json' | head -1)
[ -n "$tj" ] && [ -n "$gj" ] || { echo "artifacts missing"; find "$TMPDIR/art"; exit 1; }
python3 - "$tj" "$gj" <<'PY' || exit 1
import json, sys, collections
lines = [json.loads(l) for l in open(sys.argv[1])]
g = json.load(open(sys.argv[2]))
by = collections.Counter((l["device"], l["metric"]) for l in lines if "value" in l)
n0 = by[("gpu0", "power_w")]
assert n0 >= 3, by
assert by[("gpu1", "power_w")] == 2, by
assert by[("server", "num_requests_running")] == n0, by
assert by[("host", "load1")] == n0 and by[("genperf", "cpu_pct")] >= n0 - 1, by
lost = [l for l in lines if l.get("mid_run")]
assert len(lost) == 1 and lost[0]["device"] == "gpu1", lost
ts = g["telemetry_stats"]
assert ts["gpu_power_usage"]["unit"] == "W" and set(ts["gpu_power_usage"]) == {"unit", "0", "1"}, ts["gpu_power_usage"]
assert list(g)[-2:] == ["telemetry_stats", "input_config"], list(g)
print("artifacts ok:", n0, "ticks")
PY
"$GENPERF" ingest "$TMPDIR/art" --db "$TMPDIR/r.db" >"$TMPDIR/ingest.log" 2>&1 || { echo "ingest failed"; cat "$TMPDIR/ingest.log"; exit 1; }
"$GENPERF" query --db "$TMPDIR/r.db" --format json \
  "SELECT device, source, sample_count, power_avg_w, power_max_w, mem_total_gib, energy_used_j FROM v_telemetry_job_summary WHERE source = 'samples' ORDER BY device" \
  >"$TMPDIR/q.json" || { echo "query failed"; exit 1; }
python3 - "$TMPDIR/q.json" "$tj" <<'PY' || exit 1
import json, sys
rows = {r["device"]: r for r in json.load(open(sys.argv[1]))}
lines = [json.loads(l) for l in open(sys.argv[2])]
n0 = sum(1 for l in lines if l.get("device") == "gpu0" and l.get("metric") == "power_w")
assert {"gpu0", "gpu1", "host", "genperf", "server"} <= set(rows), rows
g0 = rows["gpu0"]
assert int(g0["sample_count"]) == n0, (g0, n0)
# fake power: 100, 110, ... W for gpu0
assert abs(float(g0["power_avg_w"]) - (100 + 10 * (n0 - 1) / 2)) < 1e-6, g0
assert abs(float(g0["mem_total_gib"]) - 80) < 1e-9, g0
assert abs(float(g0["energy_used_j"]) - 500 * (n0 - 1)) < 1e-6, g0
assert int(rows["gpu1"]["sample_count"]) == 2, rows["gpu1"]
print("store ok")
PY
echo ok
