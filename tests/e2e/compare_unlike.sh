#!/usr/bin/env bash
# compare_unlike: `genperf compare` judges only what it can (issue 38 item 10), over hand-made
# run directories (tests/e2e/compare_fixture.py writes them in genperf profile's shapes):
#  (b) the 95% interval of a relative change of a non-negative quantity stops at -100%;
#  (c) a gate term on runs of one request each says "not judged: too few requests" and exits 4
#      (0 with --allow-unjudged), instead of failing or passing on a point interval.
source "$GP_ROOT/tests/e2e/profile_common.inc"
T=$TMPDIR
fx() { python3 "$GP_ROOT/tests/e2e/compare_fixture.py" "$@" || fail "compare_fixture.py $*"; }

# (b) repeats whose Welch interval would reach below -100%: BASE runs at 10 and 1000 ms, NEW at 1 ms
fx "$T/wide_a/run_1" --ttft-ms 10,10,10,10; fx "$T/wide_a/run_2" --ttft-ms 1000,1000,1000,1000
fx "$T/wide_b/run_1" --ttft-ms 1,1,1,1;     fx "$T/wide_b/run_2" --ttft-ms 1,1,1,1
"$GENPERF" compare "$T/wide_a" "$T/wide_b" --format json >"$T/w.json" 2>"$T/w.err"; check_rc $? 0
python3 - "$T/w.json" <<'PY' || fail "an interval of a relative change reaches below -100%"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "runs", d["method"]
for m in d["metrics"]:
    if m["change_kind"] == "relative" and m["ci_low"] is not None:
        assert m["ci_low"] >= -1, (m["metric"], m["ci_low"])
t = [m for m in d["metrics"] if m["metric"] == "ttft_p50"][0]
assert t["ci_low"] == -1 and t["ci_high"] > 0, t
PY
"$GENPERF" compare "$T/wide_a" "$T/wide_b" | grep -E '^TTFT p50 \(ms\).*\[-100\.0%, ' >/dev/null ||
  fail "table: the clamped interval"

# (c) one request a side: nothing to judge by; the gate says so and exits 4
fx "$T/one_a" --ttft-ms 20; fx "$T/one_b" --ttft-ms 40
"$GENPERF" compare "$T/one_a" "$T/one_b" --fail-on "ttft_p50:+5%" >"$T/o.out" 2>"$T/o.err"
check_rc $? 4
grep -q '^gate ttft_p50:+5%: not judged: too few requests' "$T/o.out" || { cat "$T/o.out"; fail "too few: gate line"; }
grep -E '^TTFT p50 \(ms\).*not judged: too few requests$' "$T/o.out" >/dev/null || fail "too few: row verdict"
grep -q 'fewer than 2 requests' "$T/o.err" || fail "too few: stderr"
"$GENPERF" compare "$T/one_a" "$T/one_b" --fail-on "ttft_p50:+5%" --allow-unjudged --format json >"$T/o.json" 2>/dev/null
check_rc $? 0
[ "$(json_get "$T/o.json" "d['gate'][0]['result'], d['gate_failed']")" = "not judged: too few requests False" ] ||
  fail "too few: JSON gate $(json_get "$T/o.json" "d['gate']")"
echo "compare_unlike: ok"
