#!/usr/bin/env bash
# Bench 4 — 10,000 concurrent streams on this 2-core machine: no failed
# requests, and client memory per in-flight stream = (peak RSS at 10,000 streams
# - peak RSS at 1 stream) / 10,000. Streams are kept open by a slow server
# (ITL 100 ms, OSL 50) so all of them are in flight at once.
set -u
source "$(dirname "$0")/lib.sh"
ulimit -n 65536 2>/dev/null || { echo "cannot raise the open-file limit to 65536 (run as root)"; exit 0; }
S=${SCALE_STREAMS:-10000}
start_serve scale --tokenizer builtin --ttft-ms 200 --itl-ms 100
peak_rss() { # runs a profile, prints its peak RSS in KiB (VmHWM) and failures
  local c=$1 dir=$BENCH_TMP/s$1
  /usr/bin/time -f "%M" -o "$BENCH_TMP/rss$c" "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat \
    --streaming --tokenizer builtin --synthetic-input-tokens-mean 16 --output-tokens-mean 50 \
    --output-tokens-mean-deterministic --request-count $c --num-dataset-entries 10 --concurrency $c \
    --artifact-dir "$dir" >"$dir.log" 2>&1
  local rc=$?
  local failed
  failed=$(cat "$dir"/*/*_records.jsonl 2>/dev/null | grep -c '"status":"failed"')
  echo "$(cat "$BENCH_TMP/rss$c") $failed $rc"
}
read -r r1 f1 rc1 < <(peak_rss 1)
read -r rs fs rcs < <(peak_rss "$S")
echo "peak RSS: 1 stream ${r1} KiB, $S streams ${rs} KiB; failed requests at $S: $fs (exit $rcs)"
per=$(awk -v a="$rs" -v b="$r1" -v s="$S" 'BEGIN{printf "%.1f", (a-b)/s}')
result scale "client memory per in-flight stream ($S streams)" "$per" KiB "<= 32" "$(awk -v p="$per" 'BEGIN{print p<=32 ? "yes" : "no"}')"
result scale "failed requests at $S concurrent streams" "$fs" requests "0" "$([ "$fs" = 0 ] && [ "$rcs" = 0 ] && echo yes || echo no)"
