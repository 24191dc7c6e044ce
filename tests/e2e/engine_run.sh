#!/usr/bin/env bash
# genperf run with an attach scenario against the reference engine (llama.cpp via
# node-llama-cpp; docs/engine.md): two cells (concurrency 1 and 2) profiled,
# ingested into the scenario's store, and shown by genperf ui: /api/jobs (the
# Benchmarks page's list) holds both jobs with the cells' own numbers and
# /api/compare?scenario= groups them; when chromium and playwright-core are
# already installed (tests/browser), the page itself is checked in a browser.
# Skips (77) when the engine cannot be fetched or loaded.
. "$GP_ROOT/tests/e2e/engine_common.inc"
engine_setup
start_engine --sequences 4
cd "$TMPDIR"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing (scripts/deps.sh build)"; exit 77; }

cat > engine-run.yaml <<Y
model: engine
tokenizer: $TOK
framework: attach
url: $URL
concurrency: [1, 2]
isl: 64
osl: 32
requests: 16
artifact_dir: $TMPDIR/arts
Y
"$GENPERF" run engine-run.yaml >run.out 2>run.err
rc=$?
tail -n 15 run.out
[ $rc -eq 0 ] || { tail -n 20 run.err; fail "genperf run exit $rc"; }
kill -0 "${PIDS[0]}" 2>/dev/null || fail "attach mode stopped the engine"
db=$TMPDIR/arts/genperf.db
[ -f "$db" ] || fail "no store at $db"
[ "$(sqlite3 "$db" 'SELECT COUNT(*) FROM jobs')" = 2 ] || fail "want 2 jobs in the store"
n=$(engine_metric vllm:request_success_total)
[ "$n" -ge 32 ] || fail "the engine answered $n requests, want >= 32"

"$GENPERF" ui --db "sqlite://$db" --port 0 --port-file ui.url 2>ui.err &
PIDS+=($!)
wait_file ui.url 10 || { cat ui.err; fail "genperf ui did not start"; }
UI_URL=$(head -n1 ui.url)
curl -sf "${UI_URL%/}/api/jobs" >jobs.json || fail "GET /api/jobs"
curl -sf "${UI_URL%/}/api/compare?scenario=engine-run" >compare.json || fail "GET /api/compare?scenario=engine-run"
python3 - jobs.json compare.json "$TMPDIR/arts/engine-run" <<'PY' || fail "the Benchmarks page's data"
import glob, json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
assert len(jobs) == 2 and all(j["model"] == "engine" for j in jobs), jobs
assert {j["scenario"] for j in jobs} == {"engine-run"}, [j["scenario"] for j in jobs]
for j in jobs:
    c = j["concurrency"]
    g = json.load(open(glob.glob(sys.argv[3] + "/c%d_isl64_osl32/*/*_genai_perf.json" % c)[0]))
    for m in ("output_token_throughput", "time_to_first_token"):
        want, got = g[m]["avg"], j["metrics"][m + ".avg"]
        assert abs(got - want) <= 1e-6 * max(1, abs(want)), (c, m, got, want)
    print("job %d: concurrency %d, %.1f output tokens/s, TTFT avg %.2f ms (as in the cell's export)"
          % (j["id"], c, j["metrics"]["output_token_throughput.avg"], j["metrics"]["time_to_first_token.avg"]))
pts = json.load(open(sys.argv[2]))["points"]
assert [p["concurrency"] for p in pts] == [1, 2], pts
PY

# The page itself, when the browser tests' tools are already here (never fetched by this test).
NODE_DIR="$GP_ROOT/.cache/node-browser"
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ] && [ -f "$NODE_DIR/node_modules/playwright-core/package.json" ]; then
  . "$GP_ROOT/tests/browser/lib.sh"
  mkdir -p "$SHOTS"
  job=$(sqlite3 "$db" "SELECT job_id FROM v_jobs WHERE concurrency = 2")
  hw=false; [ "$(sqlite3 "$db" "SELECT COUNT(*) FROM telemetry_samples WHERE job_id = $job")" -gt 0 ] && hw=true
  q() { sqlite3 "$db" "SELECT $1 FROM v_genai_perf_outputs WHERE job_id = $job AND metric = '$2'"; }
  cat > spec.json <<JSON
{"base": "$UI_URL/", "offline": false, "jobs": 2, "model": "engine", "job": $job,
 "metrics": {"request_latency.avg": $(q avg request_latency), "time_to_first_token.p50": $(q p50 time_to_first_token),
             "output_token_throughput.avg": $(q avg output_token_throughput)},
 "charts_min": 3, "hardware": $hw, "compare": "1,2", "sort": "request_latency.p50",
 "shots": "$SHOTS", "tag": "engine-run"}
JSON
  gp_check spec.json || fail "the Benchmarks page in a browser"
else
  echo "note: no chromium/playwright-core here (tests/browser installs them); checked the page's API only"
fi
echo ok
