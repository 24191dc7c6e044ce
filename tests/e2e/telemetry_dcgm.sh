#!/usr/bin/env bash
# A fake DCGM exporter (tests/fake_dcgm/fake_dcgm.py, 2 GPUs, every field
# GenAI-Perf's DCGM collector reads) and no NVML: `genperf telemetry` reports
# all 29 GenAI-Perf telemetry fields under its names, order, units and
# scaling; a `genperf profile` against `genperf serve` puts them in
# *_genai_perf.json (between the last metric and input_config) and in the CSV
# GPU tables exactly as GenAI-Perf's csv.writer would.
set -eu
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
fake="$GP_ROOT/tests/fake_dcgm/fake_dcgm.py"
python3 "$fake" "$TMPDIR/dport" 2 &
dpid=$!
spid=
trap 'kill $dpid $spid 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/dport" ] && break; sleep 0.05; done
durl="http://127.0.0.1:$(cat "$TMPDIR/dport")/metrics"
export GENPERF_NVML_LIB=/nonexistent/libnvidia-ml.so.1
"$GENPERF" telemetry --duration 0.6 --interval 0.2 --server-metrics-url "$durl" \
  --output "$TMPDIR/t.jsonl" --json >"$TMPDIR/s.json"
cat >"$TMPDIR/check.py" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("fake_dcgm", sys.argv[1])
fd = importlib.util.module_from_spec(spec); spec.loader.exec_module(fd)
ts = json.load(open(sys.argv[2]))
if "telemetry_stats" in ts and "gpu" in ts:   # the `genperf telemetry --json` summary
    assert ts["gpu"]["source"] == "dcgm" and ts["gpu"]["count"] == 2, ts["gpu"]
    ts = ts["telemetry_stats"]
elif "input_config" in ts:                    # a *_genai_perf.json
    keys = list(ts)
    assert keys[-2:] == ["telemetry_stats", "input_config"], keys
    ts = ts["telemetry_stats"]
# GenAI-Perf's DCGM_TO_INTERNAL_METRIC_NAME, TELEMETRY_METRICS order, units, scale_data factors
gp = [("gpu_power_usage", "DCGM_FI_DEV_POWER_USAGE", "W", 1),
      ("gpu_power_limit", "DCGM_FI_DEV_POWER_MGMT_LIMIT", "W", 1),
      ("energy_consumption", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "MJ", 1e-9),
      ("total_gpu_memory", "DCGM_FI_DEV_FB_TOTAL", "GB", 1.048576e-3),
      ("gpu_memory_used", "DCGM_FI_DEV_FB_USED", "GB", 1.048576e-3),
      ("gpu_memory_free", "DCGM_FI_DEV_FB_FREE", "GB", 1.048576e-3),
      ("gpu_utilization", "DCGM_FI_DEV_GPU_UTIL", "%", 1),
      ("sm_utilization", "DCGM_FI_PROF_SM_ACTIVE", "%", 100),
      ("memory_copy_utilization", "DCGM_FI_DEV_MEM_COPY_UTIL", "%", 1),
      ("video_encoder_utilization", "DCGM_FI_DEV_ENC_UTIL", "%", 1),
      ("video_decoder_utilization", "DCGM_FI_DEV_DEC_UTIL", "%", 1),
      ("gpu_clock_sm", "DCGM_FI_DEV_SM_CLOCK", "MHz", 1),
      ("gpu_clock_memory", "DCGM_FI_DEV_MEM_CLOCK", "MHz", 1),
      ("gpu_temperature", "DCGM_FI_DEV_GPU_TEMP", "C", 1),
      ("gpu_memory_temperature", "DCGM_FI_DEV_MEMORY_TEMP", "C", 1),
      ("total_ecc_sbe_volatile", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "errors", 1),
      ("total_ecc_dbe_volatile", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "errors", 1),
      ("total_ecc_sbe_aggregate", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "errors", 1),
      ("total_ecc_dbe_aggregate", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "errors", 1),
      ("xid_last_error", "DCGM_FI_DEV_XID_ERRORS", "errors", 1),
      ("power_throttle_duration", "DCGM_FI_DEV_POWER_VIOLATION", "us", 1),
      ("thermal_throttle_duration", "DCGM_FI_DEV_THERMAL_VIOLATION", "us", 1),
      ("retired_pages_sbe", "DCGM_FI_DEV_RETIRED_SBE", "pages", 1),
      ("retired_pages_dbe", "DCGM_FI_DEV_RETIRED_DBE", "pages", 1),
      ("total_nvlink_crc_flit_errors", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "errors", 1),
      ("total_nvlink_crc_data_errors", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "errors", 1),
      ("pcie_transmit_throughput", "DCGM_FI_PROF_PCIE_TX_BYTES", "KB/s", 1 / 1024),
      ("pcie_receive_throughput", "DCGM_FI_PROF_PCIE_RX_BYTES", "KB/s", 1 / 1024),
      ("pcie_replay_counter", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "retries", 1)]
