#!/usr/bin/env bash
# bench/postprocess_bench.sh — metrics + every artifact for 1,000,000 synthetic
# request records (issue 10 item 7; goal < 3 s). Usage: [N] [K content chunks].
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
make -s -j2 "$BUILD/bench/postprocess" >/dev/null
out=bench/out/postprocess
mkdir -p "$out"
"$BUILD/bench/postprocess" "${1:-1000000}" "${2:-4}" "$out"
ls -l "$out" | awk 'NR>1 {printf "  %12d  %s\n", $5, $9}'
rm -rf "$out"
