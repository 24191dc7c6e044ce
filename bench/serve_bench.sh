#!/usr/bin/env bash
# Bench — `genperf serve --zero-delay` capacity: streamed tokens per second of SERVER CPU
# (utime+stime of the serve process from /proc, so the client's share of the 2 shared
# cores does not count), client = genperf profile, OSL 512, concurrency 1 / 64 / 512.
# Goal (issue 5): well over 1,000,000 tokens/s on one core with many streams.
set -u
source "$(dirname "$0")/lib.sh"
ulimit -n 65536 2>/dev/null || true
OSL=512
start_serve zd --zero-delay --tokenizer builtin --quiet
pid=${bench_pids[-1]}
tck=$(getconf CLK_TCK)
cpu() { awk -v t="$tck" '{printf "%.3f", ($14+$15)/t}' "/proc/$pid/stat"; }
echo "server: $SERVE_URL (zero-delay), OSL $OSL"
printf '%-6s %9s %12s %10s %12s %16s %14s\n' conc requests tokens wall_s server_cpu tokens/server_cpu_s tokens/wall_s
best=0
for c in 1 64 512; do
  n=$(( c * 4 )); [ $n -lt 64 ] && n=64
  out="$BENCH_TMP/c$c"
  c0=$(cpu)
  timed "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --streaming --tokenizer builtin \
      --synthetic-input-tokens-mean 32 --output-tokens-mean $OSL --genperf-output-tokens-deterministic \
      --request-count $n --num-dataset-entries 16 --concurrency $c --warmup-request-count 0 \
      --artifact-dir "$out" >"$out.log" 2>&1 || { echo "profile failed at $c: $(tail -3 "$out.log")"; continue; }
  c1=$(cpu)
  # the client's count (builtin tokenizer = the server's tokens): a streamed
  # chat request asks for no usage block, so server_completion_tokens is null
  tok=$(cat "$out"/*/*_records.jsonl | python3 -c 'import sys,json; print(sum((json.loads(l).get("osl") or 0) for l in sys.stdin))')
  [ "$tok" -gt 0 ] || { echo "no output tokens counted at concurrency $c (records: osl missing)"; exit 1; }
  scpu=$(awk -v a="$c0" -v b="$c1" 'BEGIN{printf "%.3f", b-a}')
  tps_cpu=$(awk -v t="$tok" -v c="$scpu" 'BEGIN{printf "%.0f", (c > 0 ? t / c : 0)}')
  tps=$(awk -v t="$tok" -v w="$TIMED_WALL" 'BEGIN{printf "%.0f", (w > 0 ? t / w : 0)}')
  # /proc CPU times tick at 10 ms: below 5 ticks the ratio means nothing
  if awk -v c="$scpu" 'BEGIN{exit !(c < 0.05)}'; then tps_cpu="(<5 ticks)"; fi
  printf '%-6s %9s %12s %10s %12s %16s %14s\n' $c $n $tok $TIMED_WALL $scpu "$tps_cpu" $tps
  case $tps_cpu in (*[!0-9]*) continue;; esac
  [ "$tps_cpu" -gt "$best" ] && best=$tps_cpu
  result serve "tokens per server CPU-second, zero-delay, concurrency $c" "$tps_cpu" "tokens/s" "-" "-"
done
met=no; [ "$best" -gt 1000000 ] && met=yes
result serve "best tokens per server CPU-second (one thread)" "$best" "tokens/s" "> 1000000" "$met"
# memory with many idle-ish streams: 5000 concurrent slow streams
start_serve mem --ttft-ms 500 --itl-ms 50 --quiet
mpid=${bench_pids[-1]}
"$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --streaming --tokenizer builtin \
    --synthetic-input-tokens-mean 32 --output-tokens-mean 40 --genperf-output-tokens-deterministic \
    --request-count 5000 --num-dataset-entries 16 --concurrency 5000 --warmup-request-count 0 \
    --artifact-dir "$BENCH_TMP/mem" >"$BENCH_TMP/mem.log" 2>&1 &
ppid=$!
peak=0
while kill -0 $ppid 2>/dev/null; do
  r=$(awk '/VmRSS/ {print $2}' "/proc/$mpid/status"); [ "${r:-0}" -gt $peak ] && peak=$r; sleep 0.1
done
wait $ppid; prc=$?
okn=$(cat "$BENCH_TMP"/mem/*/*_records.jsonl 2>/dev/null | grep -c '"status":"ok"')
echo "5000 concurrent streams: $okn ok (profile rc $prc), server peak RSS $((peak / 1024)) MiB"
result serve "server peak RSS, 5000 concurrent streams" "$((peak / 1024))" "MiB" "small" "-"
