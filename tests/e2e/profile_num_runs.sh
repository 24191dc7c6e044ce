#!/usr/bin/env bash
# profile_num_runs: `genperf profile --num-runs N` against `genperf serve` (issue 30 item 1).
#  - 3 runs at --ttft-ms 20: exit 0, run_1..run_3 under the run directory each hold a full
#    GenAI-Perf artifact set of 40 measured requests, and <stem>_genperf_aggregate.json has,
#    for every statistic of every metric, the mean of the three runs' values (recomputed
#    here), their sample stddev, a Student-t 95% interval around the mean and the CV;
#    stdout has the key-metric table;
#  - 3 runs at --ttft-ms 40: `genperf compare` on the two directories compares 3 vs 3 runs
#    (method "runs", Welch on run-level values, not the bootstrap) and calls TTFT worse;
#  - --cv-warn 0.000001: every key statistic that varies is warned about; exit stays 0;
#  - a SIGTERM to genperf during run 1 of 3 lets that run finish, starts no other,
#    aggregates the one run made and exits 130;
#  - runs that did not measure the server are left out of the mean and named (issue 38
#    item 11): Ctrl-C during run 1 leaves it out (runs 0 of 1 made, 3 asked); Ctrl-C during
#    run 2 leaves run 2 out and the mean is run 1's; a server that dies after run 1 (the stub's
#    --die-after) makes run 2 complete nothing: exit 1, no run 3, runs_asked 3, runs_made 2,
#    runs 1, run 2 named with "no request completed", request_throughput's mean run 1's alone
#    (not half of it), and the console says so;
#  - --num-runs 0 and --cv-warn -1 are refused (exit 1, naming the flag), and --num-runs
#    under mpirun (exit 2) when mpirun is installed.
source "$GP_ROOT/tests/e2e/profile_common.inc"
T=$TMPDIR
NAME=genperf-sim-openai-chat-concurrency4

profile() { # artifact_dir runs [flags...]
  local dir=$1 runs=$2 ex=; shift 2
  [ -n "${EXEC_PROFILE:-}" ] && ex=exec # a background call's pid is then genperf's, not a subshell's
  $ex "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$URL" --endpoint-type chat --streaming \
      --isl 16 --osl 8 --concurrency 4 --request-count 40 --warmup-request-count 0 \
      --artifact-dir "$dir" --num-runs "$runs" "$@"
}

start_serve --quiet --ttft-ms 20 --itl-ms 2
[ "$SERVER" = serve ] || { echo "genperf serve did not start"; exit 77; }
profile "$T/a" 3 >"$T/a.out" 2>"$T/a.err"
check_rc $? 0
A=$T/a/$NAME
for k in 1 2 3; do
  [ -d "$A/run_$k/$NAME" ] || fail "no $A/run_$k/$NAME"
  check_artifacts "$A/run_$k/$NAME" 40
  for f in profile_export.json profile_export_genai_perf.csv profile_export_genperf.json inputs.json; do
    [ -f "$A/run_$k/$NAME/$f" ] || fail "run_$k: no $f"
  done
done
[ -d "$A/run_4" ] && fail "a 4th run"
grep -q "^  time_to_first_token avg (ms) " "$T/a.out" || { cat "$T/a.out"; fail "no aggregate table on stdout"; }
grep -q "aggregate of 3 runs written to $A/profile_export_genperf_aggregate.json" "$T/a.err" || fail "no aggregate line"
python3 - "$A" <<'PY' || fail "aggregate of 3 runs"
import json, math, sys
d = sys.argv[1]
agg = json.load(open(d + "/profile_export_genperf_aggregate.json"))
runs = [json.load(open("%s/run_%d/genperf-sim-openai-chat-concurrency4/profile_export_genai_perf.json" % (d, k)))
        for k in (1, 2, 3)]
