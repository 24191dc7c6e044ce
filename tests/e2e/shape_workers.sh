#!/usr/bin/env bash
# shape_workers: --workers 2 splits a plan over two event loops (client/schedule.h): the session
# test (4 sessions x 3 turns, each turn carrying the previous reply, after its delay) and the trace
# test (rows in order at their timestamps) pass unchanged, each session stays on one loop, trace
# row i runs on loop i mod 2, and the merged records are the one-loop run's.
set -u
dir=$(dirname "$0")
mkdir -p "$TMPDIR/sessions" "$TMPDIR/trace"
TMPDIR="$TMPDIR/sessions" SHAPE_WORKERS=2 bash "$dir/shape_sessions.sh" || exit 1
TMPDIR="$TMPDIR/trace" SHAPE_WORKERS=2 bash "$dir/shape_trace.sh" || exit 1
