#!/usr/bin/env bash
# store_schedule: the "schedule" block of *_genperf.json reaches the store (issue 16). A
# --request-rate 40 --max-concurrency 2 run against a ~100 ms server (so requests queue in the
# client) is ingested; schedule_lag p50/p99/max/avg, the late and cap-delayed counts and the
# from-schedule latency / TTFT p50/p99 read back equal to the artifact's values. An artifact
# without the block (genperf before issue 16) and one with "schedule": null (closed loop) still
# ingest, with no schedule rows (a top-level "ramp" block gives ramp_excluded_requests); a block
# of the wrong type is rejected naming the field.
set -u
source "$(dirname "$0")/shape_common.inc"
shape_run cap --request-rate 40 --request-rate-mode constant --max-concurrency 2 --request-count 40 \
    --isl 8 --osl 1 -- --ttft-ms 100 --itl-ms 0
DB="sqlite://$TMPDIR/sched.db"
fail() { echo "FAIL: $*"; exit 1; }
q() { "$GENPERF" query --db "$DB" --format csv "$1" | tail -n +2 | tr -d '"'; }
run=$(dirname "$(ls "$TMPDIR"/art.cap/*/*_genperf.json)")
"$GENPERF" ingest "$run" --db "$DB" >"$TMPDIR/ingest.out" 2>&1 || { cat "$TMPDIR/ingest.out"; fail "ingest"; }

# every stored value equals the artifact's (same double, printed the same way by both)
q "SELECT metric_code || ':' || stat || '=' || value FROM metric_values
   WHERE metric_code IN ('schedule_lag', 'schedule_late_requests', 'schedule_cap_delayed',
     'request_latency_from_schedule', 'time_to_first_token_from_schedule')
   ORDER BY metric_code, stat" >"$TMPDIR/got.txt"
python3 - "$run" "$TMPDIR/got.txt" <<'PY' || exit 1
import glob, json, sys
s = json.load(open(glob.glob(sys.argv[1] + "/*_genperf.json")[0]))["schedule"]
fs = s["from_schedule"]
want = {("schedule_lag", k[:-3]): s["lag"][k] for k in ("p50_ms", "p99_ms", "max_ms", "avg_ms")}
want[("schedule_late_requests", "avg")] = s["late_over_1ms"]
want[("schedule_cap_delayed", "avg")] = s["cap_delayed"]
for m, key in (("request_latency_from_schedule", "request_latency_ms"),
               ("time_to_first_token_from_schedule", "time_to_first_token_ms")):
    for p in ("p50", "p99"):
        want[(m, p)] = fs[key][p]
got = {}
for line in open(sys.argv[2]):
    k, v = line.strip().split("=")
    m, st = k.split(":")
    got[(m, st)] = float(v)
bad = 0
for k, v in sorted(want.items()):
    ok = k in got and abs(got[k] - v) <= 1e-9 * max(1.0, abs(v))
    print(("ok   " if ok else "FAIL ") + "%s.%s = %r (stored %r)" % (k[0], k[1], v, got.get(k)))
    bad += not ok
if len(got) != len(want):
    print("FAIL stored %d schedule values, expected %d" % (len(got), len(want))); bad += 1
# the run really queued: the cap delayed most requests, from-schedule p50 > from-send p50
if not (s["cap_delayed"] >= 10 and fs["request_latency_ms"]["p50"] > s["from_send"]["request_latency_ms"]["p50"]):
    print("FAIL the run did not queue in the client: %r" % s); bad += 1
sys.exit(1 if bad else 0)
PY
[ "$(q "SELECT display_name FROM metric_templates WHERE code = 'schedule_lag'")" = "Schedule Lag" ] ||
  fail "metric template schedule_lag missing"

# old artifacts: no "schedule" key at all, and "schedule": null — both ingest, no schedule rows
for kind in absent null; do
  d="$TMPDIR/old.$kind/$(basename "$run")"; mkdir -p "$(dirname "$d")"; cp -r "$run" "$d"
  python3 - "$d" "$kind" <<'PY'
import glob, json, sys
p = glob.glob(sys.argv[1] + "/*_genperf.json")[0]
m = json.load(open(p))
if sys.argv[2] == "absent":  # and a closed-loop --concurrency ramp's block
    del m["schedule"]; m["ramp"] = {"seconds": 1.0, "excluded_requests": 7}
else: m["schedule"] = None
m["host"] = "old-" + sys.argv[2]  # a different artifact hash than the first ingest
json.dump(m, open(p, "w"))
PY
  # GenAI-Perf's summary decides the job's identity: make it differ too
  sed -i "s/\"request_throughput\"/\"request_throughput\" $([ $kind = null ] && echo ' ')/" "$d"/*_genai_perf.json
  "$GENPERF" ingest "$d" --db "$DB" >"$TMPDIR/ingest.$kind.out" 2>&1 ||
    { cat "$TMPDIR/ingest.$kind.out"; fail "an artifact with the schedule block $kind must still ingest"; }
  [ "$(q "SELECT COUNT(*) FROM jobs WHERE host = 'old-$kind'")" = 1 ] || fail "schedule block $kind: no job stored"
  n=$(q "SELECT COUNT(*) FROM metric_values v JOIN jobs j ON j.id = v.job_id
         WHERE j.host = 'old-$kind' AND v.metric_code LIKE 'schedule%'")
  [ "$n" = 0 ] || fail "schedule block $kind: expected no schedule rows, got $n"
  echo "ok   schedule block $kind: ingested, no schedule rows"
  r=$(q "SELECT v.value FROM metric_values v JOIN jobs j ON j.id = v.job_id
         WHERE j.host = 'old-$kind' AND v.metric_code = 'ramp_excluded_requests' AND v.stat = 'avg'")
  want=; [ $kind = absent ] && want=7
  [ "$r" = "$want" ] || fail "ramp_excluded_requests of the $kind copy: expected '$want', got '$r'"
done
[ "$(q "SELECT COUNT(*) FROM jobs")" = 3 ] || fail "expected 3 jobs, got $(q "SELECT COUNT(*) FROM jobs")"

# a malformed block is refused with the field named
d="$TMPDIR/bad/$(basename "$run")"; mkdir -p "$(dirname "$d")"; cp -r "$run" "$d"
python3 - "$d" <<'PY'
import glob, json, sys
p = glob.glob(sys.argv[1] + "/*_genperf.json")[0]
m = json.load(open(p)); m["schedule"]["lag"]["p99_ms"] = "fast"; m["host"] = "bad"
json.dump(m, open(p, "w"))
PY
sed -i "s/\"request_throughput\"/\"request_throughput\"   /" "$d"/*_genai_perf.json
out=$("$GENPERF" ingest "$d" --db "$DB" 2>&1) && fail "a string lag must be rejected: $out"
grep -qF "schedule.lag.p99_ms" <<<"$out" || fail "the rejection should name schedule.lag.p99_ms: $out"
echo "ok   rejected: $(grep -F schedule.lag <<<"$out" | head -n1 | cut -c1-160)"
echo "store_schedule: all checks passed"
