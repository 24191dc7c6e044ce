#!/usr/bin/env bash
# bench/long_run_memory.sh — a long run against `genperf serve --zero-delay`
# (issue 26 item 11): does genperf profile end cleanly, with everything it
# measured written, instead of meeting the kernel's OOM killer?
# Runs one time-bounded streaming profile for DURATION seconds, samples the
# client's RSS once a second into rss.csv (t_s,rss_kib,hwm_kib), and prints the peak
# RSS, the memory budget, how and when the run ended (exit status; 4 = the
# budget stopped it), the requests in the records next to the server's own
# count (its /metrics request_success_total: nothing may be lost), and how
# the RSS moved from the end of sending to the end of the run (metrics and
# artifacts, profile_export.json the largest).
# Not run by `make bench` (it takes DURATION, 10 minutes by default).
#   DURATION=60 MAX_MEMORY=300M bash bench/long_run_memory.sh
#   DURATION=600 bash bench/long_run_memory.sh           # genperf's default budget
# Knobs: DURATION (600 s), MAX_MEMORY (unset: genperf's default, 3/4 of the
# available memory), CONCURRENCY (16), WORKERS (1), OSL (unset: the server's
# 256 tokens), KEEP_DIR (copy rss.csv, stderr and *_genperf.json there).
set -u
. "$(dirname "$0")/lib.sh"
D=${DURATION:-600}
C=${CONCURRENCY:-16}
W=${WORKERS:-1}
start_serve lrm --zero-delay --quiet
cd "$BENCH_TMP"
args=(profile -m sim --url "$SERVE_URL" --tokenizer builtin --endpoint-type chat --streaming --isl 16
      --concurrency "$C" --workers "$W" --duration "$D" --artifact-dir lrm)
[ -n "${OSL:-}" ] && args+=(--osl "$OSL")
[ -n "${MAX_MEMORY:-}" ] && args+=(--max-memory "$MAX_MEMORY")
echo "genperf ${args[*]}"
"$GENPERF" "${args[@]}" >profile.out 2>profile.err &
pid=$!
# VmHWM too: the kernel's own peak, so one between two samples is not missed
# (all but the last second's)
echo "t_s,rss_kib,hwm_kib" >rss.csv
t0=$(date +%s%N)
while kill -0 $pid 2>/dev/null; do
  m=$(awk '/^VmRSS:/ {r = $2} /^VmHWM:/ {h = $2} END {if (r != "") print r "," h}' /proc/$pid/status 2>/dev/null)
  now=$(date +%s%N)
  [ -n "$m" ] && printf '%d.%03d,%s\n' $(( (now - t0) / 1000000000 )) $(( (now - t0) / 1000000 % 1000 )) "$m" >>rss.csv
  sleep 1
done
wait $pid; rc=$?
t_end=$(( ($(date +%s%N) - t0) / 1000000 ))
served=$(curl -s "$SERVE_URL/metrics" | awk '/request_success_total\{/ {s += $2} END {print s + 0}')
grep -v "^genperf: Profiling" profile.err | tail -5
python3 - "$rc" "$served" "$t_end" "${MAX_MEMORY:-}" "$D" <<'PY'
import csv, glob, json, os, re, sys
rc, served, t_end, cap, dur = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
rows, hwm = [], 0
for r in csv.DictReader(open("rss.csv")):
    rows.append((float(r["t_s"]), int(r["rss_kib"])))
    hwm = max(hwm, int(r["hwm_kib"] or 0))
peak = max([hwm] + [r for _, r in rows])
err = open("profile.err").read()
m = re.search(r"measured phase ([0-9.]+) s", err)
phase = float(m.group(1)) if m else float("nan")
drop = re.search(r"(\d+) requests still in flight", err)
dropped = int(drop.group(1)) if drop else 0
g = glob.glob("lrm/*/*_genperf.json")
gp = json.load(open(g[0])) if g else {}
rq = gp.get("requests", {})
recs = 0
for f in glob.glob("lrm/*/*_records.jsonl"):
    recs = sum(1 for l in open(f) if not json.loads(l)["warmup"])
pe = glob.glob("lrm/*/profile_export.json")
pe_bytes = sum(os.path.getsize(f) for f in pe)
budget = gp.get("max_memory_bytes")
if budget is None:
    if cap:
        budget_s = "--max-memory %s (not reached)" % cap
    else:
        avail = 0
        for l in open("/proc/meminfo"):
            if l.startswith("MemAvailable:"):
                avail = int(l.split()[1]) * 1024
        budget_s = "default, about %.0f MiB now (3/4 of MemAvailable; not reached)" % (avail * 0.75 / 2**20)
else:
    budget_s = "%.0f MiB (reached: %s)" % (budget / 2**20, gp.get("incomplete_reason"))
# RSS when sending stopped (the sample nearest the end of the measured phase) and after
at_stop = min(rows, key=lambda p: abs(p[0] - phase))[1] if rows and phase == phase else 0
print("duration asked %s s; measured phase %.1f s; whole run %.1f s; exit status %d" % (dur, phase, t_end / 1000, rc))
print("peak RSS %.0f MiB (VmHWM, read once a second with VmRSS: %d samples in rss.csv); budget %s" %
      (peak / 1024, len(rows), budget_s))
print("RSS when sending stopped %.0f MiB; peak after it (metrics, artifacts) %.0f MiB; profile_export.json %.2f GB" %
      (at_stop / 1024, max((r for t, r in rows if t >= phase), default=0) / 1024, pe_bytes / 1e9))
print("requests: records %d, dropped in flight at the end %d, server answered %d, lost %d; genperf.json %s" %
      (recs, dropped, served, served - recs - dropped, {k: rq.get(k) for k in ("sent", "ok", "failed", "lost_out_of_memory")}))
ok = rc in (0, 4) and served == recs + dropped and (not gp.get("incomplete") or rq.get("lost_out_of_memory") == 0)
print("nothing lost" if ok else "MISMATCH: something was lost or the run failed")
print("RESULT|long_run_memory|peak RSS, %s s zero-delay run|%.0f|MiB|-|-" % (dur, peak / 1024))
print("RESULT|long_run_memory|requests recorded / server answered|%d/%d|req|equal|%s" % (recs + dropped, served, "yes" if ok else "no"))
sys.exit(0 if ok else 1)
PY
st=$?
# (the run's large artifacts stay behind: records and profile_export.json are GBs)
if [ -n "${KEEP_DIR:-}" ]; then mkdir -p "$KEEP_DIR" && cp rss.csv profile.err lrm/*/*_genperf.json "$KEEP_DIR"/; fi
exit $st
