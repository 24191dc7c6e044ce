# `genperf profile --workers 2` against `genperf serve` (issue 17):
#  - closed loop: request count == --request-count == the server's own success
#    counter (minus warmup), 0 failures, inputs.json identical to the one-worker
#    run's, the same (slot, entry) pairs as one worker, peak in flight at the
#    server (timing log) <= --concurrency, "scale_out" in *_genperf.json only;
#  - open loop (Poisson, same seed): the merged send times equal the one-worker
#    schedule within the lateness both runs report;
#  - --workers validation, and a --max-concurrency below the loops refused.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --ttft-ms 5 --itl-ms 1 --quiet --timing-log "$TMPDIR/timing.jsonl"
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
common=(-m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 16
        --output-tokens-mean 10 --random-seed 7)
run_dir=m-openai-chat-concurrency5

"$GENPERF" profile "${common[@]}" --concurrency 5 --request-count 43 --artifact-dir one >o1.txt 2>e1.txt || \
  { cat e1.txt; fail "one worker: exit $?"; }
before=$(curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s}')
"$GENPERF" profile "${common[@]}" --concurrency 5 --request-count 43 --warmup-request-count 6 --workers 2 \
  --artifact-dir two >o2.txt 2>e2.txt || { cat e2.txt; fail "two workers: exit $?"; }
cat e2.txt
after=$(curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s}')
[ $((after - before)) = 49 ] || fail "server counted $((after - before)) successes, expected 43 + 6 warmup"
cmp one/$run_dir/inputs.json two/$run_dir/inputs.json || fail "inputs.json differs between 1 and 2 workers"

python3 - one/$run_dir two/$run_dir <<'PY' || fail "closed-loop checks"
import json, sys
one, two = sys.argv[1], sys.argv[2]
g = json.load(open(two + "/profile_export_genai_perf.json"))
assert g["request_count"]["avg"] == 43.0, g["request_count"]
assert "workers" not in json.dumps(g), "scale-out keys leaked into GenAI-Perf's file"
def recs(d):
    return [json.loads(l) for l in open(d + "/profile_export_records.jsonl")]
r1 = [r for r in recs(one) if not r["warmup"]]
r2 = [r for r in recs(two) if not r["warmup"]]
assert len(r2) == 43 and all(r["status"] == "ok" for r in r2), [r["status"] for r in r2]
# the same requests as one worker: each slot's k-th request on the same entry
assert sorted((r["slot"], r["entry"]) for r in r1) == sorted((r["slot"], r["entry"]) for r in r2)
assert {r["worker"] for r in r2} == {0, 1}
starts = [r["t_start_ns"] for r in r2]
assert starts == sorted(starts), "records not merged by start time"
gp = json.load(open(two + "/profile_export_genperf.json"))
so = gp["scale_out"]
assert so["workers"] == 2 and len(so["per_worker"]) == 2, so
assert sum(w["requests"] for w in so["per_worker"]) == 43, so
assert all(0 <= w["busy_fraction"] <= 1.5 for w in so["per_worker"]), so
assert "scale_out" not in json.load(open(one + "/profile_export_genperf.json"))
PY

# open loop: Poisson at 50/s, 60 requests, one and two workers, same seed
for w in 1 2; do
  "$GENPERF" profile "${common[@]}" --request-rate 50 --request-distribution poisson --request-count 60 \
    --workers $w --artifact-dir rate$w >or$w.txt 2>er$w.txt || { cat er$w.txt; fail "rate, $w workers: exit $?"; }
  # the latest send's lateness: 'the latest send was X ms after', or 'worst X ms' when it fell behind
  grep -oE '(latest send was|worst) [0-9.]+ ms' er$w.txt | head -1 | awk '{print $(NF-1)}' >lag$w
done
python3 - rate1/m-openai-chat-request_rate50.0 rate2/m-openai-chat-request_rate50.0 "$(cat lag1)" "$(cat lag2)" <<'PY' || fail "open-loop schedule"
import json, sys
def sched(d):
    rs = sorted((json.loads(l) for l in open(d + "/profile_export_records.jsonl")), key=lambda r: r["slot"])
    assert [r["slot"] for r in rs] == list(range(60)), [r["slot"] for r in rs]
    t0 = rs[0]["t_start_ns"]
    return [r["t_start_ns"] - t0 for r in rs], {r["worker"] for r in rs}
a, wa = sched(sys.argv[1])
b, wb = sched(sys.argv[2])
assert wa == {0} and wb == {0, 1}, (wa, wb)
# every send is at most `lag` late; arrival 0 too, so offsets differ by at most both bounds + slack
bound = (float(sys.argv[3]) + float(sys.argv[4])) * 2e6 + 200e3
worst = max(abs(x - y) for x, y in zip(a, b))
print("worst difference to the one-worker schedule: %.3f ms (bound %.3f ms)" % (worst / 1e6, bound / 1e6))
assert worst <= bound, (worst, bound)
assert a[-1] > 300e6, "schedule too short to mean anything"
PY

# a cap below the event loops is refused before any request (dist/plan.c's split, the one place
# the load is split over the loops)
before=$(curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s}')
"$GENPERF" profile "${common[@]}" --request-rate 50 --max-concurrency 1 --request-count 60 --workers 2 \
  --artifact-dir capped >/dev/null 2>capped.txt && fail "--max-concurrency 1 with 2 workers accepted"
grep -q -- "--max-concurrency 1 is below the number of event loops (2); lower --workers or raise --max-concurrency" \
  capped.txt || fail "unexpected message: $(cat capped.txt)"
after=$(curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s}')
[ "$after" = "$before" ] || fail "the refused run sent $((after - before)) requests"

# peak in flight at the server over the two-worker run's requests (seq 43..91);
# the timing log is written when the server exits
kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null; PIDS=()
python3 - timing.jsonl <<'PY' || fail "peak in flight"
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if 43 <= r["seq"] < 92]
assert len(rows) == 49, len(rows)
ev = []
for r in rows:
    end = r["chunks_ns"][-1] if r["chunks_ns"] else r["t_request_ns"]
    ev += [(r["t_request_ns"], 1), (end, -1)]
cur = peak = 0
for _, d in sorted(ev, key=lambda e: (e[0], e[1])):
    cur += d
    peak = max(peak, cur)
print("peak in flight at the server:", peak)
assert 2 <= peak <= 5, peak
PY


# validation
"$GENPERF" profile "${common[@]}" --workers 0 >/dev/null 2>bad.txt && fail "--workers 0 accepted"
grep -q -- "--workers '0'" bad.txt || fail "unexpected message: $(cat bad.txt)"
echo ok