assert agg["runs"] == 3 and agg["cv_warn"] == 0.1, agg["runs"]
T975_2 = 4.302652729911275  # scipy.stats.t.ppf(0.975, 2)
checked = 0
for name, m in runs[0].items():
    if not isinstance(m, dict) or "unit" not in m:
        continue
    a = agg["metrics"][name]
    assert a["unit"] == m["unit"], name
    for stat in m:
        if stat == "unit":
            continue
        vals = [r[name][stat] for r in runs]
        s = a[stat]
        mean = sum(vals) / 3
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
        assert s["n"] == 3 and s["values"] == vals, (name, stat, s)
        assert math.isclose(s["mean"], mean, rel_tol=1e-12, abs_tol=1e-12), (name, stat, s["mean"], mean)
        assert math.isclose(s["stddev"], sd, rel_tol=1e-9, abs_tol=1e-12), (name, stat, s["stddev"], sd)
        half = T975_2 * sd / math.sqrt(3)
        assert s["ci95_low"] <= s["mean"] <= s["ci95_high"], (name, stat, s)
        assert math.isclose(s["ci95_high"] - s["mean"], half, rel_tol=1e-6, abs_tol=1e-9), (name, stat, s, half)
        assert s["cv"] is None if mean == 0 else math.isclose(s["cv"], sd / abs(mean), rel_tol=1e-9, abs_tol=1e-12)
        checked += 1
assert checked > 80, checked
assert "time_to_first_token" in agg["metrics"] and "request_throughput" in agg["metrics"]
assert agg["run_directories"] == ["run_%d/genperf-sim-openai-chat-concurrency4" % k for k in (1, 2, 3)]
print("ok: %d statistics, each the mean of 3 runs" % checked)
PY

# every key statistic that moves at all passes a tiny threshold: warnings, exit 0
profile "$T/w" 2 --cv-warn 0.000001 >"$T/w.out" 2>"$T/w.err"
check_rc $? 0
grep -q "warning: time_to_first_token avg: CV .* over 2 runs exceeds --cv-warn 1e-06" "$T/w.err" ||
  { cat "$T/w.err"; fail "no CV warning at --cv-warn 0.000001"; }
grep -q "warning: .*exceeds --cv-warn" "$T/a.err" && ! grep -q "exceeds --cv-warn 0.1" "$T/a.err" &&
  fail "a CV warning at the default threshold does not say 0.1"
stop_serve

# a slower server: compare reads both directories as repeats
start_serve --quiet --ttft-ms 40 --itl-ms 2
profile "$T/b" 3 >"$T/b.out" 2>"$T/b.err"
check_rc $? 0
"$GENPERF" compare "$T/a" "$T/b" --format json >"$T/ab.json" 2>"$T/ab.err"
check_rc $? 0 1
[ "$(json_get "$T/ab.json" "d['method'], d['weaker_evidence'], d['base']['runs'], d['new']['runs']")" = \
  "runs False 3 3" ] || fail "compare: $(cat "$T/ab.json" "$T/ab.err" | head -c 600)"
json_get "$T/ab.json" "[m for m in d['metrics'] if m['metric']=='ttft_p50'][0]['verdict']" | grep -qx worse ||
  fail "20 vs 40 ms over 3 runs each: TTFT p50 not worse"
"$GENPERF" compare "$A" "$T/b/$NAME" >"$T/ab.txt" 2>&1
grep -q "evidence: 3 vs 3 runs, Welch's t on run-level values" "$T/ab.txt" || { cat "$T/ab.txt"; fail "compare table: not run-level evidence"; }
grep -qi bootstrap "$T/ab.txt" && fail "compare of two --num-runs directories used the bootstrap"
stop_serve

# a run has started once its inputs.json is staged (inputs.json.tmp.PID: the
# file itself is renamed into place only when the run ends, so that a killed
# run leaves an earlier set's inputs.json intact)
wait_started() { # run-directory timeout_s
  local i=0; while ! compgen -G "$1/inputs.json*" >/dev/null; do sleep 0.05; i=$((i+1)); [ $i -gt $(( $2 * 20 )) ] && return 1; done; return 0
}

