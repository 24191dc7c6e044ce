#!/usr/bin/env bash
# bench/soak_bench.sh — memory soak (not CI): genperf profile at high
# concurrency against genperf serve for SOAK_S seconds (default 600), its RSS
# read from /proc/PID/status every second; prints the least-squares slope of
# RSS over time (KiB/min) after the first 10 % (warm-up: pools and the record
# store growing to their working size) and before SOAK_S (then the metrics and
# artifacts are computed). Flat = |slope| small next to the RSS.
# A record store holds every request of the run, so RSS grows with the request
# count by design; the soak therefore uses --duration with a fixed request size
# and reports the slope per request next to what the store keeps per request
# (response body + chunk index + record): a leak shows as the excess.
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
# what the record store keeps per request by design: the response body as
# received (one probe request, same payload shape) plus a 24-byte chunk index
# entry per read and the record itself (~80 bytes)
body=$(python3 - "$SERVE_URL" <<'PY'
import json, sys, urllib.request
p = {"model": "sim", "messages": [{"role": "user", "content": "x " * 64}], "max_tokens": 32, "stream": True,
     "stream_options": {"include_usage": True}}
r = urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/v1/chat/completions", data=json.dumps(p).encode(),
                                                  headers={"Content-Type": "application/json"}))
print(len(r.read()))
PY
)
chunks=$(python3 -c '
import json, sys
n = k = 0
for l in open(sys.argv[1]):
    r = json.loads(l); n += 1; k += r["n_chunks"]
print(k / n if n else 0)' "$(ls soak/*/*_records.jsonl | head -n1)" 2>/dev/null || echo 0)
python3 - "$reqs" "$S" "$C" rss.txt "$body" "$chunks" <<'PY'
import sys
reqs, S, C = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
body, chunks = float(sys.argv[5] or 0), float(sys.argv[6] or 0)
pts = [(float(a) / 1000, float(b)) for a, b in (l.split() for l in open(sys.argv[4]) if l.strip())]
# the measured phase only: after the first 10 % (warm-up), before S (then metrics and export run)
pts = [p for p in pts if S * 0.1 <= p[0] <= S]
if len(pts) < 3:
    print("too few RSS samples"); sys.exit(1)
n = len(pts); mx = sum(p[0] for p in pts) / n; my = sum(p[1] for p in pts) / n
sxx = sum((p[0] - mx) ** 2 for p in pts); sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
slope = sxy / sxx * 60 if sxx else 0.0            # KiB per minute
rate = reqs / S                                    # requests per second
per_req = slope / 60 * 1024 / rate if rate else 0.0  # bytes of RSS per request
kept = body + 24 * chunks + 80                     # bytes the store keeps per request by design
print("soak: %g s at concurrency %s, %d requests (%.0f/s), %d RSS samples: %.0f..%.0f KiB, slope %.1f KiB/min"
      % (S, C, reqs, rate, n, min(p[1] for p in pts), max(p[1] for p in pts), slope))
print("soak: RSS growth %.0f B/request; the store keeps %.0f B/request by design (body %.0f B + %.1f reads x 24 B "
      "+ record 80 B); excess %.0f B/request (%.1f%%)" % (per_req, kept, body, chunks, per_req - kept,
                                                          100 * (per_req - kept) / kept if kept else 0))
print("RESULT|soak|RSS slope in the measured phase, %g s at concurrency %s|%.1f|KiB/min|flat apart from the record store|-" % (S, C, slope))
print("RESULT|soak|RSS growth per measured request|%.0f|bytes|~ what the store keeps by design (%.0f)|-" % (per_req, kept))
print("RESULT|soak|RSS growth per request beyond the store's by-design bytes (a leak would show here)|%.0f|bytes|~0 (< 5%% of %.0f)|%s"
      % (per_req - kept, kept, "yes" if abs(per_req - kept) < 0.05 * kept else "no"))
PY
