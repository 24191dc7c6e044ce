#!/usr/bin/env bash
# shape_mpi: `mpirun -n 2 genperf profile` runs plans (profile_dist.c sends rank 0's plan along and
# shares one schedule origin): the session test (4 sessions x 3 turns, each turn carrying the previous
# reply, after its delay; each session on one of the job's loops, every loop used), the trace test
# over 2 ranks x 2 workers (rows in order at their timestamps within the reported lateness, row i on
# loop i mod 4) and the request_inputs test (session_id / delay of every turn reach rank 0's export)
# pass unchanged.
set -u
dir=$(dirname "$0")
mkdir -p "$TMPDIR/sessions" "$TMPDIR/trace" "$TMPDIR/inputs"
TMPDIR="$TMPDIR/sessions" SHAPE_MPI=2 bash "$dir/shape_sessions.sh" || exit $?
TMPDIR="$TMPDIR/trace" SHAPE_MPI=2 SHAPE_WORKERS=2 bash "$dir/shape_trace.sh" || exit $?
TMPDIR="$TMPDIR/inputs" SHAPE_MPI=2 bash "$dir/shape_session_inputs.sh" || exit $?
