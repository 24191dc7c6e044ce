#!/usr/bin/env bash
# genperf selftest (issue 30 item 5): drives its own `genperf serve --timing-log` at the user's load
# shape and reports genperf's TTFT/ITL error against the server's timing. Its numbers are
# bench/timing_compare.py's (what bench/ttft_start_bench.sh reports) on the same export and log:
# TTFT excess median/p90/max equal, send and receive sides within 100 us (each computes this host's
# wall - monotonic offset at its own moment). --url is refused; a profile that fails fails selftest.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPDIR"
"$GENPERF" selftest --concurrency 4 --request-count 60 --synthetic-input-tokens-mean 16 --output-tokens-mean 8 \
  --genperf-output-tokens-deterministic --num-dataset-entries 20 --artifact-dir "$TMPDIR/st" >out.txt 2>err.txt; rc=$?
[ $rc -eq 0 ] || { cat out.txt err.txt; fail "selftest exit $rc"; }
grep -qE "^genperf selftest: at concurrency 4 on .+, genperf adds median -?[0-9]+ us, p99 -?[0-9]+ us to TTFT \(send side median" out.txt ||
  { cat out.txt; fail "no TTFT line"; }
grep -qE "^genperf selftest: 60 of 60 requests matched" out.txt || { cat out.txt; fail "not every request matched"; }
grep -qE "^genperf selftest: ITL error .* median -?[0-9]+ us, p99 -?[0-9]+ us over 420 chunk gaps" out.txt ||
  { cat out.txt; fail "no ITL line (60 requests x 7 gaps)"; }
grep -qx "genperf: client: not limiting" err.txt || { cat err.txt; fail "the profile's fidelity line is missing"; }
sj=$(ls "$TMPDIR"/st/*/selftest.json) || fail "no selftest.json"
log="$TMPDIR/st/selftest/serve_timing.jsonl"
[ -s "$log" ] || fail "no timing log kept at $log"
python3 "$GP_ROOT/bench/timing_compare.py" "$(dirname "$sj")/profile_export.json" "$log" >bench.json || fail "timing_compare.py"
python3 - "$sj" bench.json <<'PY' || fail "selftest.json disagrees with bench/timing_compare.py"
import json, sys
s, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["matched"] == b["matched"] == 60 and s["unmatched"] == 0, (s, b)
t = s["ttft_excess"]
assert t["count"] == 60, t
for mine, theirs in (("median_us", "excess_median_us"), ("p90_us", "excess_p90_us"), ("max_us", "excess_max_us")):
    assert abs(t[mine] - b[theirs]) < 0.01, (mine, t[mine], b[theirs])
assert abs(s["send_side"]["median_us"] - b["send_median_us"]) < 100, (s["send_side"], b)
assert abs(s["receive_side"]["median_us"] - b["recv_median_us"]) < 100, (s["receive_side"], b)
# the server's TTFT is 30 ms: an excess of that order would mean the two clocks were not compared
assert -1000 < t["median_us"] < 20000, t
assert s["itl_error"]["count"] == 420 and s["server"]["ttft_ms"] == 30, s
PY
# an open-loop shape is named as such
"$GENPERF" selftest --request-rate 100 --request-count 100 --output-tokens-mean 2 --serve-ttft-ms 2 \
  --serve-itl-ms 1 --artifact-dir "$TMPDIR/rate" >rate.txt 2>rate.err; rc=$?
[ $rc -eq 0 ] || { cat rate.txt rate.err; fail "rate selftest exit $rc"; }
grep -qE "^genperf selftest: at --request-rate 100 on .+ to TTFT" rate.txt || { cat rate.txt; fail "no rate TTFT line"; }
# refusals
"$GENPERF" selftest --url http://127.0.0.1:1 >/dev/null 2>url.err; rc=$?
[ $rc -eq 2 ] && grep -q "starts its own genperf serve" url.err || { cat url.err; fail "--url: exit $rc"; }
"$GENPERF" selftest --concurrency 0 --artifact-dir "$TMPDIR/bad" >/dev/null 2>bad.err; rc=$?
[ $rc -eq 1 ] && grep -q "genperf profile exited" bad.err || { cat bad.err; fail "failing profile: exit $rc"; }
echo "selftest_basic: all checks passed"
