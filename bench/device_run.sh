#!/usr/bin/env bash
# bench/device_run.sh — the checks to run on a lent machine with more cores and
# a GPU (not part of `make bench`: the name does not end in _bench.sh). Run from
# the repository root there, after `bash scripts/device-bundle.sh` here and with
# .devbundle/ carried along:  bash bench/device_run.sh
# Installs the bundle (libraries under /opt/gpbundle/lib, genperf as
# build/genperf, nginx/wrk/curl on PATH, Debian's Open MPI only where the
# machine has no mpirun), then runs, each under a time limit, what this 2-core
# machine cannot show:
#   1. bench/telemetry_gpu.sh: NVML against nvidia-smi under a PyTorch load
#   2. bench/scale_out_bench.sh with 8 workers and ranks with cores to spare
#      (DEV_SHAPES, default "w1 w2 w8 r2 r2u"; nginx with NGX_WORKERS=6;
#      60,000 streams / 300,000 requests, 3 rounds)
#   3. bench/nginx_stream_bench.sh (needs aiohttp: a python3 on PATH that has
#      it stands in for /usr/bin/python3 when that one lacks it)
# Logs go to $OUT (the device tool's folder) or /tmp/gp-device. About 5 minutes
# on 16 cores. Figures of the 2026-12-04 run: bench/NOTES.md.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
B=$root/.devbundle O=${OUT:-/tmp/gp-device}
mkdir -p "$O"
[ -d "$B/lib" ] || { echo "no .devbundle: run scripts/device-bundle.sh on the build machine"; exit 1; }
mkdir -p /opt/gpbundle && cp -r "$B/lib" /opt/gpbundle/
mkdir -p "$root/build" && cp "$B/bin/genperf" "$root/build/genperf"
mkdir -p /usr/local/gpbin && cp "$B/bin/nginx" "$B/bin/wrk" "$B/bin/curl" /usr/local/gpbin/
export PATH=$PATH:/usr/local/gpbin
command -v mpirun >/dev/null || tar -C / --skip-old-files -xJf "$B/ompi.tar.xz"
if ! /usr/bin/python3 -c 'import aiohttp' 2>/dev/null; then
  py=$(command -v python3)
  if [ -n "$py" ] && [ "$py" != /usr/bin/python3 ] && "$py" -c 'import aiohttp' 2>/dev/null; then
    [ -e /usr/bin/python3 ] && mv /usr/bin/python3 /usr/bin/python3.orig
    printf '#!/bin/sh\nexec %s "$@"\n' "$py" >/usr/bin/python3 && chmod +x /usr/bin/python3
  fi
fi
cd "$root"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; nvidia-smi -L 2>&1; mpirun --version 2>&1 | head -1
  build/genperf --version; } | tee "$O/env.log"
step() {  # step NAME SECONDS CMD...
  local name=$1 lim=$2; shift 2
  echo "== $name"
  timeout "$lim" "$@" >"$O/$name.log" 2>&1
  echo "rc=$?"; grep -v '^RESULT' "$O/$name.log" | tail -40; grep '^RESULT' "$O/$name.log"
}
DUR=15 step telemetry_gpu 60 bash bench/telemetry_gpu.sh
SCALE_SHAPES=${DEV_SHAPES:-w1 w2 w8 r2 r2u} NGX_WORKERS=${NGX_WORKERS:-6} SCALE_ROUNDS=3 \
  SCALE_STREAM_N=60000 SCALE_NS_N=300000 step scale_out 400 bash bench/scale_out_bench.sh
step nginx_stream 240 bash bench/nginx_stream_bench.sh
