#!/usr/bin/env bash
# compare_unlike: `genperf compare` judges only what it can (issue 38 item 10), over hand-made
# run directories (tests/e2e/compare_fixture.py writes them in genperf profile's shapes):
#  (a) runs of a different model, endpoint type, streaming, ISL/OSL, input or load are refused with exit 3
#      and one message naming each difference, before any table; --allow-different compares
#      them with a warning line naming the differences (table, md, JSON "unlike");
#  (b) the 95% interval of a relative change of a non-negative quantity stops at -100%;
#  (c) a gate term on runs of one request each says "not judged: too few requests" and exits 4
#      (0 with --allow-unjudged), instead of failing or passing on a point interval.
source "$GP_ROOT/tests/e2e/profile_common.inc"
T=$TMPDIR
fx() { python3 "$GP_ROOT/tests/e2e/compare_fixture.py" "$@" || fail "compare_fixture.py $*"; }

# (a) the issue's case: ISL 512 at concurrency 16 against ISL 64 at concurrency 4 on another model
fx "$T/big" --model llama --isl 512 --concurrency 16 --ttft-ms 200,210,220,230,240,250,260,270
fx "$T/small" --model qwen --isl 64 --concurrency 4
"$GENPERF" compare "$T/big" "$T/small" --fail-on "ttft_p50:+5%" >"$T/u.out" 2>"$T/u.err"
check_rc $? 3
grep -q 'unlike runs (model: llama vs qwen; ISL: 512 vs 64; concurrency: 16 vs 4)' "$T/u.err" ||
  { cat "$T/u.err"; fail "unlike runs: the message naming each difference"; }
grep -q -- '--allow-different' "$T/u.err" || fail "unlike runs: the message names --allow-different"
[ ! -s "$T/u.out" ] || { cat "$T/u.out"; fail "unlike runs: a table was printed before the refusal"; }

# each difference alone is refused; the same configuration is not
fx "$T/base"
for args in "--endpoint-type completions|endpoint type: chat vs completions" "--osl 16|OSL: 8 vs 16" "--no-streaming|streaming: yes vs no" \
            "--isl 128|ISL: 64 vs 128" "--file data.jsonl|input: synthetic vs file data.jsonl" \
            "--concurrency 8|concurrency: 4 vs 8" "--request-rate 2|load: concurrency 4 vs request rate 2" \
            "--model other|model: m vs other"; do
  flags=${args%%|*} want=${args#*|}
  rm -rf "$T/other"; fx "$T/other" $flags
  "$GENPERF" compare "$T/base" "$T/other" >/dev/null 2>"$T/e.err"
  check_rc $? 3
  grep -qF "($want)" "$T/e.err" || { cat "$T/e.err"; fail "$flags: want '$want'"; }
done
fx "$T/rate2" --request-rate 2 --arrival constant
fx "$T/rate2p" --request-rate 2 --arrival poisson
"$GENPERF" compare "$T/rate2" "$T/rate2p" >/dev/null 2>"$T/e.err"; check_rc $? 3
grep -qF "(arrival: constant vs poisson)" "$T/e.err" || { cat "$T/e.err"; fail "arrival process"; }
# a GenAI-Perf-only set (no arrival recorded) is constant
fx "$T/rate2n" --request-rate 2
"$GENPERF" compare "$T/rate2n" "$T/rate2p" >/dev/null 2>"$T/e.err"; check_rc $? 3
grep -qF "(arrival: constant vs poisson)" "$T/e.err" || { cat "$T/e.err"; fail "unrecorded arrival is constant"; }
"$GENPERF" compare "$T/rate2n" "$T/rate2" >/dev/null 2>"$T/e.err"; check_rc $? 0
fx "$T/same" --ttft-ms 30,31,32,33,34,35,36,37
"$GENPERF" compare "$T/base" "$T/same" --fail-on "ttft_p50:+5%" >"$T/s.out" 2>"$T/s.err"
check_rc $? 1
! grep -q unlike "$T/s.out" "$T/s.err" || fail "alike runs called unlike"

# the repeats of one side must be alike too; the store's jobs are read the same way
fx "$T/reps/run_1"; fx "$T/reps/run_2" --model other
"$GENPERF" compare "$T/reps" "$T/base" >/dev/null 2>"$T/e.err"; check_rc $? 3
grep -qF "its runs are unlike (the first run vs $T/reps/run_2: model: m vs other)" "$T/e.err" ||
  { cat "$T/e.err"; fail "unlike repeats in one side"; }
"$GENPERF" ingest "$T/big" --db "$T/s.db" --label big >/dev/null || fail "ingest big"
"$GENPERF" ingest "$T/small" --db "$T/s.db" --label small >/dev/null || fail "ingest small"
"$GENPERF" compare big small --db "$T/s.db" >"$T/db.out" 2>"$T/db.err"; check_rc $? 3
grep -q 'unlike runs (model: llama vs qwen; ISL: 512 vs 64; concurrency: 16 vs 4)' "$T/db.err" ||
  { cat "$T/db.err"; fail "store jobs: unlike runs"; }

# --allow-different compares, and says what differs in every format
"$GENPERF" compare "$T/big" "$T/small" --allow-different >"$T/a.out" 2>"$T/a.err"
check_rc $? 0
grep -q '^warning: unlike runs, compared under --allow-different: model: llama vs qwen; ISL: 512 vs 64; concurrency: 16 vs 4$' \
  "$T/a.out" || { cat "$T/a.out"; fail "--allow-different: the warning line"; }
grep -q '^TTFT p50 (ms)' "$T/a.out" || fail "--allow-different: no table"
grep -q 'warning: comparing unlike runs' "$T/a.err" || fail "--allow-different: stderr warning"
"$GENPERF" compare "$T/big" "$T/small" --allow-different --format md 2>/dev/null | grep -q '^\*\*warning: unlike runs' ||
  fail "--allow-different: md warning"
"$GENPERF" compare "$T/big" "$T/small" --allow-different --format json >"$T/a.json" 2>/dev/null
[ "$(json_get "$T/a.json" "d['unlike']")" = "model: llama vs qwen; ISL: 512 vs 64; concurrency: 16 vs 4" ] ||
  fail "--allow-different: JSON unlike $(json_get "$T/a.json" "d['unlike']")"

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
"$GENPERF" ingest "$T/one_a" --db "$T/s.db" --label one_a >/dev/null || fail "ingest one_a"
"$GENPERF" ingest "$T/one_b" --db "$T/s.db" --label one_b >/dev/null || fail "ingest one_b"
"$GENPERF" compare one_a one_b --db "$T/s.db" --fail-on "ttft_p50:+5%" >"$T/o.out" 2>&1; check_rc $? 4
# a failing term still wins: exit 1 over 4
"$GENPERF" compare "$T/base" "$T/same" --fail-on "ttft_p50:+5%" >/dev/null 2>&1; check_rc $? 1
echo "compare_unlike: ok"
