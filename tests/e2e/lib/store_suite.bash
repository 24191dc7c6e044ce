# tests/e2e/lib/store_suite.bash — the results-store checks, run once per engine.
#
# Sourced by tests/e2e/store_sqlite.sh and tests/e2e/store_pg.sh (this directory is not
# a test itself: tests/run.sh only runs tests/e2e/*.sh). Call store_suite DB_URL after
# setting GENPERF, GP_ROOT and TMPDIR. Every check prints what it expected on failure.

fail() { echo "FAIL: $*" >&2; exit 1; }

# genperf built with a pause inside the ingest's write transaction (tests/store/ingest_sleep.c):
# GENPERF_TEST_INGEST_SLEEP_MS=N pauses each job N ms after its first rows are written.
SLEEPY="$GP_ROOT/${BUILD:-build}/tests-lib/genperf-ingest-sleep"

# q SQL -> the result rows as CSV, without the header line
q() { "$GENPERF" query --db "$DB" --format csv "$1" | tail -n +2; }

expect() {
  local got
  got=$(q "$1") || fail "query failed: $1"
  [ "$got" = "$2" ] || fail "query: $1
  expected: $2
  got:      $got"
}

counts() {
  q "SELECT (SELECT COUNT(*) FROM jobs) || ',' || (SELECT COUNT(*) FROM scenarios) || ',' ||
            (SELECT COUNT(*) FROM metric_values) || ',' || (SELECT COUNT(*) FROM requests) || ',' ||
            (SELECT COUNT(*) FROM telemetry_samples) || ',' || (SELECT COUNT(*) FROM telemetry_stats) AS c" | tr -d '"'
}

expect_reject() { # dir, text the error must contain
  local out rc
  out=$("$GENPERF" ingest "$1" --db "$DB" 2>&1); rc=$?
  [ "$rc" -eq 1 ] || fail "ingest of $1 should be rejected (rc 1), got rc $rc: $out"
  grep -qF -- "$2" <<<"$out" || fail "rejection of $1 should say: $2
  got: $out"
  [ "$(counts)" = "$base_counts" ] || fail "a rejected ingest of $1 changed the store: $(counts) vs $base_counts"
  echo "ok: rejected $(basename "$1"): $(grep -F -- "$2" <<<"$out" | head -n1 | cut -c1-160)"
}

