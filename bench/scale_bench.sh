#!/usr/bin/env bash
# Bench 4 — 10,000 concurrent streams on this 2-core machine: no failed
# requests, all 10,000 in flight at once (the server's running gauge says so),
# and client memory per in-flight stream = (RSS with 10,000 running - RSS with
# 1 running) / (10,000 - 1). The open-file limit is raised to the hard limit.
set -u
source "$(dirname "$0")/lib.sh"
bench_boost_session "$@"
S=${SCALE_STREAMS:-10000}
# client and server are separate processes, each needs S sockets plus a few
ulimit -n "$(ulimit -Hn)" 2>/dev/null
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $(( S + 512 )) ]; then
  echo "open-file limit $(ulimit -n) (hard $(ulimit -Hn)) is below $S streams + 512: raise it (ulimit -Hn as root)"; exit 77
fi
SERVE_PREFIX=("${PRIO[@]}")
echo "priority: $BOOST; open-file limit $(ulimit -n); load average $(cut -d' ' -f1-3 /proc/loadavg)"
start_serve scale --tokenizer builtin --ttft-ms 8000 --itl-ms 100 --idle-timeout-s 60 --quiet
# run_streams C: one profile with C streams of 9.9 s each (TTFT 8 s, so that
# all 10,000 connections are open before the first token -- opening them takes
# about 6 s here -- then 19 x ITL 100 ms). Every 0.2 s the client's VmRSS and the server's
# vllm:num_requests_running are sampled; the in-flight figure is the RSS at the
# sample with the most streams running (the peak, VmHWM, also covers the
# post-processing that follows). Prints: inflight_rss_kib streams_then peak_kib
# wall_s failed ok rc
run_streams() {
  local c=$1 dir=$BENCH_TMP/s$1
  local t0 pid; t0=$(date +%s%N)
  "${PRIO[@]}" "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat \
    --streaming --tokenizer builtin --synthetic-input-tokens-mean 16 --output-tokens-mean 20 \
    --genperf-output-tokens-deterministic --request-count $c --num-dataset-entries 10 --concurrency $c \
    --request-timeout 120 --artifact-dir "$dir" >"$dir.log" 2>&1 &
  pid=$!
  local infl=0 best=-1 peak=0 run rss hwm
  while kill -0 "$pid" 2>/dev/null; do
    run=$(curl -s --max-time 1 "$SERVE_URL/metrics" | awk '/^vllm:num_requests_running/ {print int($NF)}')
    rss=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status 2>/dev/null)
    hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status 2>/dev/null)
    if [ -n "$rss" ] && [ -n "$run" ] && { [ "$run" -gt $best ] || { [ "$run" = $best ] && [ "$rss" -gt $infl ]; }; }; then
      best=$run infl=$rss
    fi
    if [ -n "$hwm" ] && [ "$hwm" -gt $peak ]; then peak=$hwm; fi
    sleep 0.2
  done
  wait "$pid"; local rc=$?
  local wall; wall=$(calc %.2f '(b-a)/1e9' a="$t0" b="$(date +%s%N)")
  local failed ok
  failed=$(cat "$dir"/*/*_records.jsonl 2>/dev/null | grep -c '"status":"failed"')
  ok=$(cat "$dir"/*/*_records.jsonl 2>/dev/null | grep -c '"status":"ok"')
  echo "$infl $best $peak $wall $failed $ok $rc"
}
read -r i1 n1 p1 w1 f1 ok1 rc1 < <(run_streams 1)
read -r is ns ps ws fs oks rcs < <(run_streams "$S")
echo "1 stream:     RSS ${i1} KiB with $n1 running, peak ${p1} KiB, ${w1} s wall, ok $ok1, failed $f1 (exit $rc1)"
echo "$S streams: RSS ${is} KiB with $ns running, peak ${ps} KiB, ${ws} s wall, ok $oks, failed $fs (exit $rcs)"
[ "$rcs" = 0 ] || tail -5 "$BENCH_TMP/s$S.log"
per=$(calc %.1f 's>n1 ? (a-b)/(s-n1) : 0' a="$is" b="$i1" s="$ns" n1="$n1")
perpk=$(calc %.1f '(a-b)/s' a="$ps" b="$p1" s="$S")
result scale "most streams in flight at once (server's num_requests_running)" "$ns" streams "$S" "$(met 'a>=b' a="$ns" b="$S")"
result scale "client memory per in-flight stream (RSS delta / streams running)" "$per" KiB "<= 32" "$(met 'p<=32' p="$per")"
result scale "client peak RSS delta / streams, post-processing included ($S streams)" "$perpk" KiB - -
result scale "client peak RSS at $S streams (this machine)" "$ps" KiB - -
result scale "failed requests at $S concurrent streams" "$fs" requests "0" "$([ "$fs" = 0 ] && [ "$rcs" = 0 ] && [ "$oks" = "$S" ] && echo yes || echo no)"
