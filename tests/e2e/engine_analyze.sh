#!/usr/bin/env bash
# genperf analyze over concurrency 1,2,4 against the reference engine (llama.cpp
# via node-llama-cpp, 4 sequences decoded in one batch; docs/engine.md): output
# token throughput rises from 1 to 4 (> x1.1) and stays well below linear
# (< x3.6; 4 would be free batching on idle cores). Where it flattens, between
# 1->2 or 2->4, is printed, not asserted: on this 2-core host shared with other
# jobs (load average 3-7) it moved from run to run (2->4 gains x1.16, x1.72,
# x1.41, x1.86, x0.83; 1->2 x0.93 twice; 1->4 x1.21 to x3.17), and both earlier assertions of it
# (2->4 < x1.6; the gain per added request shrinks) failed on a quiet or a busy
# moment. Then concurrency 8 over the 4 sequences: the engine's /metrics shows 4
# running and some waiting while genperf's TTFT
# grows by the queueing. Prints every cell's numbers. Skips (77) when the
# engine cannot be fetched or loaded.
. "$GP_ROOT/tests/e2e/engine_common.inc"
engine_setup
start_engine --sequences 4
cd "$TMPDIR"

common=(-m engine --url "$URL" --endpoint-type chat --streaming --tokenizer "$TOK"
        --synthetic-input-tokens-mean 64 --output-tokens-mean 48 --request-count 48 --warmup-request-count 2)
"$GENPERF" analyze --sweep-type concurrency --sweep-list 1,2,4 "${common[@]}" >analyze.out 2>analyze.err
rc=$?
[ $rc -eq 0 ] || { tail -n 20 analyze.err; fail "analyze exit $rc"; }
[ -f artifacts/analyze_export_genai_perf.csv ] || fail "no analyze_export_genai_perf.csv"

# A poller of the engine's gauges while concurrency 8 runs.
( while :; do
    echo "$(engine_metric vllm:num_requests_running) $(engine_metric vllm:num_requests_waiting)"
    sleep 0.05
  done ) >gauges.txt 2>/dev/null &
poller=$!
PIDS+=($poller)
"$GENPERF" profile "${common[@]}" --concurrency 8 --artifact-dir c8 >c8.out 2>c8.err
rc=$?
kill $poller 2>/dev/null
[ $rc -eq 0 ] || { tail -n 20 c8.err; fail "profile --concurrency 8 exit $rc"; }

python3 - gauges.txt artifacts/*-concurrency1 artifacts/*-concurrency2 artifacts/*-concurrency4 c8/*-concurrency8 <<'PY' || fail "throughput/TTFT shape"
import glob, json, sys
gauges = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
cells = {}
for d in sys.argv[2:]:
    g = json.load(open(glob.glob(d + "/*_genai_perf.json")[0]))
    c = int(d.rsplit("concurrency", 1)[1])
    cells[c] = (g["output_token_throughput"]["avg"], g["time_to_first_token"]["p50"], g["inter_token_latency"]["avg"])
    print("concurrency %d: output token throughput %.1f tokens/s, TTFT p50 %.2f ms, ITL avg %.2f ms" % ((c,) + cells[c]))
t1, t2, t4 = cells[1][0], cells[2][0], cells[4][0]
print("throughput gain 1->2: x%.2f, 2->4: x%.2f, 1->4: x%.2f" % (t2 / t1, t4 / t2, t4 / t1))
print("engine gauges during concurrency 8: running max %d, waiting max %d (%d samples)"
      % (max(g[0] for g in gauges), max(g[1] for g in gauges), len(gauges)))
assert t4 > 1.1 * t1, "throughput did not rise from concurrency 1 to 4"
assert t4 < 3.6 * t1, "throughput scaled linearly from 1 to 4: the cores are not the limit?"
assert max(g[0] for g in gauges) == 4, "running never reached the 4 sequences"
assert max(g[1] for g in gauges) >= 1, "no request ever waited with 8 in flight over 4 sequences"
assert cells[8][1] > cells[4][1], "TTFT did not grow when requests queue"
PY
echo ok
