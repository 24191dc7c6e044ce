#!/usr/bin/env bash
# Bench 4 — 10,000 concurrent streams on this 2-core machine: no failed
# requests, and client memory per in-flight stream = (peak RSS at 10,000 streams
# - peak RSS at 1 stream) / 10,000. Streams are kept open by a slow server
# (ITL 100 ms, OSL 50) so all of them are in flight at once.
set -u
source "$(dirname "$0")/lib.sh"
S=${SCALE_STREAMS:-10000}
# client and server are separate processes, each needs S sockets plus a few
ulimit -n "$(ulimit -Hn)" 2>/dev/null
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $(( S + 512 )) ]; then
  echo "open-file limit $(ulimit -n) (hard $(ulimit -Hn)) is below $S streams + 512: raise it (ulimit -Hn as root)"; exit 77
fi
SERVE_PREFIX=("${PRIO[@]}")
echo "priority: ${PRIO[*]:-none}; open-file limit $(ulimit -n); load average $(cut -d' ' -f1-3 /proc/loadavg)"
start_serve scale --tokenizer builtin --ttft-ms 200 --itl-ms 100 --idle-timeout-s 60 --quiet
# run_streams C: one profile with C streams of 5.1 s each (TTFT 200 ms, 49 x
# ITL 100 ms). VmRSS is sampled every 0.2 s; the in-flight figure is the
# largest sample between 2.5 s and 4.5 s after launch, when every stream is
# open and none has finished (the peak, VmHWM, also covers post-processing).
# Prints: inflight_rss_kib peak_kib wall_s failed ok rc
run_streams() {
  local c=$1 dir=$BENCH_TMP/s$1
  local t0 pid; t0=$(date +%s%N)
  "${PRIO[@]}" "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat \
    --streaming --tokenizer builtin --synthetic-input-tokens-mean 16 --output-tokens-mean 50 \
    --output-tokens-mean-deterministic --request-count $c --num-dataset-entries 10 --concurrency $c \
    --request-timeout 120 --artifact-dir "$dir" >"$dir.log" 2>&1 &
  pid=$!
  local infl=0 peak=0 now rss hwm
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status 2>/dev/null)
    hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status 2>/dev/null)
    now=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [ -n "$rss" ] && [ $now -ge 2500 ] && [ $now -le 4500 ] && [ "$rss" -gt $infl ]; then infl=$rss; fi
    if [ -n "$hwm" ] && [ "$hwm" -gt $peak ]; then peak=$hwm; fi
    sleep 0.2
  done
  wait "$pid"; local rc=$?
  local wall; wall=$(calc %.2f '(b-a)/1e9' a="$t0" b="$(date +%s%N)")
  local failed ok
  failed=$(cat "$dir"/*/*_records.jsonl 2>/dev/null | grep -c '"status":"failed"')
  ok=$(cat "$dir"/*/*_records.jsonl 2>/dev/null | grep -c '"status":"ok"')
  echo "$infl $peak $wall $failed $ok $rc"
}
read -r i1 p1 w1 f1 ok1 rc1 < <(run_streams 1)
read -r is ps ws fs oks rcs < <(run_streams "$S")
echo "1 stream:     in-flight RSS ${i1} KiB, peak ${p1} KiB, ${w1} s wall, ok $ok1, failed $f1 (exit $rc1)"
echo "$S streams: in-flight RSS ${is} KiB, peak ${ps} KiB, ${ws} s wall, ok $oks, failed $fs (exit $rcs)"
[ "$rcs" = 0 ] || tail -5 "$BENCH_TMP/s$S.log"
per=$(calc %.1f '(a-b)/s' a="$is" b="$i1" s="$S")
perpk=$(calc %.1f '(a-b)/s' a="$ps" b="$p1" s="$S")
result scale "client memory per in-flight stream ($S streams, in-flight RSS delta / streams)" "$per" KiB "<= 32" "$(met 'p<=32' p="$per")"
result scale "client peak RSS delta / streams, post-processing included ($S streams)" "$perpk" KiB - -
result scale "client peak RSS at $S streams (this machine)" "$ps" KiB - -
result scale "failed requests at $S concurrent streams" "$fs" requests "0" "$([ "$fs" = 0 ] && [ "$rcs" = 0 ] && [ "$oks" = "$S" ] && echo yes || echo no)"
