#!/usr/bin/env bash
# store_repeat_groups: repeat groups in the results store (issue 30 item 1, store migration 11),
# on SQLite and, when PostgreSQL is at hand (GENPERF_TEST_PG_URL or the server binaries that
# scripts/pg-test.sh starts), on PostgreSQL too:
#  - `profile --num-runs 3` against `genperf serve`, ingested: 3 jobs, one group of 3 linked as
#    runs 1..3, the aggregate file recorded; every statistic the aggregate file has (TTFT avg
#    among them) has the same mean, stddev, 95% interval and CV in v_repeat_groups (1e-9
#    relative); `results --groups` prints the group with TTFT avg mean +- half-width and CV,
#    in a table and as JSON; `results --groups --job N` every statistic of N's group;
#  - ingesting run_1 alone first and then the whole directory makes the same one group; a
#    second ingest changes nothing;
#  - a `genperf run` scenario with `repeats: 2` over two concurrencies: one group of 2 per cell;
#  - the three runs ingested by three processes at once into a fresh store: still one group of 3
#    whose statistics count all 3 runs (each ingest holds the group row until its COMMIT);
#  - a run the aggregate names in failed_runs (a server that dies after run 1: the stub's
#    --die-after) is stored as a job outside the group, with a message naming why, so the group
#    (1 run) keeps the aggregate's statistics (issue 38 item 11).
source "$GP_ROOT/tests/e2e/profile_common.inc"
T=$TMPDIR
NAME=genperf-sim-openai-chat-concurrency2

start_serve --quiet --ttft-ms 5 --itl-ms 1
[ "$SERVER" = serve ] || { echo "genperf serve did not start"; exit 77; }
"$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$URL" --endpoint-type chat --streaming --isl 16 --osl 8 \
  --concurrency 2 --request-count 12 --warmup-request-count 0 --artifact-dir "$T/reps" --num-runs 3 \
  >"$T/p.out" 2>"$T/p.err"
check_rc $? 0
RUN_DIR=$T/reps/$NAME
AGG=$RUN_DIR/profile_export_genperf_aggregate.json
[ -f "$AGG" ] || fail "no aggregate file"

cat >"$T/sweep.yaml" <<Y
model: genperf-sim
tokenizer: builtin
framework: attach
url: $URL
concurrency: [1, 2]
isl: 16
osl: 4
requests: 8
repeats: 2
artifact_dir: $T/sweep
Y
"$GENPERF" run "$T/sweep.yaml" >"$T/run.out" 2>&1 || { cat "$T/run.out"; fail "genperf run exited $?"; }

