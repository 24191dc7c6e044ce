#!/usr/bin/env bash
# dist/ across real processes: 3 MPI ranks on this host (broadcast, barrier,
# clock offsets within their uncertainty, the chunked and the bulk gather), a local failure
# on one rank named on every rank, a dying rank ending the job non-zero, and a
# build without MPI refusing to be one of 3 ranks.
set -u
check="$GP_ROOT/$BUILD/tools/dist_mpi_check"
nompi="$GP_ROOT/$BUILD/tools/dist_mpi_check_nompi"
[ -x "$check" ] || { echo "missing $check (make $BUILD/tools/dist_mpi_check)"; exit 1; }
# Open MPI's own allocations are not ours to chase under LeakSanitizer.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fail() { echo "FAIL: $*"; exit 1; }

# 1. Without MPI, a launcher's environment saying "3 ranks" is an error (this
# needs no mpirun: the variables are what mpirun would set).
if [ "$("$check" --have-mpi)" = no ]; then nompi=$check; fi
if [ -x "$nompi" ]; then
  OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=1 "$nompi" >"$TMPDIR/nompi.out" 2>&1 && \
    fail "a build without MPI ran as one of 3 ranks: $(cat "$TMPDIR/nompi.out")"
  grep -q 'built without MPI, but OMPI_COMM_WORLD_SIZE says it is one of 3 ranks' "$TMPDIR/nompi.out" || \
    fail "unexpected message: $(cat "$TMPDIR/nompi.out")"
  # ... and without those variables it is a normal single process
  "$nompi" >"$TMPDIR/nompi1.out" 2>&1 || fail "single process without MPI: $(cat "$TMPDIR/nompi1.out")"
  grep -q '^mpi_check: ok (1 ranks' "$TMPDIR/nompi1.out" || fail "$(cat "$TMPDIR/nompi1.out")"
fi

command -v mpirun >/dev/null || { echo "mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
[ "$("$check" --have-mpi)" = yes ] || { echo "genperf built without MPI (mpicc not found at build time)"; exit 77; }
mpirun=(timeout 120 mpirun --allow-run-as-root --oversubscribe -n 3)
host=$(hostname)

# 2. The checks themselves (the program asserts; we check it said so).
"${mpirun[@]}" "$check" >"$TMPDIR/ok.out" 2>&1 || { cat "$TMPDIR/ok.out"; fail "mpi_check failed"; }
cat "$TMPDIR/ok.out"
grep -q '^mpi_check: ok (3 ranks, 273355 record bytes in [0-9]* chunks of <= 1024 bytes' "$TMPDIR/ok.out" || \
  fail "no ok line for 3 ranks"
[ "$(grep -c '^mpi_check: clock rank [12] on ' "$TMPDIR/ok.out")" = 2 ] || fail "clock lines missing"

# 3. A local failure on rank 2 reaches every rank as one line naming it.
"${mpirun[@]}" "$check" --fail-rank 2 >"$TMPDIR/fail.out" 2>&1 && fail "--fail-rank 2 exited 0"
want="rank 2 on host $host: injected failure: cannot reach the server"
[ "$(grep -c "check returned -6: $want\$" "$TMPDIR/fail.out")" = 3 ] || \
  { cat "$TMPDIR/fail.out"; fail "not every rank reported '$want'"; }

# 4. A rank whose records cannot be produced fails the gather everywhere.
"${mpirun[@]}" "$check" --fail-gather 1 >"$TMPDIR/gfail.out" 2>&1 && fail "--fail-gather 1 exited 0"
[ "$(grep -c "gather returned -6: rank 1 on host $host: injected failure" "$TMPDIR/gfail.out")" = 3 ] || \
  { cat "$TMPDIR/gfail.out"; fail "gather failure not named on every rank"; }
grep -q '^mpi_check: ok' "$TMPDIR/gfail.out" && fail "a failed gather printed ok"

# 4b. The bulk gather: a rank that cannot name its parts, and rank 0 refusing
# a rank's parts (no room), fail it everywhere with the culprit named.
"${mpirun[@]}" "$check" --fail-bulk 2 >"$TMPDIR/bfail.out" 2>&1 && fail "--fail-bulk 2 exited 0"
[ "$(grep -c "bulk gather returned -6: rank 2 on host $host: injected failure: cannot pack" "$TMPDIR/bfail.out")" = 3 ] || \
  { cat "$TMPDIR/bfail.out"; fail "bulk gather failure of rank 2 not named on every rank"; }
"${mpirun[@]}" "$check" --fail-bulk 0 >"$TMPDIR/bref.out" 2>&1 && fail "--fail-bulk 0 exited 0"
[ "$(grep -c "bulk gather returned -3: rank 0 on host $host: injected failure: no room for rank 1" "$TMPDIR/bref.out")" = 3 ] || \
  { cat "$TMPDIR/bref.out"; fail "rank 0's refusal not named on every rank"; }

# 5. A rank that dies: Open MPI's runtime ends the whole job non-zero (no
# rank waits forever) and names the process; nobody prints ok.
rc=0
"${mpirun[@]}" "$check" --die-rank 2 >"$TMPDIR/die.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$TMPDIR/die.out"; fail "dying rank: rc=$rc"; }
grep -q '^mpi_check: ok' "$TMPDIR/die.out" && fail "a job with a dead rank printed ok"
grep -Eq 'Process name: \[\[[0-9]+,[0-9]+\],2\]|process rank 2 ' "$TMPDIR/die.out" || \
  { cat "$TMPDIR/die.out"; fail "mpirun did not name rank 2"; }
echo "dist_mpi: all checks passed"
