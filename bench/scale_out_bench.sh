#!/usr/bin/env bash
# Bench — scale-out (issue 17): does the client's efficiency hold when the
# load is spread over 2 event-loop threads (--workers 2) or 2 MPI ranks
# (mpirun -n 2)? Against nginx-light serving a canned 256-token SSE stream and
# a canned non-streamed chat completion (bench/lib.sh start_nginx_canned), so
# the server is not the bottleneck. Figures per shape (1 worker, 2 workers,
# 2 ranks), streaming and non-streaming:
#   tokens/s (streaming) or requests/s (non-streaming) over the measured window;
#   tokens (requests) per client CPU-second: user+sys of the whole client
#     (mpirun and every rank included), start-up, metrics, artifacts included;
#   that per-CPU figure / the one-worker one (goal >= 0.9: near-linear);
#   the same ratio beyond start-up: each shape also runs SCALE_SMALL_N (256)
#     requests, whose CPU is reported as the shape's fixed cost (process and
#     MPI start-up, dataset, artifacts; mpirun alone is about 0.05 CPU-s), and
#     (units(N) - units(small)) / (cpu(N) - cpu(small)) is the per-CPU figure
#     of the load itself; a short run pays the fixed cost once, a long one
#     barely sees it, so both are printed.
# On the 2-core build machine nginx shares the cores, so wall-clock scaling is
# not expected here; where more cores are lent, SCALE_SHAPES can add "w8".
# Knobs: SCALE_STREAM_N (requests, default 20000), SCALE_NS_N (60000),
# SCALE_CONC (256), SCALE_SHAPES ("w1 w2 r2"; wN = N workers, rK = K ranks,
# rKu = K ranks started with --bind-to none: Open MPI binds each of up to 2
# ranks to a core of its own by default, so a rank cannot move off a core the
# server is using),
# SCALE_ROUNDS (3: the shapes run interleaved this many times; medians),
# SCALE_SMALL_N (256; 0 skips the small runs).
set -u
source "$(dirname "$0")/lib.sh"
ulimit -n 16384 2>/dev/null || true
OSL=256
SN=${SCALE_STREAM_N:-20000} NN=${SCALE_NS_N:-60000} C=${SCALE_CONC:-256} SMALL=${SCALE_SMALL_N:-256}
SHAPES=${SCALE_SHAPES:-w1 w2 r2}
have_mpi=0
command -v mpirun >/dev/null && ldd "$GENPERF" | grep -q libmpi && have_mpi=1
start_nginx_canned $OSL || exit $?

# run_shape SHAPE MODE N: sets S_UNITS S_RATE S_CPU S_PER_CPU S_FAIL (units =
# tokens streaming, requests non-streaming)
run_shape() {
  local shape=$1 mode=$2 n=$3 out="$BENCH_TMP/$1-$2" pre=() wk=1 url=$NGX_URL stream=(--streaming)
  case $shape in
    w*) wk=${shape#w} ;;
    r*u) pre=(mpirun --allow-run-as-root --oversubscribe --bind-to none -n "${shape//[!0-9]/}") ;;
    r*) pre=(mpirun --allow-run-as-root --oversubscribe -n "${shape#r}") ;;
  esac
  [ "$mode" = ns ] && { url=$NGX_URL/ns; stream=(); }
  S_UNITS=0 S_RATE=0 S_CPU=0 S_PER_CPU=0 S_FAIL=-1
  if ! timed "${pre[@]}" "$GENPERF" profile -m sim --url "$url" --endpoint-type chat "${stream[@]}" \
      --tokenizer builtin --synthetic-input-tokens-mean 64 --output-tokens-mean $OSL --request-count "$n" \
      --num-dataset-entries 16 --concurrency "$C" --workers "$wk" --artifact-dir "$out" >"$out.log" 2>&1; then
    echo "$shape $mode failed:"; tail -5 "$out.log"; return 1
  fi
  S_CPU=$TIMED_CPU
  read -r ok fail win < <(/usr/bin/python3 - "$out" <<'PY'
import glob, json, sys
g = json.load(open(glob.glob(sys.argv[1] + "/*/*_genperf.json")[0]))
n = f = 0
for l in open(glob.glob(sys.argv[1] + "/*/*_records.jsonl")[0]):
    r = json.loads(l)
    if r.get("warmup"): continue
    n += 1; f += r.get("status") != "ok"
print(n - f, f, g["window"]["duration_s"])
PY
)
  S_FAIL=$fail
  S_UNITS=$ok; [ "$mode" = stream ] && S_UNITS=$(( ok * OSL ))
  S_RATE=$(calc %.0f 'w>0 ? u/w : 0' u="$S_UNITS" w="$win")
  S_PER_CPU=$(calc %.0f 'c>0 ? u/c : 0' u="$S_UNITS" c="$S_CPU")
  printf '%-6s %-7s %5s %7s %10s %12s %8s %12s %6s\n' "$shape" "$mode" "${ROUND:-1}" "$n" "$S_UNITS" "$S_RATE" "$S_CPU" "$S_PER_CPU" "$S_FAIL"
}

