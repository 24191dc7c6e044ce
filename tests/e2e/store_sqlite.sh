#!/usr/bin/env bash
# store on SQLite: ingest fixtures (ours + real GenAI-Perf JSON/CSV), views, idempotency,
# rejections, kill -9 mid-ingest, concurrent ingests. See tests/e2e/lib/store_suite.bash.
set -u
. "$GP_ROOT/tests/e2e/lib/store_suite.bash"
store_suite "sqlite://$TMPDIR/results.db"
echo "store_sqlite: all checks passed"
