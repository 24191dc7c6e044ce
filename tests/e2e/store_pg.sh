#!/usr/bin/env bash
# store on PostgreSQL: the same checks as store_sqlite. Uses GENPERF_TEST_PG_URL (a fresh
# database is created in that cluster) or starts a throwaway cluster with scripts/pg-test.sh.
set -u
. "$GP_ROOT/tests/e2e/lib/store_suite.bash"
pg_dir=""; pg_base=""; pg_db=""
cleanup() {
  if [ -n "$pg_db" ] && [ -n "$pg_base" ]; then psql -q "$pg_base" -c "DROP DATABASE IF EXISTS $pg_db" >/dev/null 2>&1; fi
  if [ -n "$pg_dir" ]; then bash "$GP_ROOT/scripts/pg-test.sh" stop "$pg_dir"; fi
}
trap cleanup EXIT
command -v psql >/dev/null || { echo "skip: psql (postgresql-client) is not installed"; exit 77; }
if [ -n "${GENPERF_TEST_PG_URL:-}" ]; then
  pg_base=$GENPERF_TEST_PG_URL
else
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    { echo "skip: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin); install postgresql or set GENPERF_TEST_PG_URL"; exit 77; }
  # not under $TMPDIR: the postgres user must be able to reach the cluster directory
  pg_dir=$(mktemp -d /tmp/gp-pg-test.XXXXXX)
  pg_base=$(bash "$GP_ROOT/scripts/pg-test.sh" start "$pg_dir") || { echo "FAIL: could not start PostgreSQL"; exit 1; }
fi
pg_db="gp_store_$$_$RANDOM"
psql -q "$pg_base" -c "CREATE DATABASE $pg_db" || { echo "FAIL: cannot create a database in $pg_base"; exit 1; }
url=$(sed -E "s#^(postgres(ql)?://[^/?]*)/?[^?]*#\1/$pg_db#" <<<"$pg_base")
echo "database: $url"
store_suite "$url"
echo "store_pg: all checks passed"