# Rounds: on a shared VM one run's CPU time swings by 1.5x with how fresh the
# memory it touches is (the host populates guest pages on first use), more
# than the effect measured. So the shapes run interleaved, SCALE_ROUNDS times
# (default 3), and the figures are medians; each ratio is of the medians.
ROUNDS=${SCALE_ROUNDS:-3}
declare -A RATE PERCPU FAILS FIXED MARG
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : 0)}'; }
printf '%-6s %-7s %5s %7s %10s %12s %8s %12s %6s\n' shape mode round reqs units units/s cpu_s units/cpu_s failed
for r in $(seq "$ROUNDS"); do
  for mode in stream ns; do
    n=$SN; [ $mode = ns ] && n=$NN
    for shape in $SHAPES; do
      if [ "${shape:0:1}" = r ] && [ $have_mpi = 0 ]; then
        [ "$r" = 1 ] && echo "$shape: skipped (mpirun or an MPI build missing)"; continue
      fi
      ROUND=$r run_shape "$shape" $mode "$n" || continue
      RATE[$shape.$mode]+=" $S_RATE"; PERCPU[$shape.$mode]+=" $S_PER_CPU"
      FAILS[$shape.$mode]=$(( ${FAILS[$shape.$mode]:-0} + S_FAIL ))
      [ "$SMALL" -gt 0 ] || continue
      big_units=$S_UNITS big_cpu=$S_CPU
      ROUND=$r run_shape "$shape" $mode "$SMALL" || continue
      FIXED[$shape.$mode]+=" $S_CPU"
      MARG[$shape.$mode]+=" $(calc %.0f 'c>0 ? u/c : 0' u="$((big_units - S_UNITS))" \
        c="$(calc %.4f 'a-b' a="$big_cpu" b="$S_CPU")")"
    done
  done
done
echo "medians of $ROUNDS rounds:"
for mode in stream ns; do
  unit=tok; [ $mode = ns ] && unit=req
  base=0
  for shape in $SHAPES; do
    [ -n "${PERCPU[$shape.$mode]:-}" ] || continue
    rate=$(median ${RATE[$shape.$mode]}) per=$(median ${PERCPU[$shape.$mode]})
    label="$shape, $( [ $mode = stream ] && echo streaming || echo non-streaming ), c=$C"
    result scale_out "$unit/s, $label" "$rate" "$unit/s" - -
    result scale_out "$unit per client CPU-second, $label" "$per" "$unit/CPU-s" - -
    marg=
    if [ -n "${MARG[$shape.$mode]:-}" ]; then
      marg=$(median ${MARG[$shape.$mode]})
      result scale_out "client CPU-s of a $SMALL-request run (fixed cost), $label" \
        "$(median ${FIXED[$shape.$mode]})" CPU-s - -
      result scale_out "$unit per client CPU-second beyond start-up, $label" "$marg" "$unit/CPU-s" - -
    fi
    if [ "$shape" = w1 ]; then base=$per mbase=${marg:-0}; continue; fi
    q=$(calc %.2f 'b>0 ? a/b : 0' a="$per" b="$base")
    result scale_out "$unit per CPU-s vs 1 worker, $label" "$q" x ">= 0.9" "$(met 'q>=0.9' q="$q")"
    if [ -n "$marg" ]; then
      q=$(calc %.2f 'b>0 ? a/b : 0' a="$marg" b="$mbase")
      result scale_out "$unit per CPU-s beyond start-up vs 1 worker, $label" "$q" x ">= 0.9" "$(met 'q>=0.9' q="$q")"
    fi
    [ "${FAILS[$shape.$mode]}" = 0 ] || result scale_out "failed requests, $label" "${FAILS[$shape.$mode]}" requests 0 no
  done
done
