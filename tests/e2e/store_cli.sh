#!/usr/bin/env bash
# store commands: usage errors, bad URLs and missing inputs give one-line messages and
# the documented exit codes (2 usage, 1 failure); the happy path of results/query/--telemetry.
set -u
fail() { echo "FAIL: $*"; exit 1; }
run() { out=$("$GENPERF" "$@" 2>&1); rc=$?; }
db="$TMPDIR/cli.db"

run ingest; [ "$rc" -eq 2 ] || fail "ingest without args: rc $rc"; grep -q "no artifact directory given" <<<"$out" || fail "$out"
run ingest "$TMPDIR"; [ "$rc" -eq 2 ] || fail "ingest without --db: rc $rc"; grep -q "no database; pass --db URL" <<<"$out" || fail "$out"
run ingest "$TMPDIR" --db "$db" --tp zero; [ "$rc" -eq 2 ] || fail "--tp zero: rc $rc"; grep -q "\-\-tp 'zero' must be a positive integer" <<<"$out" || fail "$out"
run ingest "$TMPDIR" --db "$db" --engine-args '[1]'; [ "$rc" -eq 2 ] || fail "--engine-args: rc $rc"; grep -q "must be a JSON object" <<<"$out" || fail "$out"
run ingest "$TMPDIR/nope" --db "$db"; [ "$rc" -eq 1 ] || fail "missing dir: rc $rc"; grep -q "nope is not a directory" <<<"$out" || fail "$out"
run ingest "$TMPDIR" --db "mysql://x/y"; [ "$rc" -eq 1 ] || fail "bad scheme: rc $rc"; grep -q "unknown scheme" <<<"$out" || fail "$out"
run ingest "$TMPDIR" --db "$TMPDIR/no/such/dir/x.db"; [ "$rc" -eq 1 ] || fail "bad sqlite path: rc $rc"; grep -q "cannot open SQLite database" <<<"$out" || fail "$out"
run query --db "$db"; [ "$rc" -eq 2 ] || fail "query without SQL: rc $rc"; grep -q "no SQL given" <<<"$out" || fail "$out"
run query --db "$db" --format xml "SELECT 1"; [ "$rc" -eq 2 ] || fail "bad format: rc $rc"
run results --db "$db" --job abc; [ "$rc" -eq 1 ] || fail "bad job id: rc $rc"; grep -q "'abc' is not a job id" <<<"$out" || fail "$out"
# a mistyped --db is named, not answered with a new empty store; --create (and ingest) still create one
run results --db "$TMPDIR/typo.db"; [ "$rc" -eq 2 ] || fail "results on a missing db: rc $rc"
[ "$out" = "genperf results: no SQLite database at '$TMPDIR/typo.db' (this command reads a store and never creates one); check the path, or create the store from artifact directories with: genperf ingest DIR --db $TMPDIR/typo.db" ] || fail "missing db: $out"
[ ! -e "$TMPDIR/typo.db" ] || fail "results created $TMPDIR/typo.db"
run results --db "sqlite://$TMPDIR/typo.db" --endpoints; [ "$rc" -eq 2 ] && [ ! -e "$TMPDIR/typo.db" ] || fail "results --endpoints on a missing db: rc $rc $out"
run results --db "$TMPDIR/new.db" --create; [ "$rc" -eq 0 ] && [ "$out" = "(no rows)" ] || fail "results --create: rc $rc $out"
run results --bogus; [ "$rc" -eq 2 ] || fail "unknown flag: rc $rc"
"$GENPERF" ingest --help | grep -q "usage: genperf ingest" || fail "ingest --help"

# happy path with metadata flags, through $GENPERF_DB
export GENPERF_DB="sqlite://$db"
run ingest "$GP_ROOT/tests/fixtures/genai-perf/real-genai-perf" --framework vllm --hardware 8xH100 --tp 8 --gpus 8 \
  --replicas 2 --engine-args '{"max_num_seqs":512}' --label baseline --tool-version 0.0.16 --host node7
