#!/usr/bin/env bash
# The Benchmarks page's JSON endpoints give the same answers on SQLite and on PostgreSQL
# (tests/fixtures/report/store.sql loaded into both), and report files build from both.
# PostgreSQL: $GENPERF_TEST_PG_URL if set (a database is created in that cluster), else a
# throwaway cluster from scripts/pg-test.sh, else the test is skipped.
set -euo pipefail
fx="$GP_ROOT/tests/fixtures/report"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing"; exit 77; }
command -v psql >/dev/null || { echo "skip: psql missing (postgresql client)"; exit 77; }
command -v curl >/dev/null || { echo "skip: curl missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
pids=() pgdir= dropdb=
bad=0
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && { kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || bad=1; }; done
  grep -lE 'AddressSanitizer|LeakSanitizer|runtime error' "$TMPDIR"/*.err 2>/dev/null && bad=1
  [ -n "$dropdb" ] && psql "$GENPERF_TEST_PG_URL" -q -c "DROP DATABASE IF EXISTS $dropdb" >/dev/null 2>&1
  [ -n "$pgdir" ] && bash "$GP_ROOT/scripts/pg-test.sh" stop "$pgdir"
  if [ "$bad" -ne 0 ]; then echo "genperf ui did not exit cleanly on SIGTERM:"; tail -n 20 "$TMPDIR"/*.err; exit 1; fi
  true
}
trap cleanup EXIT
if [ -n "${GENPERF_TEST_PG_URL:-}" ]; then
  dropdb="gp_report_$$"
  psql "$GENPERF_TEST_PG_URL" -q -c "CREATE DATABASE $dropdb" >/dev/null
  pg=$(sed -E "s#^(postgres(ql)?://[^/]*/)[^?]*#\1$dropdb#" <<<"$GENPERF_TEST_PG_URL")
else
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "skip: no PostgreSQL server binaries and no GENPERF_TEST_PG_URL"; exit 77; }
  # Not under $TMPDIR: the server runs as postgres and must traverse the path.
  pgdir=$(mktemp -d /tmp/gp-report-pg.XXXXXX); chmod 755 "$pgdir"
  pg=$(bash "$GP_ROOT/scripts/pg-test.sh" start "$pgdir")
fi
lite="$TMPDIR/t.db"
# An empty migrated store (report never creates a SQLite file); PostgreSQL: opening migrates
# (no job yet, so the report itself fails).
"$GENPERF" results --db "$lite" --create >/dev/null
"$GENPERF" report --db "$pg" --job 1 -o "$TMPDIR/x.html" >/dev/null 2>&1 || true
sqlite3 "$lite" < "$fx/store.sql"
psql "$pg" -q -v ON_ERROR_STOP=1 -f "$fx/store.sql" >/dev/null

start_ui() { # db name
  rm -f "$TMPDIR/$2.url"
  "$GENPERF" ui --db "$1" --port 0 --port-file "$TMPDIR/$2.url" 2>"$TMPDIR/$2.err" &
  pids+=($!)
  for _ in $(seq 1 100); do [ -s "$TMPDIR/$2.url" ] && break; sleep 0.05; done
  [ -s "$TMPDIR/$2.url" ] || { echo "genperf ui --db $2 did not start"; cat "$TMPDIR/$2.err"; exit 1; }
}
start_ui "$lite" lite
start_ui "$pg" pg
for path in "/api/jobs" "/api/jobs?sort=request_latency.p99&order=desc" "/api/job?id=1" "/api/job?id=2" \
            "/api/job/requests?id=1" "/api/job/telemetry?id=1" "/api/compare?ids=1,2" \
            "/api/compare?scenario=sweep-a" "/api/job?id=9"; do
  curl -s "$(cat "$TMPDIR/lite.url")$path" >"$TMPDIR/a.json"
  curl -s "$(cat "$TMPDIR/pg.url")$path" >"$TMPDIR/b.json"
  python3 - "$TMPDIR/a.json" "$TMPDIR/b.json" "$path" <<'PY'
import json, math, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def same(x, y, where):
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        if not math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12): sys.exit(f"{sys.argv[3]}: {where}: {x} != {y}")
    elif isinstance(x, dict) and isinstance(y, dict):
        if set(x) != set(y): sys.exit(f"{sys.argv[3]}: {where}: keys differ {sorted(set(x) ^ set(y))}")
        for k in x: same(x[k], y[k], where + "." + k)
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y): sys.exit(f"{sys.argv[3]}: {where}: lengths {len(x)} != {len(y)}")
        for i, (p, q) in enumerate(zip(x, y)): same(p, q, f"{where}[{i}]")
    elif isinstance(x, str) and isinstance(y, str) and sys.argv[3].startswith("/api/job?id=9"):
        pass  # the error texts may name the engine
    elif x != y:
        sys.exit(f"{sys.argv[3]}: {where}: {x!r} != {y!r}")
same(a, b, "$")
PY
done
"$GENPERF" report --db "$pg" --job 1 -o "$TMPDIR/pg.html" >/dev/null
grep -q 'id="gp-bundle"' "$TMPDIR/pg.html"
echo "sqlite and postgresql answers agree"
