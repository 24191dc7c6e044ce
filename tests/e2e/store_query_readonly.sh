#!/usr/bin/env bash
# genperf query opens the SQLite store read-only: DELETE, INSERT, CREATE (also TEMP), DROP,
# ATTACH of a new file and VACUUM INTO all fail with a clear one-line error, change nothing
# and create no file; SELECT still works; a missing database is reported, not created.
# (The same read-only check on PostgreSQL runs in tests/e2e/lib/store_suite.bash.)
set -u
fail() { echo "FAIL: $*"; exit 1; }
db="$TMPDIR/ro.db"
"$GENPERF" ingest "$GP_ROOT/tests/fixtures/genai-perf/real-genai-perf" --db "$db" >/dev/null || fail "ingest failed"
snap() { "$GENPERF" query --db "$db" --format csv "SELECT (SELECT COUNT(*) FROM jobs) || ',' || (SELECT COUNT(*) FROM metric_values) || ',' || (SELECT COUNT(*) FROM sqlite_master) AS c" | tail -n1 | tr -d '"'; }
before=$(snap)
[ -n "$before" ] && [ "${before%%,*}" = 1 ] || fail "SELECT before the writes: '$before'"

refuse() { # sql, text the error must contain
  local out rc
  out=$("$GENPERF" query --db "$db" "$1" 2>&1); rc=$?
  [ "$rc" -eq 1 ] || fail "query '$1' should fail with rc 1, got $rc: $out"
  grep -q "^genperf query: .*$2" <<<"$out" || fail "query '$1' should say '$2': $out"
  [ "$(wc -l <<<"$out")" -eq 1 ] || fail "query '$1': expected one line: $out"
  echo "ok: refused: $1"
}
refuse "DELETE FROM jobs" "read-only"
refuse "INSERT INTO scenarios (scenario_key, model) VALUES ('k', 'm')" "read-only"
refuse "UPDATE jobs SET label = 'x'" "read-only"
refuse "CREATE TABLE evil (a INTEGER)" "read-only"
refuse "CREATE TEMP TABLE evil (a INTEGER)" "read-only"
refuse "DROP VIEW v_jobs" "read-only"
refuse "ATTACH '$TMPDIR/new.db' AS x" "read-only and ATTACH"
refuse "VACUUM INTO '$TMPDIR/copy.db'" "read-only"
[ ! -e "$TMPDIR/new.db" ] || fail "ATTACH created $TMPDIR/new.db"
[ ! -e "$TMPDIR/copy.db" ] || fail "VACUUM INTO created $TMPDIR/copy.db"
[ "$(snap)" = "$before" ] || fail "the store changed: $(snap) vs $before"

got=$("$GENPERF" query --db "$db" --format csv "SELECT model FROM v_jobs" | tail -n1)
[ "$got" = "test-model" ] || fail "SELECT after the refusals: '$got'"
echo "ok: SELECT still works ($before)"

out=$("$GENPERF" query --db "$TMPDIR/missing.db" "SELECT 1" 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "query of a missing database: rc $rc: $out"
grep -q "no SQLite database at '$TMPDIR/missing.db'" <<<"$out" || fail "missing database message: $out"
[ ! -e "$TMPDIR/missing.db" ] || fail "query created $TMPDIR/missing.db"
echo "ok: a missing database is reported and not created"
echo "store_query_readonly: all checks passed"