[ "$rc" -eq 0 ] || fail "ingest with flags: $out"
got=$("$GENPERF" query --format csv "SELECT framework, hardware, tp, gpu_count, replicas, engine_args, job_label, tool_version, host FROM v_jobs" | tail -n1)
[ "$got" = 'vllm,8xH100,8,8,2,"{""max_num_seqs"":512}",baseline,0.0.16,node7' ] || fail "metadata flags: $got"
"$GENPERF" results | grep -q "baseline  *test-model  *vllm" || fail "results listing: $("$GENPERF" results)"
# the table is for reading: rounded numbers, the endpoint type, the load in one column; CSV keeps full precision
"$GENPERF" results | grep -q "baseline  *test-model  *vllm  *concurrency 2  .*  54\.90  *15\.69  *44\.50  *11\.50$" ||
  fail "results table not rounded / no load column: $("$GENPERF" results)"
"$GENPERF" results --format csv | grep -q ",chat,2,,.*,54\.90196078431372,15\.686274509803921,44\.5,11\.5$" ||
  fail "results csv: $("$GENPERF" results --format csv)"
# genperf query's table prints what the SQL returned, unrounded
"$GENPERF" query "SELECT 316.7298404128985 AS v" | grep -q "^316\.7298404128985$" || fail "query rounded: $("$GENPERF" query "SELECT 316.7298404128985 AS v")"
# a file (or trace) input lists the ISL/OSL it measured (avg 5 and 3.5), not the synthetic default 550
fi="$TMPDIR/fileinput/test-model-openai-chat-concurrency2"; mkdir -p "$fi"
cp "$GP_ROOT"/tests/fixtures/genai-perf/real-genai-perf/test-model-openai-chat-concurrency2/* "$fi"/
sed -i 's/"prompt_source": "synthetic"/"prompt_source": "file"/' "$fi/profile_export_genai_perf.json"
"$GENPERF" ingest "$TMPDIR/fileinput" --db "$TMPDIR/file.db" >/dev/null || fail "ingest file-input run"
"$GENPERF" results --db "$TMPDIR/file.db" --format csv | grep -q ",concurrency,request_rate,trace_file,trace_speedup,isl,osl,osl_measured," || fail "csv header"
"$GENPERF" results --db "$TMPDIR/file.db" --format csv | grep -q ",chat,2,,,,5,4,3.5,completed," ||
  fail "file input ISL/OSL not measured: $("$GENPERF" results --db "$TMPDIR/file.db" --format csv)"
"$GENPERF" ingest "$GP_ROOT/tests/fixtures/genai-perf/real-genai-perf-csv" --db "$TMPDIR/rate.db" >/dev/null || fail "ingest csv run"
"$GENPERF" results --db "$TMPDIR/rate.db" | grep -q " rate 2\.5/s " || fail "request-rate load: $("$GENPERF" results --db "$TMPDIR/rate.db")"
"$GENPERF" results --telemetry --format csv | grep -q "^1,gpu1,genai_perf_stats" || fail "results --telemetry"
"$GENPERF" query --format json "SELECT 1 AS one, 'a' AS s, NULL AS n" | tr -d ' \n' | grep -qF '[{"one":1,"s":"a","n":null}]' ||
  fail "query json: $("$GENPERF" query --format json "SELECT 1 AS one, 'a' AS s, NULL AS n")"
# --check validates and writes nothing
run ingest "$GP_ROOT/tests/fixtures/genai-perf" --db "$TMPDIR/check.db" --check
[ "$rc" -eq 0 ] || fail "--check: $out"
grep -q "4 jobs: 4 valid (not written), 0 already present, 0 rejected" <<<"$out" || fail "--check: $out"
[ "$("$GENPERF" query --db "$TMPDIR/check.db" --format csv "SELECT COUNT(*) FROM jobs" | tail -n1)" = 0 ] || fail "--check wrote jobs"

# a `genai-perf analyze` tree: the sweep summary CSV at the top is skipped, the runs below are ingested
mkdir -p "$TMPDIR/analyze"
cp -r "$GP_ROOT/tests/fixtures/genai-perf/real-genai-perf-csv/"* "$TMPDIR/analyze/"
printf 'Config Name,Concurrency,p99 Time To First Token (ms)\r\nrun1,1,2.00\r\n' >"$TMPDIR/analyze/analyze_export_genai_perf.csv"
run ingest "$TMPDIR/analyze" --db "$TMPDIR/analyze.db"
[ "$rc" -eq 0 ] || fail "analyze tree: $out"
grep -q "analyze_export_genai_perf.csv: skipped" <<<"$out" && grep -q "1 job: 1 added" <<<"$out" || fail "analyze tree: $out"
echo "store_cli: all checks passed"
