#!/usr/bin/env bash
# bench/telemetry_gpu.sh — real-GPU check of the NVML sampler (needs an NVIDIA GPU + driver).
#
# Runs `genperf telemetry` for 20 s at 0.5 s while a GPU load runs, then checks
# the series against nvidia-smi read during the same window: every GPU has all
# nine metrics, power is within (0, 1.1 x limit], utilisation rises under load,
# memory used <= total and close to nvidia-smi's, the energy counter grows
# and its increase matches the integral of power. Not part of `make bench`
# (the name does not end in _bench.sh) and never run in CI: run it by hand on
# a GPU machine:  bash bench/telemetry_gpu.sh
# Load: $GPU_LOAD_CMD if set, else a PyTorch matmul loop if torch+CUDA import,
# else gpu_burn if on PATH, else none (idle sampling; the load checks are skipped).
# Exit: 0 all checks passed, 77 no GPU here, 1 a check failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
GENPERF=${GENPERF:-$root/${BUILD:-build}/genperf}
DUR=${DUR:-20}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-telgpu.XXXXXX")
load_pid=
cleanup() { [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

command -v nvidia-smi >/dev/null || { echo "no nvidia-smi: not a GPU machine"; exit 77; }
nvidia-smi -L >/dev/null 2>&1 || { echo "nvidia-smi -L failed: no usable GPU"; exit 77; }
[ -x "$GENPERF" ] || { echo "build first: make -j2 ($GENPERF missing)"; exit 1; }
command -v python3 >/dev/null || { echo "python3 needed for the checks"; exit 1; }

cat >"$tmp/load.py" <<'PY'
import sys, time, torch
end = time.time() + float(sys.argv[1])
devs = [torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]
xs = [torch.randn(8192, 8192, device=d, dtype=torch.float16) for d in devs]
while time.time() < end:
    for x in xs:
        y = x @ x
    torch.cuda.synchronize()
PY
loaded=1
if [ -n "${GPU_LOAD_CMD:-}" ]; then
  bash -c "$GPU_LOAD_CMD" >"$tmp/load.log" 2>&1 & load_pid=$!
  echo "load: $GPU_LOAD_CMD"
elif python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  python3 "$tmp/load.py" $((DUR + 4)) >"$tmp/load.log" 2>&1 & load_pid=$!
  echo "load: torch fp16 matmul on every GPU"
elif command -v gpu_burn >/dev/null; then
  gpu_burn $((DUR + 4)) >"$tmp/load.log" 2>&1 & load_pid=$!
  echo "load: gpu_burn"
else
  loaded=0
  echo "load: none found (set GPU_LOAD_CMD); sampling an idle GPU, load checks skipped"
fi
sleep 3   # let the load ramp up

# nvidia-smi alongside, once a second, for the cross-check
nvidia-smi --query-gpu=index,power.draw,memory.used,memory.total,utilization.gpu \
  --format=csv,noheader,nounits -l 1 >"$tmp/smi.csv" 2>/dev/null & smi_pid=$!
"$GENPERF" telemetry --duration "$DUR" --interval 0.5 --quiet --json \
  --output "$tmp/t.jsonl" >"$tmp/s.json"; rc=$?
kill $smi_pid 2>/dev/null
[ $rc -eq 0 ] || { echo "genperf telemetry failed (rc=$rc)"; exit 1; }

python3 - "$tmp/t.jsonl" "$tmp/s.json" "$tmp/smi.csv" "$loaded" "$DUR" <<'PY'
import json, sys, collections
lines = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
loaded = sys.argv[4] == "1"; dur = float(sys.argv[5])
fails = []
def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond: fails.append(what)
check(s["gpu"]["status"] == "available", "GPU status available: " + s["gpu"]["status"])
n = s["gpu"]["count"]
print("GPUs:", n, s["gpu"]["names"])
by = collections.defaultdict(list)
for l in lines:
    if "value" in l:
        by[(l["device"], l["metric"])].append((l["t_ns"], l["value"]))
for e in s["events"]:
    print("event:", e)
smi = collections.defaultdict(list)
for row in open(sys.argv[3]):
    f = [x.strip() for x in row.split(",")]
    try: smi[int(f[0])].append([float(x) for x in f[1:]])
    except ValueError: pass
metrics = ["power_w", "power_limit_w", "energy_j", "gpu_util_pct", "mem_util_pct",
           "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz"]
for g in range(n):
    d = f"gpu{g}"
    for m in metrics:
        k = len(by[(d, m)])
        check(k >= 0.8 * dur / 0.5, f"{d}.{m}: {k} samples")
    pw = [v for _, v in by[(d, "power_w")]]; lim = [v for _, v in by[(d, "power_limit_w")]]
    if pw and lim:
        check(0 < min(pw) and max(pw) <= 1.1 * max(lim), f"{d} power {min(pw):.0f}..{max(pw):.0f} W, limit {max(lim):.0f} W")
    ut = [v for _, v in by[(d, "gpu_util_pct")]]
    if ut and loaded:
        check(sum(ut) / len(ut) > 50, f"{d} gpu util avg {sum(ut)/len(ut):.0f}% under load")
    mu = [v for _, v in by[(d, "mem_used_bytes")]]; mt = [v for _, v in by[(d, "mem_total_bytes")]]
    if mu and mt:
        check(max(mu) <= max(mt), f"{d} mem used {max(mu)/2**30:.1f} <= total {max(mt)/2**30:.1f} GiB")
    tc = [v for _, v in by[(d, "temp_c")]]
    if tc:
        check(10 < min(tc) and max(tc) < 110, f"{d} temperature {min(tc):.0f}..{max(tc):.0f} C")
    en = by[(d, "energy_j")]
    if len(en) > 2 and len(by[(d, "power_w")]) > 2:
        de = en[-1][1] - en[0][1]
        p = by[(d, "power_w")]
        integ = sum((p[i + 1][0] - p[i][0]) / 1e9 * (p[i][1] + p[i + 1][1]) / 2 for i in range(len(p) - 1))
        check(de > 0 and abs(de - integ) < 0.25 * integ + 50, f"{d} energy +{de:.0f} J vs power integral {integ:.0f} J")
    if smi.get(g) and pw and mu:
        sp = sum(r[0] for r in smi[g]) / len(smi[g]); sm = sum(r[1] for r in smi[g]) / len(smi[g])
        gp = sum(pw) / len(pw); gm = sum(mu) / len(mu) / 2**20
        check(abs(gp - sp) < 0.3 * sp + 20, f"{d} avg power {gp:.0f} W vs nvidia-smi {sp:.0f} W")
        # v2's used, as nvidia-smi (v1 counted the driver's reserve: +657 MiB on an H200)
        check(abs(gm - sm) < 0.02 * sm + 256, f"{d} avg mem used {gm:.0f} MiB vs nvidia-smi {sm:.0f} MiB")
ts = s.get("telemetry_stats", {})
check("gpu_power_usage" in ts and "0" in ts["gpu_power_usage"], "telemetry_stats has gpu_power_usage for GPU 0")
sc = s["metrics"].get("genperf.cpu_pct", {}).get("avg")
print(f"sampler cost: genperf cpu avg {sc}% of a core at 0.5 s with {n} GPU(s)")
# one sampler thread every 0.5 s: a few % of a core (a short first window once read 230,335 %)
check(sc is not None and 0 <= sc < 50, f"genperf cpu_pct avg {sc} within a core's half")
print("RESULT|telemetry_gpu|checks failed|%d|count|0|%s" % (len(fails), "yes" if not fails else "no"))
sys.exit(1 if fails else 0)
PY
