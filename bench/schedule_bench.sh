#!/usr/bin/env bash
# bench/schedule_bench.sh — schedule lateness (actual send - due time) at
# 1k, 5k and 20k requests/s. AIPerf's published target: 5k req/s at ~50 us.
# The floor: the same constant-rate arrival list (src/sched) driven by a bare
# clock_nanosleep(TIMER_ABSTIME) loop (bench/sched_floor.c) — what this host
# allows at all — with the default 50 us timer slack and with it set to 1 ns. genperf's own figure goes beside it (marked below).
#   bash bench/schedule_bench.sh [SECONDS per rate]   (SCHED_RATES="1000 5000 20000")
set -u
source "$(dirname "$0")/lib.sh"
bench_boost_session "$@"
secs=${1:-2}
cd "$GP_ROOT"
make -s -j2 "$BUILD/bench/sched_floor" >/dev/null || { echo "cannot build $BUILD/bench/sched_floor"; exit 1; }
floor="$GP_ROOT/$BUILD/bench/sched_floor"
echo "priority: $BOOST (load average $(cut -d' ' -f1-3 /proc/loadavg))"
start_serve sched --zero-delay --tokenizer builtin --quiet --idle-timeout-s 120
rc=0
for r in ${SCHED_RATES:-1000 5000 20000}; do
  label="$(( r / 1000 ))k req/s"
  for slack in 0 1; do
    if ! out=$("${PRIO[@]}" "$floor" --rate "$r" --seconds "$secs" --slack-ns $slack); then
      echo "sched_floor failed at $r"; rc=1; continue
    fi
    printf '%s\n' "$out" | grep -v '^figures:'
    p50=$(sed -n 's/^figures: p50_us=\([0-9.]*\).*/\1/p' <<<"$out")
    p99=$(sed -n 's/.* p99_us=\([0-9.]*\).*/\1/p' <<<"$out")
    how="clock_nanosleep loop, default 50 us timer slack"
    [ $slack = 1 ] && how="clock_nanosleep loop, timer slack 1 ns"
    result schedule "floor lateness p50 @ $label ($how)" "$p50" us - -
    result schedule "floor lateness p99 @ $label ($how)" "$p99" us - -
  done

  # ---- genperf's own figure: the same constant-rate schedule sent by
  # `genperf profile --request-rate` to `genperf serve --zero-delay` on this
  # host; lateness = actual send - due time, from *_genperf.json "schedule".
  n=$(( r * secs ))
  art="$BENCH_TMP/sched.$r"
  if "${PRIO[@]}" "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --tokenizer builtin \
      --synthetic-input-tokens-mean 8 --output-tokens-mean 1 --request-rate $r --request-rate-mode constant \
      --request-count $n --artifact-dir "$art" >"$art.out" 2>&1; then
    read -r gp50 gp99 < <(python3 -c 'import json,sys,glob; s=json.load(open(glob.glob(sys.argv[1]+"/*/*_genperf.json")[0]))["schedule"]["lag"]; print("%.1f %.1f" % (s["p50_ms"]*1e3, s["p99_ms"]*1e3))' "$art")
  else
    echo "genperf profile failed at $r:"; tail -3 "$art.out"; gp50="failed"; gp99="failed"; rc=1
  fi
  result schedule "genperf lateness p50 @ $label" "$gp50" us "50 (AIPerf @5k)" -
  result schedule "genperf lateness p99 @ $label" "$gp99" us - -
  # ---- end of genperf's figure
done
exit $rc
