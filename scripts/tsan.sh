#!/usr/bin/env bash
# Runs tests/run.sh over a -fsanitize=thread build (make tsan builds it in
# build-tsan/ first). Usage: BUILD=build-tsan scripts/tsan.sh pattern ...
#
# Why a wrapper rather than `make test`:
# - reports go to files (log_path), not to stderr, so an e2e test that
#   compares a child's stderr is not confused by them; the run fails afterwards
#   when any report was written, and prints them. exitcode stays TSan's 66 too,
#   so the test that ran the racy process fails as well and names it.
# - allocator_may_return_null=1: TSan's allocator otherwise aborts the
#   process where malloc would return NULL, and some tests (client_test_record
#   under RLIMIT_AS) check exactly what genperf does when memory runs out.
# - tests/tsan.supp holds the suppressions for reports inside libraries we do
#   not own (each with the reason).
# - TSan maps its shadow memory at fixed addresses; with high ASLR entropy
#   (vm.mmap_rnd_bits > 28 on newer kernels) a binary can land on them and
#   TSan dies with "FATAL: ThreadSanitizer: unexpected memory mapping".
#   setarch -R (ASLR off for this process tree) avoids that where it is
#   allowed; where it is not (some containers forbid personality()), the run
#   goes on with ASLR, which works on kernels with the usual 28 bits.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-tsan}
export BUILD
reports="$root/$BUILD/tsan-reports"
rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="suppressions=$root/tests/tsan.supp log_path=$reports/tsan allocator_may_return_null=1 second_deadlock_stack=1 history_size=4 ${TSAN_OPTIONS:-}"

norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  norand=(setarch "$(uname -m)" -R)
else
  echo "tsan: setarch -R is not allowed here; running with ASLR on" >&2
fi

"${norand[@]}" bash "$root/tests/run.sh" "$@"; rc=$?

shopt -s nullglob
logs=("$reports"/tsan.*)
if [ ${#logs[@]} -gt 0 ]; then
  echo "tsan: ${#logs[@]} process(es) wrote ThreadSanitizer reports (in $reports):"
  for f in "${logs[@]}"; do echo "== $f"; head -n 60 "$f"; done
  rc=1
fi
exit "$rc"