q() { "$GENPERF" query --db "$DB" --format csv "$1" | tail -n +2 | tr -d '"'; }
expect() { local got; got=$(q "$1"); [ "$got" = "$2" ] || fail "$DB: $1
  expected: $2
  got:      $got"; }

concurrent() { # DB url of an empty store
  DB=$1
  local k pids=()
  for k in 1 2 3; do
    "$GENPERF" ingest "$RUN_DIR/run_$k" --db "$DB" >"$T/c$k.out" 2>&1 &
    pids+=($!)
  done
  for k in 0 1 2; do wait "${pids[$k]}" || { cat "$T"/c*.out; fail "$DB: concurrent ingest $((k + 1))"; }; done
  expect "SELECT COUNT(*) || ' ' || MIN(n_runs) FROM repeat_groups" "1 3"
  expect "SELECT MIN(n) || ' ' || MAX(n) FROM repeat_group_stats" "3 3"
  echo "ok: $DB: 3 concurrent ingests, one group of 3"
}

checks() { # DB url
  DB=$1
  "$GENPERF" ingest "$RUN_DIR/run_1/$NAME" --db "$DB" >"$T/i1.out" 2>&1 || { cat "$T/i1.out"; fail "ingest run_1"; }
  grep -q "run 1 of repeat group 1" "$T/i1.out" || { cat "$T/i1.out"; fail "run_1 alone: no group"; }
  expect "SELECT n_runs FROM repeat_groups" "1"
  "$GENPERF" ingest "$T/reps" --db "$DB" >"$T/i2.out" 2>&1 || { cat "$T/i2.out"; fail "ingest reps"; }
  grep -q "3 jobs: 2 added, 1 already present" "$T/i2.out" || { cat "$T/i2.out"; fail "ingest of the rest"; }
  expect "SELECT COUNT(*) FROM jobs" "3"
  expect "SELECT COUNT(*) || ' ' || MIN(n_runs) || ' ' || MIN(label) FROM repeat_groups" "1 3 $NAME"
  expect "SELECT repeat_index FROM repeat_group_jobs ORDER BY repeat_index" "1
2
3"
  expect "SELECT aggregate_file FROM repeat_groups" "$(realpath "$AGG")"
  "$GENPERF" ingest "$T/reps" --db "$DB" >"$T/i3.out" 2>&1 || fail "second ingest"
  grep -q "3 jobs: 0 added, 3 already present" "$T/i3.out" || { cat "$T/i3.out"; fail "second ingest changed something"; }
  expect "SELECT COUNT(*) || ' ' || SUM(n_runs) FROM repeat_groups" "1 3"

  # the group's statistics are the aggregate file's
  "$GENPERF" query --db "$DB" --format json "SELECT metric, stat, n, mean, stddev, ci95_low, ci95_high, cv
    FROM v_repeat_groups" >"$T/stats.json" || fail "query v_repeat_groups"
  python3 - "$AGG" "$T/stats.json" <<'PY' || fail "$DB: group statistics vs the aggregate file"
import json, math, sys
agg = json.load(open(sys.argv[1]))["metrics"]
rows = {(r["metric"], r["stat"]): r for r in json.load(open(sys.argv[2]))}
def same(a, b):
    return (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12))
n = 0
for metric, m in agg.items():
    for stat, s in m.items():
        if stat == "unit":
            continue
        r = rows[(metric, stat)]
        for k in ("mean", "stddev", "ci95_low", "ci95_high", "cv"):
            assert same(r[k], s[k]), (metric, stat, k, r[k], s[k])
        assert r["n"] == s["n"] == 3, (metric, stat)
        n += 1
assert ("time_to_first_token", "avg") in rows and n > 80, n
print("ok: %d statistics equal the aggregate file's" % n)
PY
  "$GENPERF" results --db "$DB" --groups >"$T/g.txt" || fail "results --groups"
  grep -q "ttft_avg_ms  ttft_avg_ci95  ttft_avg_cv" "$T/g.txt" || { cat "$T/g.txt"; fail "results --groups header"; }
  "$GENPERF" results --db "$DB" --groups --format json >"$T/g.json" || fail "results --groups --format json"
  python3 - "$AGG" "$T/g.json" <<'PY' || { cat "$T/g.json"; fail "$DB: results --groups"; }
import json, math, sys
s = json.load(open(sys.argv[1]))["metrics"]["time_to_first_token"]["avg"]
g = json.load(open(sys.argv[2]))
assert len(g) == 1 and g[0]["runs"] == 3 and g[0]["model"] == "genperf-sim", g
assert math.isclose(g[0]["ttft_avg_ms"], s["mean"], rel_tol=1e-9), (g[0], s)
assert math.isclose(g[0]["ttft_avg_ci95"], (s["ci95_high"] - s["ci95_low"]) / 2, rel_tol=1e-9), (g[0], s)
assert math.isclose(g[0]["ttft_avg_cv"], s["cv"], rel_tol=1e-9), (g[0], s)
print("ok: results --groups: TTFT avg %.4f +- %.4f ms, CV %.4f" % (g[0]["ttft_avg_ms"], g[0]["ttft_avg_ci95"], g[0]["ttft_avg_cv"]))
PY
  "$GENPERF" results --db "$DB" --groups --job 2 --format csv >"$T/gj.csv" || fail "results --groups --job 2"
  grep -q "^1,$NAME,3,time_to_first_token,ms,avg,3," "$T/gj.csv" || { cat "$T/gj.csv"; fail "--groups --job 2"; }

  # the scenario's repeats: one group of 2 per cell
  "$GENPERF" ingest "$T/sweep" --db "$DB" >"$T/i4.out" 2>&1 || { cat "$T/i4.out"; fail "ingest sweep"; }
  expect "SELECT label || ' ' || n_runs FROM repeat_groups WHERE id > 1 ORDER BY label" "sweep c1_isl16_osl4 2
sweep c2_isl16_osl4 2"
  expect "SELECT COUNT(*) FROM repeat_group_jobs" "7"
  echo "ok: $DB"
}

