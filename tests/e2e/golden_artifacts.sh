#!/usr/bin/env bash
# golden_artifacts: every artifact of fixed-seed profiles against `genperf serve --zero-delay`, with
# only the clock-derived values masked (tests/golden/normalize.py), equals the golden set committed
# before the code-health refactor (tests/golden/<case>/). A refactor may move code; it may not
# change one output byte. An intended output change regenerates the set with
# `GENPERF=build/genperf bash tests/golden/make_golden.sh tests/golden` and says why in its commit.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
bash "$GP_ROOT/tests/golden/make_golden.sh" "$TMPDIR/now" || exit 1
rc=0
for c in chat_stream completions; do
  diff -ru "$GP_ROOT/tests/golden/$c" "$TMPDIR/now/$c" | head -n 60 || true
  diff -rq "$GP_ROOT/tests/golden/$c" "$TMPDIR/now/$c" >/dev/null || { echo "FAIL: $c artifacts differ from the golden set"; rc=1; }
done
[ $rc -eq 0 ] && echo "golden artifacts: identical"
exit $rc
