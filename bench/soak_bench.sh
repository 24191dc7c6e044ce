#!/usr/bin/env bash
# bench/soak_bench.sh — memory soak (not CI): genperf profile at high
# concurrency against genperf serve for SOAK_S seconds (default 600), its RSS
# read from /proc/PID/status every second; prints the least-squares slope of
# RSS over time (KiB/min) after the first 10 % (warm-up: pools and the record
# store growing to their working size). Flat = |slope| small next to the RSS.
# A record store holds every request of the run, so RSS grows with the request
# count by design; the soak therefore uses --duration with a fixed request size
# and reports the slope per request as well.
#   SOAK_S=60 SOAK_C=256 bash bench/soak_bench.sh
set -u
. "$(dirname "$0")/lib.sh"
S=${SOAK_S:-600}
C=${SOAK_C:-256}
start_serve soak --ttft-ms 20 --itl-ms 5 --quiet
cd "$BENCH_TMP"
"$GENPERF" profile -m sim --url "$SERVE_URL" --tokenizer builtin --endpoint-type chat --streaming \
  --isl 64 --osl 32 --num-dataset-entries 64 --concurrency "$C" --duration "$S" --request-timeout 60 \
  --artifact-dir soak >profile.out 2>profile.err &
pid=$!
: >rss.txt
t0=$(date +%s%N)
while kill -0 $pid 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' /proc/$pid/status 2>/dev/null) || break
  [ -n "$rss" ] && echo "$(( ($(date +%s%N) - t0) / 1000000 )) $rss" >>rss.txt
  sleep 1
done
wait $pid; rc=$?
[ $rc = 0 ] || { tail -5 profile.err; echo "profile exited $rc"; }
g=$(ls soak/*/*_genperf.json 2>/dev/null | head -n1)
reqs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"]["measured"])' "$g" 2>/dev/null || echo 0)
python3 - "$reqs" "$S" "$C" rss.txt <<'PY'
import sys
reqs, S, C = int(sys.argv[1]), sys.argv[2], sys.argv[3]
pts = [(float(a) / 1000, float(b)) for a, b in (l.split() for l in open(sys.argv[4]) if l.strip())]
pts = pts[len(pts) // 10:]
if len(pts) < 3:
    print("too few RSS samples"); sys.exit(1)
n = len(pts); mx = sum(p[0] for p in pts) / n; my = sum(p[1] for p in pts) / n
sxx = sum((p[0] - mx) ** 2 for p in pts); sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
slope = sxy / sxx * 60 if sxx else 0.0            # KiB per minute
dur = pts[-1][0] - pts[0][0]
per_req = slope / 60 * dur / (reqs * 0.9) * 1024 if reqs else 0.0   # bytes per request (approx.)
print("soak: %s s at concurrency %s, %d requests, %d RSS samples: %.0f..%.0f KiB, slope %.1f KiB/min (%.0f B/request)"
      % (S, C, reqs, n, min(p[1] for p in pts), max(p[1] for p in pts), slope, per_req))
print("RESULT|soak|RSS slope after warm-up, %s s at concurrency %s|%.1f|KiB/min|flat apart from the record store|-" % (S, C, slope))
print("RESULT|soak|RSS growth per measured request|%.0f|bytes|~ the response's SSE bytes (kept by design)|-" % per_req)
PY