assert set(fd.FIELDS) == {d for _, d, _, _ in gp}
assert list(ts) == [n for n, _, _, _ in gp], list(ts)
for name, dcgm, unit, scale in gp:
    m = ts[name]
    assert m["unit"] == unit, (name, m["unit"])
    assert sorted(k for k in m if k != "unit") == ["0", "1"], (name, list(m))
    for g in (0, 1):
        st = m[str(g)]
        if name in ("gpu_power_limit", "total_gpu_memory"):
            assert list(st) == ["avg"], (name, st)
        else:
            assert list(st) == ["avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99",
                                "min", "max", "std"], (name, list(st))
        if name == "gpu_power_usage":
            # scrape k says 300 + 10g + 5k; the probe at start took k = 0
            assert (st["min"] - 300 - 10 * g) % 5 == 0 and st["max"] >= st["min"] + 5, st
            continue
        want = fd.value(dcgm, g, 0) * scale
        assert abs(st["avg"] - want) <= 1e-9 * max(1, abs(want)), (name, g, st["avg"], want)
print("ok", len(ts), "fields x 2 GPUs")
PY
python3 "$TMPDIR/check.py" "$fake" "$TMPDIR/s.json"
# the time series carries the DCGM fields under genperf's names
grep -q '"device":"gpu1","metric":"pcie_replay_count","value":20}' "$TMPDIR/t.jsonl"
grep -q '"device":"gpu0","metric":"sm_active_pct","value":62.5}' "$TMPDIR/t.jsonl"
grep -q '"device":"gpu0","metric":"xid_last_error","value":79}' "$TMPDIR/t.jsonl"

# a profile: JSON placement and the CSV GPU tables
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 5 --itl-ms 5 --quiet >"$TMPDIR/serve.out" 2>&1 &
spid=$!
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url")
"$GENPERF" profile -m m --url "$url" --endpoint-type chat --streaming --concurrency 2 --request-count 8 \
    --output-tokens-mean 20 --tokenizer builtin --server-metrics-url "$durl" \
    --artifact-dir "$TMPDIR/art" >"$TMPDIR/out" 2>"$TMPDIR/err" || { cat "$TMPDIR/err"; echo "FAIL: profile"; exit 1; }
run="$TMPDIR/art/m-openai-chat-concurrency2"
python3 "$TMPDIR/check.py" "$fake" "$run/profile_export_genai_perf.json"
python3 - "$run" <<'PY'
import csv, io, json, sys
run = sys.argv[1]
ts = json.load(open(f"{run}/profile_export_genai_perf.json"))["telemetry_stats"]
def label(name, unit):   # GenAI-Perf's _format_metric_name: capitalize(), "gpu" -> "GPU"
    return " ".join("GPU" if w == "gpu" else w.capitalize() for w in name.split("_")) + f" ({unit})"
const = ("gpu_power_limit", "total_gpu_memory")
cols = ["avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "p10", "p5", "p1"]
out = io.StringIO(); w = csv.writer(out)
w.writerow([]); w.writerow(["Metric", "GPU"] + cols)
for name, m in ts.items():
    if name not in const:
        for gpu, st in m.items():
            if gpu != "unit":
                w.writerow([label(name, m["unit"]), gpu] + [f"{st.get(c, 0.0):,.2f}" for c in cols])
w.writerow([]); w.writerow(["Metric", "GPU", "Value"])
for name, m in ts.items():
    if name in const:
        for gpu, st in m.items():
            if gpu != "unit":
                w.writerow([label(name, m["unit"]), gpu, f"{st['avg']:.2f}"])
text = open(f"{run}/profile_export_genai_perf.csv", newline="").read()
tail = out.getvalue()
assert text.endswith("Request Count (count),8.00\r\n" + tail), (text[-600:], tail[-600:])
for row in ("Sm Utilization (%),0,62.50,", "Pcie Receive Throughput (KB/s),0,\"4,000.00\"",
            "Total Ecc Sbe Volatile (errors),1,12.00,", "Xid Last Error (errors),0,79.00,",
            "Total Nvlink Crc Data Errors (errors),0,18.00,", "Total GPU Memory (GB),0,150.75\r\n"):
    assert row in text, row
print("csv ok")
PY
# -v prints GenAI-Perf's GPU telemetry tables after the metrics table; without it, none
! grep -q "Power Metrics" "$TMPDIR/out" || { echo "FAIL: telemetry tables without -v"; exit 1; }
"$GENPERF" profile -m m --url "$url" --endpoint-type chat --streaming --concurrency 2 --request-count 4 \
    --output-tokens-mean 5 --tokenizer builtin --server-metrics-url "$durl" -v \
    --artifact-dir "$TMPDIR/art2" >"$TMPDIR/outv" 2>"$TMPDIR/errv" || { cat "$TMPDIR/errv"; echo "FAIL: profile -v"; exit 1; }
python3 - "$TMPDIR/outv" <<'PY'
import sys
out = open(sys.argv[1]).read()
i = out.index("NVIDIA GenAI-Perf | LLM Metrics")
titles = [out.index(f"NVIDIA GenAI-Perf | {g} Metrics") for g in ("Power", "Memory", "Utilization")]
assert i < titles[0] < titles[1] < titles[2], titles
for sub in ("GPU Power Usage (W)", "GPU Power Limit (W)", "Energy Consumption (MJ)", "GPU Memory Used (GB)",
            "Total GPU Memory (GB)", "GPU Utilization (%)"):
    assert sub in out, sub
# the constant rows: avg then N/A; utilisation as int(round(v)); both GPUs
assert "│ │         0 │ 700.00 │ N/A │ N/A │ N/A │ N/A │ N/A │" in out, out[titles[0]:titles[1]]
assert "│ │         1 │  88 │  88 │  88 │  88 │  88 │  88 │ │" in out, out[titles[2]:]
print("verbose tables ok")
PY
echo ok
