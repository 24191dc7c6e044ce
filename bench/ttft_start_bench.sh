#!/usr/bin/env bash
# Bench — TTFT start: how much a client adds to the time to first token.
# Against `genperf serve --ttft-ms 30 --itl-ms 5 --timing-log`, per request:
#   excess = client TTFT (first content event - request start stamp)
#          - server TTFT (first content chunk handed to send() - request parsed)
# split into the send side (request start stamp -> server parsed it) and the
# receive side (server send -> client read). Closed loop at c = 1, 8, 256
# (TTFT_CONC), OSL 16, for genperf profile and, in the same run against a
# fresh server each, for bench/timing_floor.c (one epoll thread, the request
# written with one write() right after its stamp: what this host allows).
# Figure: genperf's excess / the floor's, median and p90 (goal <= 1.2x at
# c = 8 and 256). GENPERF_BASE=/path/to/older/genperf adds that binary's rows
# (before/after in one run). Both clients connect lazily: the first request of
# each connection includes connect(). TTFT_N overrides the request count (a smoke run).
# TTFT_ROUNDS (3): floor and genperf (and the base) run alternately this many
# times at each concurrency; each figure is the median over the rounds (a p90
# of 240 requests from one run moves by a third between runs on this host).
set -u
source "$(dirname "$0")/lib.sh"
bench_boost_session "$@"
ulimit -n 16384 2>/dev/null || true
make -s -j2 -C "$GP_ROOT" "$BUILD/bench/timing_floor" >/dev/null || { echo "cannot build $BUILD/bench/timing_floor"; exit 1; }
FLOOR_BIN="$GP_ROOT/$BUILD/bench/timing_floor"
SERVE_PREFIX=("${PRIO[@]}")
OSL=16
echo "priority: $BOOST (load average $(cut -d' ' -f1-3 /proc/loadavg))"
fmt() { /usr/bin/python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(' / '.join('-' if d[k] is None else '%.0f' % d[k] for k in sys.argv[2:]))" "$@"; }

# run_genperf NAME BINARY C N -> prints the comparison JSON
run_genperf() {
  local name=$1 bin=$2 c=$3 n=$4 log="$BENCH_TMP/$1.jsonl" dir="$BENCH_TMP/$1"
  start_serve "s$name" --tokenizer builtin --ttft-ms 30 --itl-ms 5 --timing-log "$log" --quiet
  local spid=${bench_pids[-1]}
  "${PRIO[@]}" "$bin" profile -m sim --url "$SERVE_URL" --endpoint-type chat --streaming --tokenizer builtin \
    --synthetic-input-tokens-mean 32 --output-tokens-mean $OSL --genperf-output-tokens-deterministic \
    --request-count "$n" --num-dataset-entries 100 --concurrency "$c" --artifact-dir "$dir" \
    >"$dir.log" 2>&1 || { echo "profile ($name) failed" >&2; tail -3 "$dir.log" >&2; }
  kill -TERM "$spid"; wait "$spid" 2>/dev/null
  local ex; ex=$(ls "$dir"/*/profile_export.json 2>/dev/null | head -n1)
  [ -n "$ex" ] && [ -s "$log" ] && /usr/bin/python3 "$GP_ROOT/bench/timing_compare.py" "$ex" "$log"
}
run_floor() {
  local name=$1 c=$2 n=$3 log="$BENCH_TMP/$1.jsonl"
  start_serve "s$name" --tokenizer builtin --ttft-ms 30 --itl-ms 5 --timing-log "$log" --quiet
  local spid=${bench_pids[-1]}
  "${PRIO[@]}" "$FLOOR_BIN" --url "$SERVE_URL" --streams "$c" --requests "$n" --osl $OSL --isl-words 32 \
    --out "$BENCH_TMP/$name.out" >/dev/null || echo "timing_floor failed at $c" >&2
  kill -TERM "$spid"; wait "$spid" 2>/dev/null
  [ -s "$log" ] && /usr/bin/python3 "$GP_ROOT/bench/timing_compare.py" --floor "$BENCH_TMP/$name.out" "$log"
}

# med_json JSON... -> one JSON object: each numeric key's median over the inputs
med_json() {
  /usr/bin/python3 -c '
import json, statistics, sys
ds = [json.loads(a) for a in sys.argv[1:] if a.strip()]
out = {}
for k in ds[0] if ds else []:
    v = [d[k] for d in ds if isinstance(d.get(k), (int, float))]
    out[k] = statistics.median(v) if v else None
print(json.dumps(out))' "$@"
}

ROUNDS=${TTFT_ROUNDS:-3}
for c in ${TTFT_CONC:-1 8 256}; do
  case $c in 1) n=60 ;; 8) n=240 ;; *) n=$(( c * 4 )) ;; esac
  n=${TTFT_N:-$n}
  frs=() grs=() brs=()
  for r in $(seq "$ROUNDS"); do
    x=$(run_floor f$c-$r "$c" "$n"); [ -n "$x" ] && frs+=("$x")
    y=$(run_genperf g$c-$r "$GENPERF" "$c" "$n"); [ -n "$y" ] && grs+=("$y")
    if [ -n "${GENPERF_BASE:-}" ]; then
      z=$(run_genperf b$c-$r "$GENPERF_BASE" "$c" "$n"); [ -n "$z" ] && brs+=("$z")
    fi
    [ -n "$x" ] && [ -n "$y" ] && echo "c=$c round $r: excess median/p90 floor $(fmt "$x" excess_median_us excess_p90_us)," \
      "genperf $(fmt "$y" excess_median_us excess_p90_us) us"
  done
  [ ${#frs[@]} -gt 0 ] && [ ${#grs[@]} -gt 0 ] || { echo "c=$c: no result"; continue; }
  fr=$(med_json "${frs[@]}") gr=$(med_json "${grs[@]}")
  echo "c=$c floor:   excess median/p90/max $(fmt "$fr" excess_median_us excess_p90_us excess_max_us) us;" \
       "send side $(fmt "$fr" send_median_us send_p90_us send_max_us); receive side $(fmt "$fr" recv_median_us recv_p90_us recv_max_us)"
  echo "c=$c genperf: excess median/p90/max $(fmt "$gr" excess_median_us excess_p90_us excess_max_us) us;" \
       "send side $(fmt "$gr" send_median_us send_p90_us send_max_us); receive side $(fmt "$gr" recv_median_us recv_p90_us recv_max_us)"
  result ttft_start "floor (C epoll client) TTFT excess median / p90 / max, c=$c" \
    "$(fmt "$fr" excess_median_us excess_p90_us excess_max_us)" us - -
  result ttft_start "genperf TTFT excess median / p90 / max, c=$c" \
    "$(fmt "$gr" excess_median_us excess_p90_us excess_max_us)" us - -
  if [ ${#brs[@]} -gt 0 ]; then
    br=$(med_json "${brs[@]}")
    if [ -n "$br" ]; then
      echo "c=$c base:    excess median/p90/max $(fmt "$br" excess_median_us excess_p90_us excess_max_us) us;" \
           "send side $(fmt "$br" send_median_us send_p90_us send_max_us); receive side $(fmt "$br" recv_median_us recv_p90_us recv_max_us)"
      result ttft_start "genperf before (GENPERF_BASE) TTFT excess median / p90 / max, c=$c" \
        "$(fmt "$br" excess_median_us excess_p90_us excess_max_us)" us - -
    fi
  fi
  for q in median p90; do
    r=$(calc %.2f 'f>0 ? g/f : 0' g="$(jget "$gr" excess_${q}_us)" f="$(jget "$fr" excess_${q}_us)")
    goal=- ok=-
    if [ "$c" != 1 ]; then goal="<= 1.2"; ok=$(met 'r<=1.2' r="$r"); fi
    result ttft_start "genperf / floor TTFT excess, $q, c=$c" "$r" x "$goal" "$ok"
  done
done