# SIGTERM to genperf alone during run 1: run 1 finishes, no run 2, the one run aggregated, 130
start_serve --quiet --ttft-ms 150 --itl-ms 2
EXEC_PROFILE=1 profile "$T/i" 3 >"$T/i.out" 2>"$T/i.err" &
P=$!
wait_started "$T/i/$NAME/run_1/$NAME" 20 || fail "run 1 did not start"
kill -TERM $P
wait $P
check_rc $? 130
[ -d "$T/i/$NAME/run_2" ] && fail "a run started after SIGTERM"
[ "$(json_get "$T/i/$NAME/profile_export_genperf_aggregate.json" "d['runs'], d['metrics']['request_count']['avg']['values']")" = \
  "1 [40.0]" ] || fail "interrupted: aggregate $(head -c 300 "$T/i/$NAME/profile_export_genperf_aggregate.json")"
grep -q "interrupted after run 1 of 3" "$T/i.err" || { cat "$T/i.err"; fail "no interrupted line"; }
grep -q "nothing was measured" "$T/i.err" && { cat "$T/i.err"; fail "interrupted: says nothing was measured"; }

# Ctrl-C (SIGINT to the whole process group, as a terminal sends it) during run 1: the child
# writes what it measured and exits 130, no run 2, that partial run aggregated, 130
if command -v setsid >/dev/null; then
  setsid "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$URL" --endpoint-type chat --streaming \
      --isl 16 --osl 8 --concurrency 4 --request-count 40 --warmup-request-count 0 \
      --artifact-dir "$T/g" --num-runs 3 >"$T/g.out" 2>"$T/g.err" &
  P=$!
  wait_started "$T/g/$NAME/run_1/$NAME" 20 || fail "Ctrl-C: run 1 did not start"
  sleep 0.3
  kill -INT -- -$P
  wait $P
  check_rc $? 130
  [ -d "$T/g/$NAME/run_2" ] && fail "Ctrl-C: a run started after it"
  # the part-run is named, not averaged
  [ "$(json_get "$T/g/$NAME/profile_export_genperf_aggregate.json" \
      "d['runs_asked'], d['runs_made'], d['runs'], [(f['run'], f['reason'].split(':')[0]) for f in d['failed_runs']], d['metrics']")" = \
    "3 1 0 [(1, 'interrupted')] {}" ] ||
    fail "Ctrl-C: aggregate $(head -c 600 "$T/g/$NAME/profile_export_genperf_aggregate.json")"
  grep -q "interrupted after run 1 of 3" "$T/g.err" || { cat "$T/g.err"; fail "Ctrl-C: no interrupted line"; }
  grep -q "warning: run 1 left out of the aggregate: interrupted" "$T/g.err" || { cat "$T/g.err"; fail "Ctrl-C: run 1 not named"; }
  grep -q "no run to aggregate: every run made was left out" "$T/g.out" || { cat "$T/g.out"; fail "Ctrl-C: no 'no run' line"; }
fi
stop_serve

# Ctrl-C during run 2: run 1 stands alone in the mean, run 2 is named, no run 3, 130
if command -v setsid >/dev/null; then
  start_serve --quiet --ttft-ms 300 --itl-ms 2
  setsid "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$URL" --endpoint-type chat --streaming \
      --isl 16 --osl 8 --concurrency 4 --request-count 40 --warmup-request-count 0 \
      --artifact-dir "$T/s" --num-runs 3 >"$T/s.out" 2>"$T/s.err" &
  P=$!
  wait_file "$T/s/$NAME/run_1/$NAME/profile_export_genai_perf.json" 60 || fail "Ctrl-C in run 2: run 1 did not end"
  wait_started "$T/s/$NAME/run_2/$NAME" 20 || fail "Ctrl-C in run 2: run 2 did not start"
  kill -INT -- -$P
  wait $P
  check_rc $? 130
  [ -d "$T/s/$NAME/run_3" ] && fail "Ctrl-C in run 2: a run started after it"
  [ "$(json_get "$T/s/$NAME/profile_export_genperf_aggregate.json" \
      "d['runs_asked'], d['runs_made'], d['runs'], [(f['run'], f['reason'].split(':')[0]) for f in d['failed_runs']], d['metrics']['request_count']['avg']['values'], d['run_directories']")" = \
    "3 2 1 [(2, 'interrupted')] [40.0] ['run_1/$NAME']" ] ||
    fail "Ctrl-C in run 2: aggregate $(head -c 600 "$T/s/$NAME/profile_export_genperf_aggregate.json")"
  grep -q "warning: run 2 left out of the aggregate: interrupted" "$T/s.err" || { cat "$T/s.err"; fail "Ctrl-C in run 2: not named"; }
  grep -q "warning: 2 of the 3 runs asked were made; 1 run is in the aggregate" "$T/s.err" ||
    { cat "$T/s.err"; fail "Ctrl-C in run 2: no runs-made line"; }
  grep -q "^genperf: over 1 run: mean" "$T/s.out" || { cat "$T/s.out"; fail "Ctrl-C in run 2: table not over 1 run"; }
  stop_serve
