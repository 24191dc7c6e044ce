# bench/lib.sh — helpers shared by the bench scripts (sourced, not run).
# Every bench prints human-readable lines plus machine lines of the form
#   RESULT|<bench>|<figure>|<value>|<unit>|<goal>|<met: yes/no/->
# which bench/run_all.sh collects into BENCHMARKS.md.
: "${BUILD:=build}"
GP_ROOT=${GP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
GENPERF=${GENPERF:-$GP_ROOT/$BUILD/genperf}
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gp-bench.XXXXXX")
bench_pids=()
bench_cleanup() { for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$BENCH_TMP"; }
trap bench_cleanup EXIT

result() { echo "RESULT|$1|$2|$3|$4|$5|$6"; }

# start_serve NAME ARGS... -> sets SERVE_URL
start_serve() {
  local name=$1; shift
  rm -f "$BENCH_TMP/$name.url"
  "$GENPERF" serve --port 0 --port-file "$BENCH_TMP/$name.url" "$@" >"$BENCH_TMP/$name.log" 2>&1 &
  bench_pids+=($!)
  for _ in $(seq 200); do [ -s "$BENCH_TMP/$name.url" ] && break; sleep 0.05; done
  SERVE_URL=$(cat "$BENCH_TMP/$name.url")
  SERVE_PID=$!
}

# cpu_of CMD... : runs CMD, prints "<user+sys seconds> <wall seconds>" of it on fd 3
timed() {
  /usr/bin/time -f "%U %S %e" -o "$BENCH_TMP/time.txt" "$@"
  local rc=$?
  read -r u s e < "$BENCH_TMP/time.txt"
  TIMED_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.3f", u+s}')
  TIMED_WALL=$e
  return $rc
}