checks "sqlite://$T/groups.db"
concurrent "sqlite://$T/concurrent.db"

# the server dies after run 1 of 3: run 2 is in the aggregate's failed_runs, not in the group
stop_serve
start_stub --die-after 6
"$GENPERF" profile -m m --tokenizer builtin -u "$URL" --endpoint-type chat --streaming --isl 16 --osl 8 \
  --concurrency 1 --request-count 6 --warmup-request-count 0 --artifact-dir "$T/dead" --num-runs 3 \
  >"$T/dead.out" 2>"$T/dead.err"
check_rc $? 1
DEAD=$T/dead/m-openai-chat-concurrency1
[ "$(json_get "$DEAD/profile_export_genperf_aggregate.json" "d['runs'], [f['run'] for f in d['failed_runs']]")" = "1 [2]" ] ||
  { cat "$T/dead.err"; fail "dead server: aggregate"; }
DB=sqlite://$T/dead.db
"$GENPERF" ingest "$T/dead" --db "$DB" >"$T/id.out" 2>&1 || { cat "$T/id.out"; fail "ingest of the dead-server runs"; }
grep -q "not in the repeat group of .*: its aggregate left run 2 out (no request completed (6 of 6 measured failed)" "$T/id.out" ||
  { cat "$T/id.out"; fail "dead server: ingest does not say run 2 is left out"; }
expect "SELECT COUNT(*) FROM jobs" "2"
expect "SELECT n_runs FROM repeat_groups" "1"
expect "SELECT repeat_index FROM repeat_group_jobs" "1"
expect "SELECT MIN(n) || ' ' || MAX(n) FROM repeat_group_stats" "1 1"
# the runner ingested each repeat as it finished (genperf run's own store): the same groups
DB=$T/sweep/genperf.db
expect "SELECT label || ' ' || n_runs FROM repeat_groups ORDER BY label" "sweep c1_isl16_osl4 2
sweep c2_isl16_osl4 2"

pg_dir=""; pg_base=""; pg_db=""
pg_cleanup() {
  if [ -n "$pg_db" ] && [ -n "$pg_base" ]; then
    psql -q "$pg_base" -c "DROP DATABASE IF EXISTS $pg_db" >/dev/null 2>&1
    psql -q "$pg_base" -c "DROP DATABASE IF EXISTS ${pg_db}_c" >/dev/null 2>&1
  fi
  if [ -n "$pg_dir" ]; then bash "$GP_ROOT/scripts/pg-test.sh" stop "$pg_dir"; fi
  cleanup
}
trap pg_cleanup EXIT
if [ -n "${GENPERF_TEST_PG_URL:-}" ]; then
  pg_base=$GENPERF_TEST_PG_URL
elif command -v psql >/dev/null && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  pg_dir=$(mktemp -d /tmp/gp-pg-test.XXXXXX) # the postgres user must reach it: not under $TMPDIR
  pg_base=$(bash "$GP_ROOT/scripts/pg-test.sh" start "$pg_dir") || fail "could not start PostgreSQL"
else
  echo "ok (PostgreSQL not available: SQLite only)"; exit 0
fi
pg_db="gp_groups_$$_$RANDOM"
psql -q "$pg_base" -c "CREATE DATABASE $pg_db" -c "CREATE DATABASE ${pg_db}_c" || fail "cannot create databases in $pg_base"
checks "$(sed -E "s#^(postgres(ql)?://[^/?]*)/?[^?]*#\1/$pg_db#" <<<"$pg_base")"
concurrent "$(sed -E "s#^(postgres(ql)?://[^/?]*)/?[^?]*#\1/${pg_db}_c#" <<<"$pg_base")"
echo ok
