#!/usr/bin/env bash
# bench/telemetry_overhead_bench.sh — CPU cost of one sampler tick (host /proc
# only, and with 8 fake NVML GPUs), from `genperf telemetry` at 100 Hz for 5 s.
# Goal: < 1 ms of CPU per tick, i.e. < 0.1% of a core at the default 1 s.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
GENPERF=${GENPERF:-$root/${BUILD:-build}/genperf}
lib="$root/${BUILD:-build}/tests-lib/libfake_nvml.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-telbench.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
[ -f "$lib" ] || make -C "$root" -s "${BUILD:-build}/tests-lib/libfake_nvml.so" >/dev/null
for mode in host fake8; do
  if [ $mode = host ]; then nv=/nonexistent/libnvidia-ml.so.1; else nv=$lib; fi
  GENPERF_NVML_LIB=$nv GENPERF_FAKE_NVML_DEVICES=8 /usr/bin/time -f "%U %S %e" -o "$tmp/time" \
    "$GENPERF" telemetry --duration 5 --interval 0.01 --quiet --json >"$tmp/s.json" || exit 1
  read -r u s e <"$tmp/time"
  ticks=$(python3 -c "import json;print(json.load(open('$tmp/s.json'))['ticks'])")
  us=$(awk -v u="$u" -v s="$s" -v t="$ticks" 'BEGIN{printf "%.0f", (u+s)*1e6/t}')
  echo "$mode: $ticks ticks in ${e}s wall, $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') s CPU -> ${us} us/tick"
  met=$([ "$us" -lt 1000 ] && echo yes || echo no)
  echo "RESULT|telemetry_overhead|CPU per tick ($mode, $(nproc) cores)|$us|us|< 1000|$met"
done
