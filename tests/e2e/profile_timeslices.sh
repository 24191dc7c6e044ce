# --timeslice-duration against `genperf serve` under an overload step (40
# requests/s into --max-batch 4 at 8 ms a step: ~25 requests/s served, the queue builds) with the fake NVML and the
# server's /metrics scraped: <stem>_genperf.json's "timeslices" are contiguous
# slices of S seconds whose requests, completions and failures add up to the
# run's totals (and records.jsonl's "timeslice" says which slice counted each
# request); TTFT p50 rises from the first slice to the last, and so does
# the server's waiting count over the same wall-clock spans (the two agree on
# one time axis); `genperf ingest` stores them as job_timeslices, row for
# slice. A run without the flag writes no "timeslices"; S <= 0 is refused.
. "$GP_ROOT/tests/e2e/profile_common.inc"
lib="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
start_serve --quiet --seed 4 --max-batch 4 --decode-step-ms 8 --fault-rate-500 0.05
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
args=(-m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 20
      --output-tokens-mean 20 --request-rate 40 --request-count 80)
GENPERF_NVML_LIB="$lib" GENPERF_FAKE_NVML_DEVICES=1 "$GENPERF" profile "${args[@]}" --telemetry-interval 0.1 \
  --server-metrics-url "$URL/metrics" --timeslice-duration 0.5 --artifact-dir ts >out.txt 2>err.txt
rc=$?; cat err.txt | tail -5
check_rc $rc 0
d=ts/m-openai-chat-request_rate40.0
check_artifacts $d 80
python3 - "$d/profile_export_genperf.json" "$d/profile_export_telemetry.jsonl" "$d/profile_export_genai_perf.json" \
  "$d/profile_export_records.jsonl" <<'PY' || fail "timeslices"
import collections, json, math, sys
g = json.load(open(sys.argv[1]))
recs = [json.loads(l) for l in open(sys.argv[4])]
tel = [json.loads(l) for l in open(sys.argv[2])]
gp = json.load(open(sys.argv[3]))
S = g["timeslice_duration_s"]
assert S == 0.5 and g["timeslice_assignment"] == "request start", S
sl = g["timeslices"]
rq = g["requests"]
assert rq["failed"] > 0, rq  # the 500s: failures are sliced too
# contiguous slices of S from 0; only the last may be shorter
for k, s in enumerate(sl):
    assert s["index"] == k and abs(s["start_s"] - k * S) < 1e-9, s
    assert abs(s["end_s"] - (k + 1) * S) < 1e-9 or (k == len(sl) - 1 and s["end_s"] <= (k + 1) * S), s
    assert s["requests"] == s["completed"] + s["failures"], s
# they add up to the run's totals
assert sum(s["requests"] for s in sl) == rq["measured"] == 80, sl
assert sum(s["completed"] for s in sl) == rq["ok"], (sl, rq)
assert sum(s["failures"] for s in sl) == rq["failed"], (sl, rq)
osl = sum(s["output_token_throughput"] * (s["end_s"] - s["start_s"]) for s in sl)
tot = gp["output_sequence_length"]["avg"] * gp["request_count"]["avg"]
assert abs(osl - tot) < 1e-6 * tot, (osl, tot)
# each record names its slice: the slice of its start, and the slices' counts are theirs
t0 = min(r["t_start_ns"] for r in recs)
by = collections.Counter()
for r in recs:
    k = r["timeslice"]
    assert abs((r["t_start_ns"] - t0) / 1e9 - k * S) < 1e-3 or k * S <= (r["t_start_ns"] - t0) / 1e9 < (k + 1) * S, r
    by[(k, r["status"])] += 1
for s in sl:
    assert by[(s["index"], "ok")] == s["completed"] and by[(s["index"], "failed")] == s["failures"], (s, by)
