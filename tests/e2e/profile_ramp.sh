#!/usr/bin/env bash
# --ramp-up-duration is said and never mistaken for failure (issue 28 item 2): a ramp that takes every
# request exits 1 saying so (it printed "all 10 requests ... failed: " with an empty reason), and a
# ramp that takes some says how many were left out of the measurement; an open loop whose ramp
# would take the whole --request-count is refused before the run.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve --ttft-ms 5 --itl-ms 1
prof() { "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 2 --artifact-dir "$TMPDIR/art.$1" "${@:2}" >/dev/null 2>"$1.err"; }
# concurrency 1, 5 requests of ~10 ms, ramp 5 s: all five start in the ramp
prof all --concurrency 1 --request-count 5 --ramp-up-duration 5; rc=$?
[ $rc -eq 1 ] || { cat all.err; fail "all in the ramp: exit $rc, want 1"; }
grep -qF "error: all 5 requests started during --ramp-up-duration 5 s; nothing was measured (raise --request-count or shorten the ramp)" all.err ||
  { cat all.err; fail "all in the ramp: message"; }
grep -q "failed" all.err && { cat all.err; fail "all in the ramp: says failed"; }
# an open loop whose ramp holds the whole --request-count is refused before the run (rate 10, ramp 3:
# 15 due in the ramp; before, the 10 were sent and the run ended "all 10 requests ... failed: ")
prof refused --request-rate 10 --request-count 10 --ramp-up-duration 3; rc=$?
[ $rc -eq 1 ] || { cat refused.err; fail "ramp over the whole count: exit $rc, want 1"; }
grep -qF "error: --ramp-up-duration 3 at --request-rate 10 leaves no measured requests: the 15 due in the ramp are left out, and --request-count is 10 (raise --request-count above 15 or shorten the ramp)" refused.err ||
  { cat refused.err; fail "ramp over the whole count: message"; }
grep -q "requests sent" refused.err && { cat refused.err; fail "ramp over the whole count: the run started"; }
# rate 20/s, ramp 1 s (0 -> 20/s: 10 arrivals in the ramp), 30 requests: 10 left out, 20 measured
prof some --request-rate 20 --request-rate-mode constant --request-count 30 --ramp-up-duration 1; rc=$?
[ $rc -eq 0 ] || { cat some.err; fail "some in the ramp: exit $rc"; }
grep -qF "genperf: client: 10 requests started during --ramp-up-duration 1 s and are left out of the measurement" some.err ||
  { cat some.err; fail "some in the ramp: no count of the excluded"; }
echo "profile_ramp: all checks passed"
