# Several tokens per chunk (issue 31 item 5): `genperf serve --stream-interval N`
# sends the first token alone, then N tokens per event (chunking: SGLang's
# --stream-interval, vLLM's output merging under load). Ground truth for 11
# tokens at N = 3: events of 1, 3, 3, 3, 1 tokens. <stem>_genperf.json's
# tokens_per_chunk must be exactly that distribution, GenAI-Perf's per-request
# ITL must keep its formula, and a run with one token per event has no
# tokens_per_chunk key.
# Chunking is not speculative decoding (issue 38 item 8): without serve's
# speculative mode /metrics has no spec-decode metric (vllm or sglang flavour)
# and the telemetry no acceptance figure. In speculative mode
# (--stream-interval-max M) the vllm:spec_decode_* counters read each chunk
# after the first as one verify step of M - 1 drafts: the client's count of
# every event must agree with them exactly.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --ttft-ms 5 --itl-ms 5 --stream-interval 3
[ "$SERVER" = serve ] || fail "genperf serve did not start"
cd "$TMPDIR"
run() { # dir
  "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
    --synthetic-input-tokens-mean 8 --output-tokens-mean 11 --genperf-output-tokens-deterministic \
    --concurrency 2 --request-count 8 --artifact-dir "$1" --server-metrics-urls "$URL/metrics" \
    --telemetry-interval 0.2 >/dev/null 2>"$1.err" || { cat "$1.err"; fail "profile $1"; }
}
run multi
python3 - multi <<'PY' || fail "multi-token chunks"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
gp = json.load(open(glob.glob(d + "*_genperf.json")[0]))
ga = json.load(open(glob.glob(d + "*_genai_perf.json")[0]))
t = gp["tokens_per_chunk"]
want = sorted([1, 3, 3, 3, 1] * 8)
assert t["unit"] == "tokens" and t["count"] == len(want), t
assert t["avg"] == sum(want) / len(want) == 2.2, t
assert (t["min"], t["p25"], t["p50"], t["max"]) == (1.0, 1.0, 3.0, 3.0), t
assert ga["output_sequence_length"]["avg"] == 11, ga["output_sequence_length"]
# ITL stays GenAI-Perf's: (latency - TTFT) / (OSL - 1), per request
for l in open(glob.glob(d + "*_records.jsonl")[0]):
    r = json.loads(l)
    assert r["osl"] == 11, r
    assert r["itl_ns"] == round((r["request_latency_ns"] - r["ttft_ns"]) / 10), r
# the per-chunk gaps beside it: at most one per event after the first
assert 0 < gp["inter_chunk_latency"]["count"] <= 4 * 8, gp["inter_chunk_latency"]
# chunking, not speculation: no acceptance figure anywhere
src = gp["telemetry"]["server"]["sources"][0]
assert src["used_for"] == "server", src
assert "spec_decode" not in src, src
m = gp["telemetry"]["metrics"]
assert not [k for k in m if "spec_decode" in k], sorted(m)
PY
if command -v curl >/dev/null; then
  curl -s "$URL/metrics" >metrics.txt || fail "scrape /metrics"
  grep -q '^vllm:num_requests_running' metrics.txt || fail "no vllm metrics"
  grep -q 'spec_decode' metrics.txt && fail "vllm flavour exports spec_decode counters for plain chunking"
fi
stop_serve
start_serve --ttft-ms 5 --itl-ms 5
run single
python3 - single <<'PY' || fail "one token per chunk"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
gp = json.load(open(glob.glob(d + "*_genperf.json")[0]))
assert "tokens_per_chunk" not in gp, gp.get("tokens_per_chunk")
assert "spec_decode" not in gp["telemetry"]["server"]["sources"][0], gp["telemetry"]["server"]
PY
stop_serve
# a random N (--stream-interval-max 4: 1 to 4 tokens per step, 3 drafts each):
# the client's count of every event must agree with the server's counters
start_serve --ttft-ms 5 --itl-ms 5 --stream-interval 1 --stream-interval-max 4 --seed 3
[ "$SERVER" = serve ] || fail "genperf serve --stream-interval-max did not start"
run random
python3 - random <<'PY' || fail "random tokens per chunk"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
gp = json.load(open(glob.glob(d + "*_genperf.json")[0]))
t, sd = gp["tokens_per_chunk"], gp["telemetry"]["server"]["sources"][0]["spec_decode"]
n, osl = 8, 11
steps = t["count"] - n                      # every event after each request's first token
assert sd["drafts"] == steps and sd["draft_tokens"] == 3 * steps, (t, sd)
assert sd["accepted_tokens"] == (osl - 1) * n - steps, (t, sd)
assert t["avg"] * t["count"] == osl * n and t["min"] == 1 and t["max"] <= 4, t
assert len({t["p25"], t["p50"], t["p75"], t["max"]}) > 1, t   # not one fixed size
assert abs(sd["mean_acceptance_length"] - (osl - 1) * n / steps) < 1e-12, sd
PY
stop_serve
"$GENPERF" serve --stream-interval 3 --stream-interval-max 2 >/dev/null 2>err.txt && fail "max below interval accepted"
grep -q -- "--stream-interval-max 2 is below --stream-interval 3" err.txt || fail "max below interval: message"
# SGLang: plain chunking has no spec_accept_length; speculative mode's gauge is
# tokens per verify step (3 tokens, 2 drafts per step: 3.0)
start_serve --ttft-ms 5 --itl-ms 5 --stream-interval 3 --flavor sglang
run sglang
python3 - sglang <<'PY' || fail "sglang chunking"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
gp = json.load(open(glob.glob(d + "*_genperf.json")[0]))
assert gp["tokens_per_chunk"]["max"] == 3, gp["tokens_per_chunk"]
assert not [k for k in gp["telemetry"]["metrics"] if "spec_decode" in k], sorted(gp["telemetry"]["metrics"])
PY
command -v curl >/dev/null && { curl -s "$URL/metrics" | grep -q 'spec_accept' && fail "sglang flavour exports spec_accept_length for plain chunking"; }
stop_serve
start_serve --ttft-ms 5 --itl-ms 5 --stream-interval 3 --stream-interval-max 3 --flavor sglang
run sglang_spec
command -v curl >/dev/null && { curl -s "$URL/metrics" | grep -q '^sglang:spec_accept_length{.*} 2.500000$' || fail "sglang spec_accept_length"; }
echo ok
