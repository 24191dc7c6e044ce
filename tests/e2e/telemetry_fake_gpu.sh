#!/usr/bin/env bash
# genperf telemetry with the fake NVML library: scripted values, units,
# GenAI-Perf telemetry_stats, a device lost mid-run, a library that fails to init.
set -eu
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
lib="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
[ -f "$lib" ] || { echo "missing $lib (make builds it as a TEST_DEP)"; exit 1; }
export GENPERF_NVML_LIB="$lib"
GENPERF_FAKE_NVML_DEVICES=2 GENPERF_FAKE_NVML_FAIL_DEV=1 GENPERF_FAKE_NVML_FAIL_AFTER=3 \
  "$GENPERF" telemetry --duration 1 --interval 0.2 --output "$TMPDIR/t.jsonl" --json >"$TMPDIR/s.json"
python3 - "$TMPDIR/t.jsonl" "$TMPDIR/s.json" <<'PY'
import json, sys, collections
lines = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
assert s["gpu"]["status"] == "available" and s["gpu"]["count"] == 2, s["gpu"]
assert s["gpu"]["names"] == ["Fake GPU 0", "Fake GPU 1"]
by = collections.defaultdict(list)
for l in lines:
    if "value" in l:
        by[(l["device"], l["metric"])].append(l["value"])
assert by[("gpu0", "power_w")] == [100, 110, 120, 130, 140, 150], by[("gpu0", "power_w")]
assert by[("gpu1", "power_w")] == [150, 160, 170]
assert by[("gpu0", "energy_j")][1] == 1000500
assert by[("gpu0", "mem_total_bytes")][0] == 80 * 2**30
assert by[("gpu0", "mem_used_bytes")][2] == 3 * 2**30
assert by[("gpu1", "temp_c")] == [41, 42, 43]
assert by[("gpu0", "sm_clock_mhz")][0] == 1980 and by[("gpu1", "mem_util_pct")][0] == 31
err = [l for l in lines if l.get("mid_run")]
assert all(l["metric"] == "unavailable" and "value" not in l for l in err)
assert len(err) == 1 and err[0]["device"] == "gpu1" and "GPU is lost" in err[0]["reason"], err
ts = s["telemetry_stats"]
# every GenAI-Perf field NVML has, in GenAI-Perf's order (no sm_utilization,
# xid_last_error: DCGM only)
assert list(ts) == ["gpu_power_usage", "gpu_power_limit", "energy_consumption", "total_gpu_memory",
                    "gpu_memory_used", "gpu_memory_free", "gpu_utilization", "memory_copy_utilization",
                    "video_encoder_utilization", "video_decoder_utilization", "gpu_clock_sm",
                    "gpu_clock_memory", "gpu_temperature", "gpu_memory_temperature",
                    "total_ecc_sbe_volatile", "total_ecc_dbe_volatile", "total_ecc_sbe_aggregate",
                    "total_ecc_dbe_aggregate", "power_throttle_duration", "thermal_throttle_duration",
                    "retired_pages_sbe", "retired_pages_dbe", "total_nvlink_crc_flit_errors",
                    "total_nvlink_crc_data_errors", "pcie_transmit_throughput", "pcie_receive_throughput",
                    "pcie_replay_counter"], list(ts)
# the extras' time series, in our units (fake_nvml.c's script)
assert by[("gpu1", "mem_clock_mhz")][0] == 2618 and by[("gpu0", "enc_util_pct")][0] == 5
assert by[("gpu0", "dec_util_pct")][0] == 7 and by[("gpu0", "mem_free_bytes")][0] == 78.5 * 2**30  # 80 - 1 used - 0.5 reserved
assert by[("gpu1", "mem_temp_c")] == [51, 52, 53]
assert by[("gpu0", "power_violation_us")][:2] == [1000, 1100] and by[("gpu0", "thermal_violation_us")][1] == 200
assert by[("gpu0", "pcie_tx_bytes_per_s")][1] == 1010 * 1024 and by[("gpu1", "pcie_rx_bytes_per_s")][0] == 2001 * 1024
assert by[("gpu1", "ecc_sbe_volatile")][0] == 4 and by[("gpu0", "ecc_dbe_volatile")][0] == 1
assert by[("gpu0", "ecc_sbe_aggregate")][0] == 30 and by[("gpu0", "ecc_dbe_aggregate")][0] == 2
assert by[("gpu0", "retired_pages_sbe")][0] == 4 and by[("gpu0", "retired_pages_dbe")][0] == 5
assert by[("gpu0", "nvlink_crc_flit_errors")][0] == 6 and by[("gpu0", "nvlink_crc_data_errors")][0] == 7
assert by[("gpu0", "pcie_replay_count")][:3] == [8, 9, 10]
assert ts["pcie_transmit_throughput"]["unit"] == "KB/s" and ts["pcie_transmit_throughput"]["0"]["min"] == 1000
assert ts["power_throttle_duration"]["unit"] == "us" and ts["retired_pages_sbe"]["unit"] == "pages"
assert ts["pcie_replay_counter"]["unit"] == "retries" and ts["total_ecc_sbe_volatile"]["unit"] == "errors"
p = ts["gpu_power_usage"]
assert p["unit"] == "W" and abs(p["0"]["avg"] - 125) < 1e-9 and abs(p["1"]["avg"] - 160) < 1e-9
assert list(p["0"]) == ["avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std"]
assert ts["gpu_power_limit"]["0"] == {"avg": 700.0}
assert ts["energy_consumption"]["unit"] == "MJ" and abs(ts["energy_consumption"]["0"]["min"] - 1.0) < 1e-12
assert ts["total_gpu_memory"]["unit"] == "GB" and abs(ts["total_gpu_memory"]["0"]["avg"] - 85.89934592) < 1e-9
assert ts["gpu_temperature"]["unit"] == "C" and ts["gpu_clock_sm"]["unit"] == "MHz"
print("ok")
PY
# memory used is NVML v2's (without the driver's reserve, as nvidia-smi shows it; the run above
# read 3 GiB at k=2, where v1 says 3.5); a driver without v2 falls back to v1
GENPERF_FAKE_NVML_NO_MEM_V2=1 "$GENPERF" telemetry --duration 0.2 --interval 0.1 --output "$TMPDIR/v1.jsonl" >/dev/null
python3 - "$TMPDIR/v1.jsonl" <<'PY'
import json, sys
used = [l["value"] for l in map(json.loads, open(sys.argv[1])) if l.get("metric") == "mem_used_bytes"]
assert used and used[0] == 2**30 + 512 * 2**20, used
PY
# a library that fails to initialise: reason shown, host still sampled
GENPERF_FAKE_NVML_INIT_FAIL=1 "$GENPERF" telemetry --duration 0.2 --interval 0.1 >"$TMPDIR/f.txt"
grep -q 'GPU telemetry: nvmlInit_v2 failed .*Driver Not Loaded' "$TMPDIR/f.txt"
grep -q 'host.load1' "$TMPDIR/f.txt"
# zero devices
GENPERF_FAKE_NVML_DEVICES=0 "$GENPERF" telemetry --duration 0 --json >"$TMPDIR/z.json"
grep -q '"status": "no NVIDIA GPU found' "$TMPDIR/z.json"
# bad flag values are refused with a message
if "$GENPERF" telemetry --interval 0.001 2>"$TMPDIR/e.txt"; then exit 1; fi
grep -q 'too small' "$TMPDIR/e.txt"
echo ok