store_suite() {
  DB=$1
  local fx="$GP_ROOT/tests/fixtures/genai-perf" art="$TMPDIR/art"
  rm -rf "$art"; mkdir -p "$art"; cp -r "$fx"/. "$art"/

  [ -x "$SLEEPY" ] || fail "$SLEEPY is missing; build it with make (TEST_DEPS)"
  # --- a fresh database opened by several processes at once: one migration, no error
  # (`genperf results --create` opens read-write and migrates; `genperf query` is read-only)
  local pids=() p
  for p in 1 2 3; do "$GENPERF" results --db "$DB" --create >/dev/null 2>"$TMPDIR/mig$p.err" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || fail "concurrent first open failed: $(cat "$TMPDIR"/mig*.err)"; done
  expect "SELECT COUNT(*) FROM schema_migrations" "13"

  # --- ingest the whole fixture tree: our run, a real GenAI-Perf run (JSON), a CSV-only run
  local out
  out=$("$GENPERF" ingest "$art" --db "$DB" 2>&1) || fail "ingest failed: $out"
  echo "$out"
  grep -q "4 jobs: 4 added, 0 already present, 0 rejected" <<<"$out" || fail "expected 4 added: $out"

  # --- the views return the numbers of the known artifacts
  local tm="(SELECT j.id FROM jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE s.model = 'test-model')"
  local gs="(SELECT j.id FROM jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE s.model = 'genperf-sim')"
  local cv="(SELECT j.id FROM jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE s.model LIKE 'meta-llama%')"
  expect "SELECT avg, p10, p50, p90, min, max, std FROM v_genai_perf_outputs WHERE job_id = $tm AND metric = 'request_latency'" \
         "72.5,61.599999999999994,72.5,83.39999999999999,58,87,10.404326023342406"
  expect "SELECT avg, p1, p99 FROM v_genai_perf_outputs WHERE job_id = $tm AND metric = 'time_to_first_token'" \
         "44.5,40.089999999999996,48.91"
  expect "SELECT avg, p50, std FROM v_genai_perf_outputs WHERE job_id = $tm AND metric = 'input_sequence_length'" "5,5,"
  expect "SELECT avg, p50, unit, better FROM v_genai_perf_outputs WHERE job_id = $tm AND metric = 'request_goodput'" \
         "7.8431372549019605,,requests/sec,higher"
  expect "SELECT model, concurrency, isl, osl, streaming, seed, endpoint, tool_code, tool_type, producer, status FROM v_genai_perf_outputs WHERE job_id = $tm AND metric = 'request_count'" \
         "test-model,2,550,,1,0,v1/chat/completions,genai-perf,third_party,genai-perf,completed"
  expect "SELECT goodput_slos, started_at, finished_at, duration_s FROM jobs WHERE id = $tm" \
         '"{""time_to_first_token"":45.0,""request_latency"":120.0}",2025-12-02T14:00:00.000Z,2025-12-02T14:00:00.267Z,0.2671'
  expect "SELECT COUNT(*), MIN(t_start_ns), MAX(t_end_ns) FROM requests WHERE job_id = $tm" "4,1764684000000000000,1764684000267100000"
  expect "SELECT device, source, sample_count, power_avg_w, power_max_w, gpu_util_avg_pct, gpu_util_max_pct, mem_used_peak_gib, mem_total_gib FROM v_telemetry_job_summary WHERE job_id = $tm ORDER BY device" \
         "gpu0,genai_perf_stats,,150.25,200.25,60,98,59.99999999999999,80
gpu1,genai_perf_stats,,120,160,50,90,29.802322387695312,80"
  # our run: scenario from genperf_run.json, records, telemetry samples, genperf extras
  expect "SELECT model, framework, engine_args, hardware, gpu_count, tp, replicas, concurrency, isl, osl, request_count, seed, streaming FROM v_jobs WHERE job_id = $gs" \
         'genperf-sim,genperf-serve,"{""max_num_seqs"":256,""enable_prefix_caching"":false}",2xH100-SXM,2,2,1,4,128,32,5,7,1'
  expect "SELECT job_label, producer, producer_version, tool_version, status, requests_ok, requests_failed, started_at, duration_s FROM v_jobs WHERE job_id = $gs" \
         "sweep-demo,genperf,0.1.0,0.0.16,incomplete,4,1,2025-12-02T14:00:05.000Z,0.65"
  # the hand-written set has no _genai_perf.csv, which every genperf run writes: stored, marked
  # incomplete (jobs.status keeps what the requests say)
  expect "SELECT j.status || '/' || CASE WHEN v.incomplete LIKE '%profile_export_genai_perf.csv is missing%' THEN 'named' ELSE 'not named' END FROM jobs j JOIN v_jobs v ON v.job_id = j.id WHERE j.id = $gs" \
         "completed_with_errors/named"
  expect "SELECT metric, avg FROM v_genai_perf_outputs WHERE job_id = $gs AND metric IN ('failed_request_count', 'client_busy_fraction', 'inter_chunk_latency') ORDER BY metric" \
         "client_busy_fraction,0.12
failed_request_count,1
inter_chunk_latency,1.25"
  expect "SELECT COUNT(*), SUM(warmup), SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), MAX(http_status), SUM(ttft_ns) FROM requests WHERE job_id = $gs" \
         "6,1,1,503,208000000"
  expect "SELECT error FROM requests WHERE job_id = $gs AND status = 'failed'" "HTTP 503: server overloaded"
  expect "SELECT COUNT(*) FROM telemetry_samples WHERE job_id = $gs" "22"
  # one host: no "host" key in the file, host NULL in the table and the view (migration 6)
  expect "SELECT COUNT(*) FROM telemetry_samples WHERE host IS NOT NULL" "0"
  expect "SELECT COUNT(*) FROM v_telemetry_job_summary WHERE job_id = $gs AND host IS NULL" \
    "$(q "SELECT COUNT(DISTINCT device) FROM telemetry_samples WHERE job_id = $gs")"
  expect "SELECT device, source, sample_count, duration_s, power_avg_w, power_max_w, gpu_util_avg_pct, gpu_util_max_pct, mem_used_peak_gib, mem_total_gib, mem_used_peak_pct, cpu_avg_pct, cpu_max_pct, energy_used_j FROM v_telemetry_job_summary WHERE job_id = $gs ORDER BY device" \
         "genperf,samples,2,2,,,,,,,,7.5,10,
gpu0,samples,3,2,200,300,50,90,40,80,50,,,500
host,samples,2,2,,,,,,,,30,40,"
  # CSV-only run: model and request rate from the run directory's name, 2-decimal values
  expect "SELECT model, concurrency, request_rate, avg, p50 FROM v_genai_perf_outputs WHERE job_id = $cv AND metric = 'time_to_first_token'" \
         "meta-llama_Llama-3.1-8B-Instruct,,2.5,1915.41,1900"
  expect "SELECT COUNT(*) FROM v_genai_perf_outputs WHERE job_id = $cv AND metric = 'time_to_second_token'" "0"
  expect "SELECT avg FROM v_genai_perf_outputs WHERE job_id = $cv AND metric = 'output_token_throughput'" "1234.56"
  expect "SELECT device, power_avg_w, power_max_w, gpu_util_max_pct FROM v_telemetry_job_summary WHERE job_id = $cv" "gpu0,450,600,100"
  expect "SELECT value FROM telemetry_stats WHERE job_id = $cv AND metric = 'gpu_clock_sm' AND stat = 'avg'" "1980"

  # our real profile run: every stat of its genai_perf.json comes back exactly from the view
  local pr="$art/genperf-profile/sim-model-openai-chat-concurrency2"
  local sm="(SELECT j.id FROM jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE s.model = 'sim-model')"
  "$GENPERF" query --db "$DB" --format json "SELECT metric, avg, min, max, p1, p5, p10, p25, p50, p75, p90, p95, p99, std FROM v_genai_perf_outputs WHERE job_id = $sm" >"$TMPDIR/view.json" ||
    fail "query of the profile run failed"
  python3 - "$pr/profile_export_genai_perf.json" "$TMPDIR/view.json" <<'PY' || fail "view values differ from the artifact"
import json, math, sys
art = json.load(open(sys.argv[1]))
rows = {r["metric"]: r for r in json.load(open(sys.argv[2]))}
n = 0
for k, v in art.items():
    if k in ("input_config", "telemetry_stats", "sessions"):
        continue
    for stat, x in v.items():
        if stat == "unit":
            continue
        got = rows[k][stat]
        if not (got == x or (isinstance(x, float) and math.isnan(x) and got is None)):
            sys.exit("%s.%s: artifact %r, view %r" % (k, stat, x, got))
        n += 1
print("ok: %d stats of our profile run match the view exactly" % n)
PY
  expect "SELECT COUNT(*), SUM(warmup) FROM requests WHERE job_id = $sm" "$(wc -l <"$pr/profile_export_records.jsonl" | tr -d ' '),2"
  expect "SELECT COUNT(*) FROM telemetry_samples WHERE job_id = $sm" "$(grep -c '"value"' "$pr/profile_export_telemetry.jsonl")"
  expect "SELECT producer, status, concurrency, isl, osl, streaming FROM v_jobs WHERE job_id = $sm" "genperf,completed,2,16,8,1"

  # --- idempotent: the same artifacts again change nothing and say so
  base_counts=$(counts)
  out=$("$GENPERF" ingest "$art" --db "$DB" 2>&1) || fail "re-ingest failed: $out"
  grep -q "4 jobs: 0 added, 4 already present, 0 rejected" <<<"$out" || fail "re-ingest should add nothing: $out"
  grep -q "already ingested as job [0-9]*, nothing changed" <<<"$out" || fail "re-ingest should say so: $out"
  [ "$(counts)" = "$base_counts" ] || fail "re-ingest changed the store: $(counts) vs $base_counts"
  echo "ok: idempotent ($base_counts)"

  # --- validation: every rejection names the file and the field, and writes nothing
  local real="$art/real-genai-perf/test-model-openai-chat-concurrency2" ours="$art/genperf-run/sweep-demo/c4_isl128_osl32"
  local b
  b="$TMPDIR/bad1/test-model-openai-chat-concurrency2"; mkdir -p "$b"; cp "$real"/*_genai_perf.json "$b"/
  sed -i '0,/"p99": 86.64/s//"p99": "oops"/' "$b/profile_export_genai_perf.json"
  expect_reject "$TMPDIR/bad1" "$b/profile_export_genai_perf.json: field 'request_latency.p99': expected a number, got a string"
  b="$TMPDIR/bad2/sweep"; mkdir -p "$b"; cp -r "$ours" "$b"/
  sed -i '3s/"status":"ok"/"status":"weird"/' "$b"/c4*/genperf-sim*/profile_export_records.jsonl
  expect_reject "$TMPDIR/bad2" "profile_export_records.jsonl: field 'line 3: status': expected \"ok\" or \"failed\""
  b="$TMPDIR/bad3/sweep"; mkdir -p "$b"; cp -r "$ours" "$b"/
  sed -i '5s/"value":[0-9.e+]*/"value":"high"/' "$b"/c4*/genperf-sim*/profile_export_telemetry.jsonl
  expect_reject "$TMPDIR/bad3" "profile_export_telemetry.jsonl: field 'line 5: value': expected a number, got a string"
  b="$TMPDIR/bad4/sweep"; mkdir -p "$b"; cp -r "$ours" "$b"/
  sed -i 's/"tp": 2/"tp": "two"/' "$b"/c4*/genperf_run.json
  expect_reject "$TMPDIR/bad4" "genperf_run.json: field 'tp': expected an integer, got a string"
  b="$TMPDIR/bad5/x-openai-chat-concurrency1"; mkdir -p "$b"; head -c 200 "$real/profile_export_genai_perf.json" >"$b/profile_export_genai_perf.json"
  expect_reject "$TMPDIR/bad5" "$b/profile_export_genai_perf.json: not valid JSON"
  b="$TMPDIR/bad6/x-openai-chat-concurrency1"; mkdir -p "$b"; cp "$real"/profile_export_genai_perf.json "$b"/
  sed -i 's/"concurrency": 2/"concurrency": "many"/' "$b/profile_export_genai_perf.json"
  expect_reject "$TMPDIR/bad6" "field 'input_config.perf_analyzer.stimulus.concurrency': expected an integer, got a string"
  b="$TMPDIR/bad7/x-openai-chat-concurrency1"; mkdir -p "$b"
  printf 'Metric,avg,min\r\nRequest Latency (ms),1.00,abc\r\n' >"$b/profile_export_genai_perf.csv"
  expect_reject "$TMPDIR/bad7" "profile_export_genai_perf.csv: line 2: field 'min' of 'Request Latency (ms)': expected a number or N/A, got 'abc'"
  mkdir -p "$TMPDIR/empty/sub"
  expect_reject "$TMPDIR/empty" "no *_genai_perf.json or *_genai_perf.csv found"

  # --- crash safety: kill -9 inside the transaction leaves no partial job
  local crash="$TMPDIR/crash/sweep"; mkdir -p "$crash"; cp -r "$ours" "$crash"/
  printf ' ' >>"$crash"/c4*/genperf-sim*/profile_export_genai_perf.json   # new identity, same content
  GENPERF_TEST_INGEST_SLEEP_MS=20000 "$SLEEPY" ingest "$crash" --db "$DB" >"$TMPDIR/crash.out" 2>&1 &
  local victim=$!
  sleep 1.5
  # a reader is not blocked by the open write transaction and does not see the uncommitted job
  local seen
  seen=$(timeout 5 "$GENPERF" query --db "$DB" --format csv "SELECT COUNT(*) FROM jobs" | tail -n1) ||
    fail "a reader blocked (or failed) while an ingest held its transaction open"
  [ "$seen" = "${base_counts%%,*}" ] || fail "a reader saw an uncommitted job: $seen jobs, want ${base_counts%%,*}"
  kill -9 "$victim" 2>/dev/null || fail "the ingest under test ended before it could be killed: $(cat "$TMPDIR/crash.out")"
  wait "$victim" 2>/dev/null
  [ "$(counts)" = "$base_counts" ] || fail "kill -9 mid-ingest left a partial job: $(counts) vs $base_counts"
  out=$("$GENPERF" ingest "$crash" --db "$DB" 2>&1) || fail "ingest after the crash failed: $out"
  grep -q "1 job: 1 added" <<<"$out" || fail "ingest after the crash should add the job: $out"
  echo "ok: kill -9 mid-ingest left nothing; the re-run added the job"

  # --- concurrent ingests: same and different directories at once, no duplicates, no errors
  local c1="$TMPDIR/conc1/sweep" c2="$TMPDIR/conc2/sweep"
  mkdir -p "$c1" "$c2"; cp -r "$ours" "$c1"/; cp -r "$ours" "$c2"/
  printf '  ' >>"$c1"/c4*/genperf-sim*/profile_export_genai_perf.json
  printf '   ' >>"$c2"/c4*/genperf-sim*/profile_export_genai_perf.json
  local before_jobs before_scen
  before_jobs=$(q "SELECT COUNT(*) FROM jobs"); before_scen=$(q "SELECT COUNT(*) FROM scenarios")
  pids=()
  for p in 1 2 3 4; do
    d=$c1; [ $((p % 2)) -eq 0 ] && d=$c2
    GENPERF_TEST_INGEST_SLEEP_MS=300 "$SLEEPY" ingest "$d" --db "$DB" >"$TMPDIR/conc$p.out" 2>&1 & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || fail "a concurrent ingest failed: $(cat "$TMPDIR"/conc*.out)"; done
  [ "$(q "SELECT COUNT(*) FROM jobs")" = $((before_jobs + 2)) ] || fail "4 concurrent ingests of 2 dirs should add 2 jobs: $(cat "$TMPDIR"/conc*.out)"
  [ "$(q "SELECT COUNT(*) FROM scenarios")" = "$before_scen" ] || fail "concurrent ingests of one scenario duplicated it"
  [ "$(cat "$TMPDIR"/conc*.out | grep -c 'already ingested')" = 2 ] || fail "two of the four should report 'already ingested': $(cat "$TMPDIR"/conc*.out)"
  expect "SELECT COUNT(*) FROM (SELECT artifact_sha256 FROM jobs GROUP BY artifact_sha256 HAVING COUNT(*) > 1) d" "0"
  echo "ok: 4 concurrent ingests of 2 directories added exactly 2 jobs"

  # --- Ctrl-C while ingesting several jobs: the job in progress rolls back, no further job
  # starts, one line gives N of M, exit 130; a re-run adds exactly the rest, no partial job
  local intr="$TMPDIR/intr" maxid nreq nsamp k
  maxid=$(q "SELECT MAX(id) FROM jobs"); before_jobs=$(q "SELECT COUNT(*) FROM jobs")
  k=$(q "SELECT MIN(j.id) FROM jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE s.model = 'genperf-sim'")
  nreq=$(q "SELECT COUNT(*) FROM requests WHERE job_id = $k"); nsamp=$(q "SELECT COUNT(*) FROM telemetry_samples WHERE job_id = $k")
  [ "$nreq" -gt 0 ] && [ "$nsamp" -gt 0 ] || fail "job $k of the sweep should have requests and samples: $nreq, $nsamp"
  for k in 1 2 3; do
    mkdir -p "$intr/r$k"; cp -r "$ours" "$intr/r$k"/
    printf '%*s' $((k + 3)) '' >>"$intr/r$k"/c4*/genperf-sim*/profile_export_genai_perf.json  # new identity
  done
  GENPERF_TEST_INGEST_SLEEP_MS=1500 "$SLEEPY" ingest "$intr" --db "$DB" >"$TMPDIR/intr.out" 2>&1 &
  local victim=$! t=0
  until [ "$(q "SELECT COUNT(*) FROM jobs")" -gt "$before_jobs" ]; do
    sleep 0.1; t=$((t + 1)); [ "$t" -lt 200 ] || fail "the first of 3 jobs was never committed: $(cat "$TMPDIR/intr.out")"
  done
  kill -INT "$victim" || fail "the ingest ended before it could be interrupted: $(cat "$TMPDIR/intr.out")"
  local rc=0; wait "$victim" || rc=$?
  [ "$rc" -eq 130 ] || fail "an interrupted ingest should exit 130, got $rc: $(cat "$TMPDIR/intr.out")"
  local line n
  line=$(grep "interrupted after" "$TMPDIR/intr.out") || fail "no 'interrupted after N of M jobs' line: $(cat "$TMPDIR/intr.out")"
  [ "$(wc -l <<<"$line")" -eq 1 ] || fail "expected one interrupt line: $line"
  n=$(sed -nE 's/.*interrupted after ([0-9]+) of 3 jobs.*/\1/p' <<<"$line")
  [ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" -lt 3 ] || fail "expected 'interrupted after N of 3 jobs' with 1 <= N < 3: $line"
  [ "$(q "SELECT COUNT(*) FROM jobs")" = $((before_jobs + n)) ] || fail "the store should hold $n new jobs: $(q "SELECT COUNT(*) FROM jobs") vs $before_jobs; $line"
  expect "SELECT COUNT(*) FROM jobs j WHERE j.id > $maxid AND ((SELECT COUNT(*) FROM requests r WHERE r.job_id = j.id) <> $nreq OR (SELECT COUNT(*) FROM telemetry_samples s WHERE s.job_id = j.id) <> $nsamp)" "0"
  out=$("$GENPERF" ingest "$intr" --db "$DB" 2>&1) || fail "ingest after the interrupt failed: $out"
  grep -q "3 jobs: $((3 - n)) added, $n already present, 0 rejected" <<<"$out" || fail "the re-run should add the other $((3 - n)): $out"
  expect "SELECT COUNT(*) FROM jobs j WHERE j.id > $maxid AND ((SELECT COUNT(*) FROM requests r WHERE r.job_id = j.id) <> $nreq OR (SELECT COUNT(*) FROM telemetry_samples s WHERE s.job_id = j.id) <> $nsamp)" "0"
  echo "ok: Ctrl-C after $n of 3 jobs: exit 130, '$line', the re-run added the rest"

  # --- genperf query is read-only: writes fail with a clear error and change nothing
  local s ro_counts
  ro_counts=$(counts)
  for s in "DELETE FROM jobs" "INSERT INTO scenarios (scenario_key, model) VALUES ('k', 'm')" "CREATE TABLE evil (a INTEGER)"; do
    out=$("$GENPERF" query --db "$DB" "$s" 2>&1) && fail "query '$s' should fail: the store is read-only for query"
    grep -q "^genperf query: .*read-only" <<<"$out" || fail "query '$s' should say read-only: $out"
  done
  [ "$(counts)" = "$ro_counts" ] || fail "a refused query changed the store: $(counts) vs $ro_counts"
  echo "ok: genperf query refused DELETE, INSERT and CREATE; SELECT still works"

  # --- results and query output
  out=$("$GENPERF" results --db "$DB" --format json) || fail "results --format json failed"
  grep -q '"model": "test-model"' <<<"$out" || fail "results json lacks test-model: $out"
  # the jobs table (fitted, with the trace-aware load) and --wide run on both engines
  out=$("$GENPERF" results --db "$DB") || fail "results table failed"
  grep -qE "^id +.* load +.* tokens/s +req/s " <<<"$out" || fail "results table header: $out"
  python3 -c 'import sys; sys.exit(any(len(l) > 160 for l in sys.stdin.read().splitlines()))' <<<"$out" ||
    fail "results table wider than 160 characters: $out"
  out=$("$GENPERF" results --db "$DB" --wide) || fail "results --wide failed"
  grep -qE " endpoint_type +load +concurrency +request_rate +trace_file +trace_speedup " <<<"$out" ||
    fail "results --wide header: $out"
  out=$("$GENPERF" results --db "$DB" --job "$(q "SELECT $tm")") || fail "results --job failed"
  grep -q "^request_latency  *ms  *72.5" <<<"$out" || fail "results --job table: $out"
  out=$("$GENPERF" results --db "$DB" --job 9999 2>&1) && fail "results --job 9999 should fail"
  grep -q "no job 9999 in the store" <<<"$out" || fail "missing job message: $out"
  out=$("$GENPERF" query --db "$DB" "SELEC nonsense" 2>&1) && fail "bad SQL should fail"
  grep -q "genperf query: .*syntax error" <<<"$out" || fail "bad SQL message: $out"
  echo "ok: results and query"

  # --- several --url: genperf.json's scale_out.endpoints -> job_endpoints / v_endpoint_breakdown,
  # url credentials hidden (in the row and in the kept genperf_summary); one-URL jobs have no rows
  expect "SELECT COUNT(*) FROM job_endpoints" "0"
  local ep="$TMPDIR/eps/m-openai-chat-concurrency2"; mkdir -p "$ep"
  cp "$pr"/profile_export_genai_perf.json "$pr"/profile_export_genperf.json "$pr"/profile_export_records.jsonl "$ep"/
  printf '      ' >>"$ep/profile_export_genai_perf.json"   # new identity
  python3 - "$ep/profile_export_genperf.json" <<'PY' || fail "could not write the endpoints fixture"
import json, sys
g = json.load(open(sys.argv[1]))
def ep(i, url, n, f, ttft):
    return {"endpoint": i, "url": url, "requests": n, "failed": f, "request_throughput": n / 4.0,
            "output_token_throughput": 8.0 * n, "time_to_first_token_ms": {"p50": ttft, "p99": 2 * ttft},
            "inter_token_latency_ms": {"p50": 1.5, "p99": 3.0}}
g["scale_out"] = {"workers": 1, "ranks": 1, "endpoints": [
    ep(0, "http://bench:s3cret@10.0.0.1:8000/v1/chat/completions", 7, 1, 5.5),
    ep(1, "https://sk-TOKEN42@10.0.0.2/v1/chat/completions", 3, 0, 20.25)]}
json.dump(g, open(sys.argv[1], "w"))
PY
  out=$("$GENPERF" ingest "$TMPDIR/eps" --db "$DB" 2>&1) || fail "ingest of the endpoints job failed: $out"
  local ej="(SELECT DISTINCT job_id FROM job_endpoints)"
  expect "SELECT endpoint_index, url, requests, failed, requests_ok, request_share, request_throughput, ttft_p50_ms, ttft_p99_ms, itl_p99_ms, model FROM v_endpoint_breakdown ORDER BY endpoint_index" \
         "0,http://bench:***@10.0.0.1:8000/v1/chat/completions,7,1,6,0.7,1.75,5.5,11,3,sim-model
1,https://***@10.0.0.2/v1/chat/completions,3,0,3,0.3,0.75,20.25,40.5,3,sim-model"
  expect "SELECT COUNT(*) FROM jobs WHERE id = $ej AND genperf_summary LIKE '%bench:***@10.0.0.1%' AND genperf_summary NOT LIKE '%s3cret%' AND genperf_summary NOT LIKE '%TOKEN42%'" "1"
  base_counts=$(counts)
  b="$TMPDIR/eps-bad/m-openai-chat-concurrency2"; mkdir -p "$b"; cp "$ep"/* "$b"/
  printf ' ' >>"$b/profile_export_genai_perf.json"
  sed -i 's/"requests": 3,/"requests": "three",/' "$b/profile_export_genperf.json"
  expect_reject "$TMPDIR/eps-bad" "profile_export_genperf.json: field 'scale_out.endpoints[1].requests': expected an integer, got a string"
  expect "SELECT COUNT(*) FROM job_endpoints" "2"
  echo "ok: per-endpoint breakdown stored, credentials hidden, a bad block rejected"

  # --- several -m (issue 32): genperf.json's models -> job_models / v_model_breakdown;
  # one-model jobs have no rows, a bad block is rejected naming the field
  expect "SELECT COUNT(*) FROM job_models" "0"
  local mm="$TMPDIR/mods/m-openai-chat-concurrency2"; mkdir -p "$mm"
  cp "$pr"/profile_export_genai_perf.json "$pr"/profile_export_genperf.json "$pr"/profile_export_records.jsonl "$mm"/
  printf '         ' >>"$mm/profile_export_genai_perf.json"   # new identity
  python3 - "$mm/profile_export_genperf.json" <<'PY' || fail "could not write the models fixture"
import json, sys
g = json.load(open(sys.argv[1]))
def m(name, w, n, f, ttft):
    return {"model": name, "weight": w, "requests": n, "failed": f, "share": n / 10.0,
            "request_throughput": n / 4.0, "output_token_throughput": 8.0 * n,
            "time_to_first_token_ms": {"p50": ttft, "p99": 2 * ttft}, "inter_token_latency_ms": {"p50": 1.5, "p99": 3.0},
            "request_latency_ms": None}
g["models"] = [m("base", 0.75, 7, 1, 5.5), m("lora-a", None, 3, 0, 20.25)]
json.dump(g, open(sys.argv[1], "w"))
PY
  out=$("$GENPERF" ingest "$TMPDIR/mods" --db "$DB" 2>&1) || fail "ingest of the models job failed: $out"
  expect "SELECT model_index, model, weight, requests, failed, requests_ok, request_share, request_throughput, ttft_p50_ms, ttft_p99_ms, itl_p99_ms, COALESCE(latency_p50_ms, -1) FROM v_model_breakdown ORDER BY model_index" \
         "0,base,0.75,7,1,6,0.7,1.75,5.5,11,3,-1
1,lora-a,,3,0,3,0.3,0.75,20.25,40.5,3,-1"
  base_counts=$(counts)
  b="$TMPDIR/mods-bad/m-openai-chat-concurrency2"; mkdir -p "$b"; cp "$mm"/* "$b"/
  printf ' ' >>"$b/profile_export_genai_perf.json"
  sed -i 's/"requests": 3,/"requests": "three",/' "$b/profile_export_genperf.json"
  expect_reject "$TMPDIR/mods-bad" "profile_export_genperf.json: field 'models[1].requests': expected an integer, got a string"
  expect "SELECT COUNT(*) FROM job_models" "2"
  echo "ok: per-model breakdown stored, a bad block rejected"

  # --- an interrupted run (Ctrl-C wrote what it measured): jobs.interrupted, v_jobs.status
  local ir="$TMPDIR/intr/m-openai-chat-concurrency2"; mkdir -p "$ir"
  cp "$pr"/profile_export_genai_perf.json "$pr"/profile_export_genperf.json "$pr"/profile_export_records.jsonl "$ir"/
  printf '        ' >>"$ir/profile_export_genai_perf.json"   # new identity
  python3 -c 'import json, sys; g = json.load(open(sys.argv[1])); g["interrupted"] = True; json.dump(g, open(sys.argv[1], "w"))' \
    "$ir/profile_export_genperf.json" || fail "could not write the interrupted fixture"
  out=$("$GENPERF" ingest "$TMPDIR/intr" --db "$DB" 2>&1) || fail "ingest of the interrupted job failed: $out"
  expect "SELECT j.status || '/' || v.status || '/' || v.interrupted FROM jobs j JOIN v_jobs v ON v.job_id = j.id WHERE j.interrupted = 1" \
         "completed/interrupted/1"
  expect "SELECT COUNT(*) FROM v_jobs WHERE status = 'interrupted'" "1"
  echo "ok: an interrupted run is stored as interrupted"
}
