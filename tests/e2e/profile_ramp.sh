#!/usr/bin/env bash
# --ramp-up-duration is said and never mistaken for failure (issue 28 item 2): a ramp that takes some
# requests says how many were left out of the measurement; a ramp that would leave nothing to measure
# (--concurrency 1 with a count, a ramp as long as --duration, an open loop whose ramp holds the whole
# --request-count) is refused before the run (issue 43 item 2).
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve --ttft-ms 5 --itl-ms 1
prof() { "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 2 --artifact-dir "$TMPDIR/art.$1" "${@:2}" >/dev/null 2>"$1.err"; }
# Every ramp that leaves nothing to measure is refused before a request is sent: a usage error
# (exit 2) naming the flags and the fix (issue 43 item 2; before, the first two ran, printed an empty
# N/A table and exited 1). (the server's success counter says nothing was sent)
successes() { curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s + 0}'; }
refused() { # name message args...
  local name=$1 msg=$2; shift 2
  prof "$name" "$@"; local rc=$?
  [ $rc -eq 2 ] || { cat "$name.err"; fail "$name: exit $rc, want 2"; }
  grep -qxF "genperf profile: error: $msg" "$name.err" || { cat "$name.err"; fail "$name: message"; }
  [ "$(grep -c 'error:' "$name.err")" = 1 ] || { cat "$name.err"; fail "$name: more than one error line"; }
}
refused conc1 "argument --ramp-up-duration: at --concurrency 1 there is nothing to ramp, and the 5 requests of --request-count, sent back to back, may all start within the 5 s ramp and be left out (drop --ramp-up-duration; to leave out the first requests use --warmup-request-count N; to ramp, raise --concurrency)" \
  --concurrency 1 --request-count 5 --ramp-up-duration 5
refused dur "argument --ramp-up-duration: 3 s is not shorter than --duration 2 s, so every request starts in the ramp and nothing is measured (make --ramp-up-duration shorter than --duration)" \
  --duration 2 --ramp-up-duration 3
refused dur_rate "argument --ramp-up-duration: 2 s is not shorter than --duration 2 s, so every request starts in the ramp and nothing is measured (make --ramp-up-duration shorter than --duration)" \
  --request-rate 10 --duration 2 --ramp-up-duration 2
# an open loop whose ramp holds the whole --request-count (rate 10, ramp 3: 15 due in the ramp; before
# issue 28, the 10 were sent and the run ended "all 10 requests ... failed: ")
refused refused "argument --ramp-up-duration: 3 at --request-rate 10 leaves no measured requests: the 15 due in the ramp are left out, and --request-count is 10 (raise --request-count above 15 or shorten the ramp)" \
  --request-rate 10 --request-count 10 --ramp-up-duration 3
[ "$(successes)" = 0 ] || fail "a refused ramp sent $(successes) requests"
# two slots, ramp 1 s: the second opens at the ramp's end, so its request is measured
prof two --concurrency 2 --request-count 2 --ramp-up-duration 1 || { cat two.err; fail "two slots: exit $?"; }
grep -qF "genperf: client: 1 requests started during --ramp-up-duration 1 s and are left out of the measurement" two.err ||
  { cat two.err; fail "two slots: no count of the excluded"; }
# rate 20/s, ramp 1 s (0 -> 20/s: 10 arrivals in the ramp), 30 requests: 10 left out, 20 measured
prof some --request-rate 20 --request-rate-mode constant --request-count 30 --ramp-up-duration 1; rc=$?
[ $rc -eq 0 ] || { cat some.err; fail "some in the ramp: exit $rc"; }
grep -qF "genperf: client: 10 requests started during --ramp-up-duration 1 s and are left out of the measurement" some.err ||
  { cat some.err; fail "some in the ramp: no count of the excluded"; }
echo "profile_ramp: all checks passed"
