#!/usr/bin/env bash
# scripts/busy-cores.sh — runs a command while other processes keep every core
# busy, so a busy host (a CI runner, a laptop building something else) can be
# reproduced on demand: `make test-loaded` is `scripts/busy-cores.sh tests/run.sh`.
#
# Usage: scripts/busy-cores.sh COMMAND [ARG ...]
#   BUSY_N=K     busy loops to start (default: one per online core, nproc)
#   BUSY_NICE=K  their nice value (default 0: they compete with the tests as
#                equals, as another user's build would)
# Each loop is a shell `while :; do :; done` (no dependency: stress is not
# needed); all are killed when the command ends, fails or is interrupted, and
# the command's exit status is returned.
set -u
[ $# -ge 1 ] || { echo "usage: scripts/busy-cores.sh COMMAND [ARG ...]" >&2; exit 2; }
n=${BUSY_N:-$(nproc 2>/dev/null || echo 2)}
nice_k=${BUSY_NICE:-0}
pids=()
stop() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=()
}
trap stop EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < n; i++)); do
  nice -n "$nice_k" bash -c 'while :; do :; done' &
  pids+=($!)
done
echo "busy-cores: $n busy loop(s) at nice $nice_k while running: $*" >&2
"$@"