# 80 requests at 40/s start over ~2 s: 4 slices of 0.5 s
assert len(sl) == 4, len(sl)
# the overload: TTFT p50 climbs (first to last by 2x; not asked to be monotone
# slice by slice, which a loaded CI host could break without a bug)
t = [s["ttft_p50_ms"] for s in sl]
assert t[-1] > 2 * t[0] and t[-1] > t[1], t
for s in sl:
    assert s["ttft_p50_ms"] <= s["ttft_p99_ms"] and s["latency_p50_ms"] >= s["ttft_p50_ms"], s
    assert s["itl_p50_ms"] > 0, s
# the server's queue over the same slices (wall clock from the slices' origin)
o = g["timeslice_origin_wall_ns"]
def waiting(s):
    v = [l["value"] for l in tel if l.get("device") == "server" and l.get("metric") == "num_requests_waiting"
         and o + s["start_s"] * 1e9 <= l["wall_ns"] < o + s["end_s"] * 1e9]
    assert v, ("no server samples in", s)
    return sum(v) / len(v)
w = [waiting(s) for s in sl]
assert w[-1] > w[0] and w[-1] >= 2, (w, t)
gpu = [l for l in tel if l.get("device") == "gpu0" and l.get("metric") == "power_w"]
assert gpu and all(o - 1e9 <= l["wall_ns"] for l in gpu), "fake NVML samples"
print("slices", len(sl), "ttft p50", [round(x) for x in t], "waiting", [round(x, 1) for x in w])
PY
# the store: one job_timeslices row per slice, the same figures
"$GENPERF" ingest ts --db r.db >ingest.log 2>&1 || fail "ingest: $(cat ingest.log)"
"$GENPERF" query --db r.db --format json "SELECT * FROM job_timeslices ORDER BY slice_index" >q.json \
  || fail "query job_timeslices"
python3 - "$d/profile_export_genperf.json" q.json <<'PY' || fail "job_timeslices"
import json, sys
g = json.load(open(sys.argv[1]))
rows = json.load(open(sys.argv[2]))
sl = g["timeslices"]
assert len(rows) == len(sl), (len(rows), len(sl))
for r, s in zip(rows, sl):
    assert int(r["slice_index"]) == s["index"] and float(r["duration_s"]) == 0.5, r
    assert int(r["origin_wall_ns"]) == g["timeslice_origin_wall_ns"], r
    for k in ("requests", "completed", "failures"):
        assert int(r[k]) == s[k], (k, r, s)
    for k in ("start_s", "end_s", "request_throughput", "output_token_throughput", "ttft_p50_ms", "ttft_p99_ms",
              "itl_p50_ms", "itl_p99_ms", "latency_p50_ms", "latency_p99_ms"):
        # the same double up to its last digit or two: the store prints 17 significant digits
        assert abs(float(r[k]) - s[k]) <= 1e-12 * max(1.0, abs(s[k])), (k, r, s)
print("store ok")
PY
# without the flag: no key (golden artifacts keep their bytes)
"$GENPERF" profile "${args[@]}" --request-rate 4 --request-count 4 --artifact-dir plain >/dev/null 2>&1
check_rc $? 0
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert not [k for k in d if 'timeslice' in k], list(d)" \
  plain/m-openai-chat-request_rate4.0/profile_export_genperf.json || fail "timeslices without the flag"
grep -q '"timeslice"' plain/m-openai-chat-request_rate4.0/profile_export_records.jsonl && fail "records carry timeslice without the flag"
for bad in 0 -1; do
  "$GENPERF" profile "${args[@]}" --timeslice-duration "$bad" --artifact-dir bad >out.txt 2>err.txt
  check_rc $? 1
  grep -q -- "--timeslice-duration $bad: must be a positive number of seconds" err.txt \
    || fail "no message for --timeslice-duration $bad: $(cat err.txt)"
done
"$GENPERF" profile "${args[@]}" --timeslice-duration x --artifact-dir bad >out.txt 2>err.txt
check_rc $? 2  # argparse's invalid float value
echo ok
