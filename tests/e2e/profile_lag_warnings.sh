#!/usr/bin/env bash
# Schedule-lag lines that are true (issue 28 item 7). A closed-loop session run (--num-sessions,
# turns due a think delay after the previous answer) said "open loop kept its schedule", warned
# "schedule lag p99 1.68 ms ... 0 requests waited for the --max-concurrency cap" with no cap given,
# and "2 sends were more than 1 ms late ... the schedule was not kept": now it says nothing about a
# schedule. An open loop that keeps its schedule says so, in one line, no warning; one that falls
# behind (a cap of 2 against a server that takes 100 ms, rate 40/s) warns once, with how many sends
# were more than 10 ms late and the cap it waited for, and never says "kept its schedule".
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve --ttft-ms 10 --itl-ms 2 --quiet
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
prof() { "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 2 --artifact-dir "$TMPDIR/art.$1" "${@:2}" >/dev/null 2>"$1.err"; }

prof sess --num-sessions 6 --session-concurrency 2 --session-turns-mean 3 --session-turn-delay-mean 100; rc=$?
check_rc $rc 0
for s in "schedule" "max-concurrency" "open loop" "late"; do
  grep -qi -- "$s" sess.err && { cat sess.err; fail "closed-loop session run mentions '$s'"; }
done

# An uncapped open loop at 10/s: whether every send leaves within 10 ms of its due time is up to
# the host (a busy one delays a send by 10.5 ms now and then; `make test-loaded` does), so the test
# asserts what the code guarantees: exactly one schedule line, whose verdict and figures are those
# of *_genperf.json "schedule" -- "kept its schedule" with the latest send's lag when no send was
# more than 10 ms late, else the warning with the late count and the worst lag, never a cap that
# was not given and never "1 sends". On a quiet host the first branch is the one taken.
prof kept --request-rate 10 --request-rate-mode constant --request-count 10; rc=$?
check_rc $rc 0
n=$(grep -c "schedule" kept.err)
[ "$n" = 1 ] || { cat kept.err; fail "open loop at 10/s: $n schedule lines, want 1"; }
grep -qE "(^|[^0-9])1 sends" kept.err && { cat kept.err; fail "'1 sends'"; }
grep -q "max-concurrency" kept.err && { cat kept.err; fail "open loop at 10/s names a cap it was not given"; }
python3 - art.kept/*/*_genperf.json kept.err <<'PY' || { cat kept.err; fail "open loop at 10/s: the schedule line is not what *_genperf.json says"; }
import json, re, sys
s = json.load(open(sys.argv[1]))["schedule"]
err = open(sys.argv[2]).read()
worst = s["lag"]["max_ms"]
assert s["requests"] == 10, s["requests"]
kept = re.search(r"^genperf: client: open loop kept its schedule: the latest send was ([0-9.]+) ms after its due "
                 r"time \(none more than 10 ms late\)$", err, re.M)
behind = re.search(r"^genperf: warning: open loop fell behind its schedule: (\d+) of 10 sends? more than 10 ms late, "
                   r"schedule lag p99 ([0-9.]+) ms, worst ([0-9.]+) ms: ", err, re.M)
if worst <= 10.0:
    assert kept and not behind, (worst, err)
    assert abs(float(kept[1]) - worst) < 0.006, (kept[1], worst)
    assert "genperf: warning" not in err, err
else:  # this host was late: the verdict must say so, with the same figures
    assert behind and not kept, (worst, err)
    assert int(behind[1]) >= 1 and abs(float(behind[3]) - worst) < 0.006, (behind[0], worst)
    print("note: this host sent a request %.2f ms late; the warning says so" % worst)
PY

stop_serve
start_serve --ttft-ms 100 --itl-ms 0 --quiet
prof behind --request-rate 40 --request-rate-mode constant --max-concurrency 2 --request-count 40 --output-tokens-mean 1; rc=$?
check_rc $rc 0
grep -q "kept its schedule" behind.err && { cat behind.err; fail "capped run fell behind, but 'kept its schedule'"; }
n=$(grep -c "schedule" behind.err)
[ "$n" = 1 ] || { cat behind.err; fail "capped run: $n schedule lines, want 1"; }
line=$(grep "genperf: warning: open loop fell behind its schedule: " behind.err) || { cat behind.err; fail "capped run: no warning"; }
python3 - "$line" art.behind/*/*_genperf.json <<'PY' || fail "capped run: warning figures"
import json, re, sys
line, s = sys.argv[1], json.load(open(sys.argv[2]))["schedule"]
m = re.search(r"(\d+) of (\d+) sends more than 10 ms late, schedule lag p99 ([0-9.]+) ms, worst ([0-9.]+) ms; "
              r"(\d+) requests waited for the --max-concurrency cap \(2 in flight\)", line)
assert m, line
late, n, p99, worst, cap = int(m[1]), int(m[2]), float(m[3]), float(m[4]), int(m[5])
print(line)
assert n == 40 and n == s["requests"], (n, s["requests"])
assert late >= 30, late  # all but the first few queue behind 2 x 100 ms slots at one due every 25 ms
assert abs(worst - s["lag"]["max_ms"]) < 0.01 and abs(p99 - s["lag"]["p99_ms"]) < 0.01, (worst, p99, s["lag"])
assert cap == s["cap_delayed"] and cap >= 30, cap
PY
echo "profile_lag_warnings: all checks passed"
