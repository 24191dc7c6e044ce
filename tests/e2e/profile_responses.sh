# --endpoint-type responses (the OpenAI Responses API, POST /v1/responses)
# against genperf serve and its ground truth (--timing-log):
#  - the bodies are the API reference's, key by key and in order: model,
#    input [{"role":"user","content"}], stream, max_output_tokens, extras;
#  - streamed: ISL and OSL exact (builtin tokenizer), usage from
#    response.completed equal to them, every request ends on
#    response.completed (no "streams without [DONE]"), and each request's
#    TTFT is the server's first output_text delta (client TTFT >= server's,
#    and within 25 ms of it: loopback plus a busy CI host);
#  - reasoning (serve --reasoning 3): the reasoning_text deltas are not
#    content (OSL 12 - 3), they are reasoning tokens (3 per request);
#  - non-streamed: the response object's output_text is the OSL.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"

start_serve --ttft-ms 40 --itl-ms 5 --tokenizer builtin --timing-log "$TMPDIR/truth.jsonl"
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
common=(-m m --endpoint-type responses --tokenizer builtin --synthetic-input-tokens-mean 20
        --output-tokens-mean 12 --request-count 5 --concurrency 1)
"$GENPERF" profile --url "$URL" "${common[@]}" --streaming --extra-inputs temperature:0.5 --artifact-dir s >s.out 2>s.err
check_rc $? 0 || { cat s.err; fail "streamed run"; }
stop_serve
check_artifacts s/* 5
python3 - s/*/ "$TMPDIR/truth.jsonl" <<'PY' || fail "streamed run: artifacts vs ground truth"
import glob, json, sys
d, log = sys.argv[1:3]
p = json.load(open(d + "inputs.json"))["data"]
for row in p:
    body = row["payload"][0]
    assert list(body) == ["model", "input", "stream", "max_output_tokens", "temperature"], list(body)
    assert body["model"] == "m" and body["stream"] is True and body["max_output_tokens"] == 12, body
    assert isinstance(body["input"], list) and len(body["input"]) == 1, body["input"]
    assert list(body["input"][0]) == ["role", "content"] and body["input"][0]["role"] == "user", body["input"]
    assert isinstance(body["input"][0]["content"], str) and body["input"][0]["content"]
g = json.load(open(glob.glob(d + "*_genai_perf.json")[0]))
assert g["input_sequence_length"]["avg"] == 20, g["input_sequence_length"]
assert g["output_sequence_length"]["min"] == g["output_sequence_length"]["max"] == 12, g["output_sequence_length"]
gp = json.load(open(glob.glob(d + "*_genperf.json")[0]))
assert gp["endpoint"] == "v1/responses", gp["endpoint"]
r = gp["requests"]
assert r["ok"] == r["counted"] == 5 and r["streams_without_done"] == 0 and r["malformed_events"] == 0, r
assert r["with_server_usage"] == 5, r
acc = gp["token_accounting"]
assert acc["osl_vs_completion_tokens"]["disagree"] == 0 and acc["isl_vs_prompt_tokens"]["disagree"] == 0, acc
truth = [json.loads(l) for l in open(log)]
assert len(truth) == 5 and all(t["endpoint"] == "responses" and t["stream"] for t in truth), truth
recs = [json.loads(l) for l in open(glob.glob(d + "*_records.jsonl")[0])]
recs.sort(key=lambda q: q["t_start_ns"])
truth.sort(key=lambda t: t["seq"])
for q, t in zip(recs, truth):  # concurrency 1: the i-th request sent is the server's i-th
    first_c = next(ts for ts, k in zip(t["chunks_ns"], t["kinds"]) if k == "C")
    server = (first_c - t["t_request_ns"]) / 1e6
    client = q["ttft_ns"] / 1e6
    assert q["osl"] == 12 and q["isl"] == 20 and q["server_completion_tokens"] == 12, q
    assert q["content_chunks"] == t["kinds"].count("C") == 12, (q["content_chunks"], t["kinds"])
    assert server - 0.5 <= client <= server + 25, "TTFT %.2f ms, the server sent its first delta at %.2f ms" % (client, server)
print("streamed: 5 requests, OSL 12, ISL 20, TTFT within %.2f ms of the server's first delta"
      % max(q["ttft_ns"] / 1e6 - (next(ts for ts, k in zip(t["chunks_ns"], t["kinds"]) if k == "C") - t["t_request_ns"]) / 1e6
            for q, t in zip(recs, truth)))
PY

# reasoning: 3 of the 12 output tokens are a reasoning item
start_serve --ttft-ms 5 --itl-ms 1 --tokenizer builtin --reasoning 3
"$GENPERF" profile --url "$URL" "${common[@]}" --streaming --artifact-dir r >r.out 2>r.err
check_rc $? 0 || { cat r.err; fail "reasoning run"; }
python3 - r/*/ <<'PY' || fail "reasoning run"
import glob, json, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(glob.glob(d + "*_records.jsonl")[0])]
for q in recs:
    assert q["status"] == "ok" and q["osl"] == 9 and q["reasoning_tokens"] == 3, q
    assert q["server_completion_tokens"] == 12, q
PY

# non-streamed: one response object per request
"$GENPERF" profile --url "$URL" "${common[@]}" --artifact-dir n >n.out 2>n.err
check_rc $? 0 || { cat n.err; fail "non-streamed run"; }
stop_serve
python3 - n/*/ <<'PY' || fail "non-streamed run"
import glob, json, sys
d = sys.argv[1]
body = json.load(open(d + "inputs.json"))["data"][0]["payload"][0]
assert list(body) == ["model", "input", "max_output_tokens"], list(body)
recs = [json.loads(l) for l in open(glob.glob(d + "*_records.jsonl")[0])]
for q in recs:
    assert q["status"] == "ok" and q["osl"] == 9 and q["reasoning_tokens"] == 3, q
    assert q["ttft_ns"] == q["request_latency_ns"], q
PY
echo "ok"
