#!/usr/bin/env bash
# bench/postprocess_bench.sh — metrics + every artifact for 1,000,000 synthetic
# request records (issue 10 item 7; goal < 3 s). Usage: [N] [K content chunks].
# The artifacts (about 1.8 GB for the default) go to a temporary directory
# that is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
make -s -j2 "$BUILD/bench/postprocess" >/dev/null
out="$BENCH_TMP/postprocess"
"$BUILD/bench/postprocess" "${1:-1000000}" "${2:-4}" "$out"
ls -l "$out" | awk 'NR>1 {printf "  %12d  %s\n", $5, $9}'
