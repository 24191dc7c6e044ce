#!/usr/bin/env bash
# serve_reasoning: against `genperf serve --reasoning N` (the first N output
# tokens stream as reasoning_content, one token per chunk), <stem>_genperf.json
# reports time to first reasoning token, N reasoning tokens per request and a
# total output throughput that adds them, while GenAI-Perf's content-only
# TTFT and OSL stay what they are: TTFT is the first *content* chunk, OSL the
# content tokens (the server's completion_tokens - N). Ground truth is the
# server's timing log: chunk i < N of each request is reasoning, so the gap
# the client measures between its first reasoning and first content chunk
# must be the gap between those chunks' sends (within scheduling noise).
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
N=3
"$GENPERF" serve --quiet --port 0 --port-file url --ttft-ms 20 --itl-ms 15 --reasoning $N --seed 3 \
  --timing-log log.jsonl >/dev/null 2>&1 &
pid=$!
wait_file url 10 || fail "serve did not start"
"$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$(cat url)" --endpoint-type chat --streaming \
  --isl 16 --osl 8 --genperf-output-tokens-deterministic --request-count 6 --concurrency 1 --server-usage \
  --artifact-dir a >prof.out 2>&1 || { cat prof.out; fail "profile failed"; }
kill -TERM $pid; wait $pid
python3 - "$(find a -name '*_genperf.json')" "$(find a -name '*_genai_perf.json')" \
  "$(find a -name '*_records.jsonl')" log.jsonl $N <<'PY' || fail "reasoning figures"
import json, sys
g = json.load(open(sys.argv[1])); gp = json.load(open(sys.argv[2]))
recs = [json.loads(l) for l in open(sys.argv[3])]
log = sorted((json.loads(l) for l in open(sys.argv[4])), key=lambda e: e["seq"])
N = int(sys.argv[5])
recs = [r for r in recs if not r["warmup"]]
assert len(recs) == len(log) == 6, (len(recs), len(log))
rs = g["reasoning"]
assert rs["requests"] == 6 and rs["requests_with_reasoning"] == 6, rs
t = rs["reasoning_tokens_per_request"]
assert t["min"] == t["max"] == N and rs["reasoning_tokens_total"] == 6 * N, t
# completion_tokens count reasoning too: content OSL + reasoning tokens agree with them
assert g["token_accounting"]["osl_vs_completion_tokens"]["disagree"] == 0, g["token_accounting"]
for r, e in zip(recs, log):
    c = [ns for ns, k in zip(e["chunks_ns"], [k for k in e["kinds"] if k != "K"]) if k == "C"]
    assert e["completion_tokens"] == 8 and len(c) == 8, e
    # content-only OSL (GenAI-Perf's), N reasoning tokens beside it
    assert r["osl"] == e["completion_tokens"] - N and r["reasoning_tokens"] == N, (r, e)
    assert r["reasoning_chunks"] == N and r["content_chunks"] == 8 - N, r
    assert 0 < r["ttfr_ns"] < r["ttft_ns"], r
    want = c[N] - c[0]                       # first content send - first reasoning send
    got = r["ttft_ns"] - r["ttfr_ns"]
    assert abs(got - want) < 8e6, (got, want)
ttft = gp["time_to_first_token"]["avg"]
ttfr = rs["time_to_first_reasoning_token"]["avg"]
assert ttfr < ttft and ttft - ttfr > N * 15 * 0.6, (ttfr, ttft)
assert gp["output_sequence_length"]["avg"] == 8 - N, gp["output_sequence_length"]
otp = gp["output_token_throughput"]["avg"]
tot = rs["total_output_token_throughput"]
assert abs(tot / otp - 8 / (8 - N)) < 1e-9, (tot, otp)
assert abs(rs["reasoning_token_throughput"] + otp - tot) < 1e-6 * tot, rs
PY
# a run without reasoning has no reasoning block and no per-request reasoning keys
rm -f url
"$GENPERF" serve --quiet --port 0 --port-file url --zero-delay >/dev/null 2>&1 &
pid=$!; PIDS+=($pid)
wait_file url 10 || fail "serve did not start"
"$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$(cat url)" --endpoint-type chat --streaming \
  --isl 16 --osl 8 --request-count 4 --artifact-dir b >b.out 2>&1 || fail "profile without reasoning"
python3 - "$(find b -name '*_genperf.json')" "$(find b -name '*_records.jsonl')" <<'PY' || fail "reasoning block without reasoning"
import json, sys
assert "reasoning" not in json.load(open(sys.argv[1]))
for l in open(sys.argv[2]):
    assert "ttfr_ns" not in json.loads(l)
PY
echo ok
