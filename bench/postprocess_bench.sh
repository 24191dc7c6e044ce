#!/usr/bin/env bash
# bench/postprocess_bench.sh — metrics + every artifact for 1,000,000 synthetic
# request records (issue 10 item 7, issue 19: goal < 2 s wall, peak RSS
# reported). Usage: [N] [K content chunks].
#
# PP_BASE_REF=<git ref> (e.g. main) also builds that ref's library with this
# bench driver (git archive into the temp dir) and runs the two builds
# alternately, PP_ROUNDS times each (default 3), then prints both side by
# side (median and best wall) and whether their artifacts are the same bytes
# (sha256 of every file: the driver fixes the wall-clock origin).
# PP_SHA=1 prints the sha256 of every artifact of a single-build run.
# The artifacts (about 1.8 GB for the default) go to a temporary directory
# that is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
make -s -j2 "$BUILD/bench/postprocess" >/dev/null
N=${1:-1000000}
K=${2:-4}
out="$BENCH_TMP/postprocess"

if [ -z "${PP_BASE_REF:-}" ]; then
  "$BUILD/bench/postprocess" "$N" "$K" "$out"
  ls -l "$out" | awk 'NR>1 {printf "  %12d  %s\n", $5, $9}'
  if [ "${PP_SHA:-0}" = 1 ]; then (cd "$out" && sha256sum -- *); fi
  exit 0
fi

# ---- before/after in one run -------------------------------------------------
base="$BENCH_TMP/base"
mkdir -p "$base"
git archive "$PP_BASE_REF" | tar -x -C "$base"
cp bench/postprocess.c "$base/bench/postprocess.c" # same driver, the ref's library
echo "building $PP_BASE_REF ($(git rev-parse --short "$PP_BASE_REF")) in $base ..."
make -s -C "$base" -j2 build/bench/postprocess >/dev/null
declare -A bin=([base]="$base/build/bench/postprocess" [new]="$GP_ROOT/$BUILD/bench/postprocess")
rounds=${PP_ROUNDS:-3}
for r in $(seq "$rounds"); do
  for v in base new; do
    rm -rf "$out"
    "${bin[$v]}" "$N" "$K" "$out" >"$BENCH_TMP/$v.$r.txt"
    (cd "$out" && sha256sum -- *) >"$BENCH_TMP/$v.sha"
    awk -v v="$v" -v r="$r" '/^(metrics|export|total|peak)/ {printf "round %d %-4s %s\n", r, v, $0}' "$BENCH_TMP/$v.$r.txt"
  done
done
# per build: median and best of total wall, metrics, export; CPU and RSS medians
summary() {
  local v=$1
  cat "$BENCH_TMP/$v".*.txt | awk -v v="$v" '
    /^RESULT\|postprocess\|metrics \+ all/ {split($0, f, "|"); t[++n] = f[4]}
    /^RESULT\|postprocess\|gp_metrics_compute/ {split($0, f, "|"); m[++nm] = f[4]}
    /^RESULT\|postprocess\|gp_export_all/ {split($0, f, "|"); e[++ne] = f[4]}
    /^RESULT\|postprocess\|metrics \+ artifacts \(CPU/ {split($0, f, "|"); c[++nc] = f[4]}
    /^RESULT\|postprocess\|peak RSS/ {split($0, f, "|"); s[++ns] = f[4]}
    function med(a, k,   i, j, x) { for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x } return a[int((k + 1) / 2)] }
    END { mt = med(t, n); printf "%-4s total median %.2f s (best %.2f) | metrics median %.2f s | export median %.2f s | cpu median %.2f s | peak RSS %d MiB\n",
          v, mt, t[1], med(m, nm), med(e, ne), med(c, nc), med(s, ns) }'
}
summary base
summary new
if cmp -s "$BENCH_TMP/base.sha" "$BENCH_TMP/new.sha"; then
  echo "artifacts: identical bytes (sha256 of every file)"
else
  echo "artifacts: DIFFER"; diff "$BENCH_TMP/base.sha" "$BENCH_TMP/new.sha" || true
fi
awk '{printf "  %s  %s\n", substr($1, 1, 16), $2}' "$BENCH_TMP/new.sha"
