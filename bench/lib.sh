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

# PRIO: prefix for latency-sensitive runs. The host is shared (load average
# well above the core count while others build and test), so the timing and
# scale benches run client and server at nice -10 when allowed (root);
# BENCH_NICE=0 turns it off. CPU-second figures do not depend on it.
# With autogroup scheduling nice only ranks tasks inside one session, so
# bench_boost_session (called first by those benches) re-runs the script in a
# session of its own and lowers that session's autogroup nice as well.
PRIO=()
if [ "${BENCH_NICE:-1}" != 0 ] && nice -n -10 true 2>/dev/null; then PRIO=(nice -n -10); fi
bench_boost_session() {
  [ ${#PRIO[@]} -gt 0 ] || return 0
  if [ -z "${GP_BENCH_SESSION:-}" ] && command -v setsid >/dev/null; then
    bench_cleanup
    GP_BENCH_SESSION=1 exec setsid -w bash "$0" "$@"
  fi
  [ -w /proc/self/autogroup ] && echo -10 > /proc/self/autogroup 2>/dev/null
  BOOST="nice -10, own session, autogroup $(cat /proc/self/autogroup 2>/dev/null)"
}
BOOST=none

result() { echo "RESULT|$1|$2|$3|$4|$5|$6"; }

# start_serve NAME ARGS... -> sets SERVE_URL (SERVE_PREFIX=(...) runs it under a prefix)
SERVE_PREFIX=()
start_serve() {
  local name=$1; shift
  rm -f "$BENCH_TMP/$name.url"
  "${SERVE_PREFIX[@]}" "$GENPERF" serve --port 0 --port-file "$BENCH_TMP/$name.url" "$@" >"$BENCH_TMP/$name.log" 2>&1 &
  bench_pids+=($!)
  for _ in $(seq 200); do [ -s "$BENCH_TMP/$name.url" ] && break; sleep 0.05; done
  SERVE_URL=$(cat "$BENCH_TMP/$name.url")
  SERVE_PID=$!
}

# timed CMD...: runs CMD; sets TIMED_CPU (user+sys s of CMD and its children) and TIMED_WALL (s)
timed() {
  /usr/bin/time -f "%U %S %e" -o "$BENCH_TMP/time.txt" "$@"
  local rc=$?
  read -r u s e < "$BENCH_TMP/time.txt"
  TIMED_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.3f", u+s}')
  TIMED_WALL=$e
  return $rc
}

# calc FMT EXPR [name=value ...]: prints EXPR (awk syntax) with FMT. The
# expression is parenthesised so that a comparison is never read as awk's
# output redirection (`print a>b` writes to a file named b).
calc() {
  local fmt=$1 expr=$2; shift 2
  local args=() kv
  for kv in "$@"; do args+=(-v "$kv"); done
  awk "${args[@]}" "BEGIN{ printf \"$fmt\", ($expr) }"
}
# met COND [name=value ...]: prints yes when the awk condition holds, else no.
met() {
  local cond=$1; shift
  local args=() kv
  for kv in "$@"; do args+=(-v "$kv"); done
  awk "${args[@]}" "BEGIN{ print (($cond) ? \"yes\" : \"no\") }"
}
# jget JSON KEY: one field of a JSON object ('-' when null or absent).
jget() { /usr/bin/python3 -c 'import json,sys; v=json.loads(sys.argv[1]).get(sys.argv[2]); print("-" if v is None else (round(v,3) if isinstance(v,float) else v))' "$1" "$2"; }