fi

# the server dies after run 1: the stub exits once it has answered run 1's 8 requests (one at a
# time, so every one of them was answered); run 2 completes nothing and exits 1, no run 3
start_stub --die-after 8
D=m-openai-chat-concurrency1
"$GENPERF" profile -m m --tokenizer builtin -u "$URL" --endpoint-type chat --streaming --isl 16 --osl 8 \
    --concurrency 1 --request-count 8 --warmup-request-count 0 --artifact-dir "$T/dead" --num-runs 3 \
    >"$T/dead.out" 2>"$T/dead.err"
check_rc $? 1
[ -d "$T/dead/$D/run_3" ] && fail "dead server: a run after the failed one"
python3 - "$T/dead/$D" <<'PY' || { cat "$T/dead.err"; fail "dead server: aggregate"; }
import json, sys
d = sys.argv[1]
agg = json.load(open(d + "/profile_export_genperf_aggregate.json"))
r1 = json.load(open(d + "/run_1/m-openai-chat-concurrency1/profile_export_genai_perf.json"))
r2 = json.load(open(d + "/run_2/m-openai-chat-concurrency1/profile_export_genai_perf.json"))
assert r1["request_count"]["avg"] == 8 and r2["request_count"]["avg"] == 0, (r1["request_count"], r2["request_count"])
assert (agg["runs_asked"], agg["runs_made"], agg["runs"]) == (3, 2, 1), agg
f = agg["failed_runs"]
assert len(f) == 1 and f[0]["run"] == 2 and f[0]["directory"] == "run_2/m-openai-chat-concurrency1", f
assert f[0]["reason"].startswith("no request completed (8 of 8 measured failed)"), f
rt = agg["metrics"]["request_throughput"]["avg"]
assert rt["n"] == 1 and rt["values"] == [r1["request_throughput"]["avg"]] and rt["mean"] == rt["values"][0], rt
assert agg["run_directories"] == ["run_1/m-openai-chat-concurrency1"], agg["run_directories"]
PY
grep -q "warning: run 2 left out of the aggregate: no request completed (8 of 8 measured failed); it exited 1" "$T/dead.err" ||
  { cat "$T/dead.err"; fail "dead server: run 2 not named on the console"; }
grep -q "aggregate of 1 of the 2 runs made (1 left out) written to" "$T/dead.err" || { cat "$T/dead.err"; fail "dead server: last line"; }

# refusals
profile "$T/x" 0 >"$T/x.out" 2>&1
check_rc $? 1
grep -q -- "--num-runs 0: must be >= 1" "$T/x.out" || fail "--num-runs 0: $(cat "$T/x.out")"
profile "$T/x" 2 --cv-warn -1 >"$T/x.out" 2>&1
check_rc $? 1
grep -q -- "--cv-warn -1: must be a positive" "$T/x.out" || fail "--cv-warn -1: $(cat "$T/x.out")"
# under mpirun: refused before anything runs (each run would need its own mpirun)
if command -v mpirun >/dev/null; then
  # Open MPI's own allocations are not freed at exit: no leak check there, as in profile_mpi
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 60 mpirun --allow-run-as-root --oversubscribe -n 2 "$GENPERF" profile -m genperf-sim --tokenizer builtin \
      -u http://127.0.0.1:9 --endpoint-type chat --request-count 4 --artifact-dir "$T/m" --num-runs 2 >"$T/m.out" 2>&1
  check_rc $? 2
  grep -q -- "--num-runs 2 cannot run under mpirun" "$T/m.out" || fail "mpirun: $(head -c 400 "$T/m.out")"
  [ -e "$T/m" ] && fail "mpirun: artifacts written"
fi
echo "ok"
