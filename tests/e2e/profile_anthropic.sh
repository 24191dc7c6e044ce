# --endpoint-type anthropic_messages against `genperf serve`'s POST /v1/messages
# (issue 31 item 2). serve answers only with the right x-api-key (else 401), so every
# request ok proves it went out; anthropic-version is checked in the headers recorded
# (the vllm flavour, like vLLM, does not require it: issue 39 item 6).
#  1. streamed: OSL exactly --output-tokens-mean (text deltas), ISL exact, the
#     request bodies' keys are the Messages API's (model, max_tokens,
#     messages, stream; messages[0] role, content), each request's first
#     text_delta stamped within 30 ms of serve's ground truth (--timing-log)
#     and TTFT p50 at least serve's --ttft-ms;
#  2. streamed with --reasoning 3: thinking deltas are reasoning, not output
#     (OSL 17 of 20 tokens, TTFR reported before TTFT);
#  3. non-streamed: content[].text, OSL exact, usage read;
# and in every run the key (from GENPERF_API_KEY) reaches no artifact file,
# nor stdout/stderr; input_config shows "x-api-key: ***".
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
KEY=sk-ant-e2e-SECRET-4711

run() { # name, serve args, then profile args
  local name=$1 sargs=$2; shift 2
  start_serve --ttft-ms 20 --itl-ms 2 --api-key "$KEY" --tokenizer builtin --timing-log "$TMPDIR/$name.truth" $sargs --quiet
  [ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
  GENPERF_API_KEY=$KEY "$GENPERF" profile -m m --url "$URL" --endpoint-type anthropic_messages --tokenizer builtin \
    --synthetic-input-tokens-mean 16 --output-tokens-mean 20 --concurrency 2 --request-count 8 \
    --artifact-dir "$name" "$@" >"$name.out" 2>"$name.err"
  local rc=$?
  stop_serve
  [ $rc -eq 0 ] || { cat "$name.err"; fail "$name: exit $rc"; }
  ! grep -rl -- "$KEY" "$name" "$name.out" "$name.err" || fail "$name: the x-api-key value reached an artifact or the console"
  check_artifacts "$name"/*/ 8
}

check() { # name, osl, streamed
  python3 - "$1"/*/ "$TMPDIR/$1.truth" "$2" "$3" <<'PY' || fail "$1"
import json, re, sys, time
d, log, osl, streamed = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "1"
g = json.load(open(d + "profile_export_genai_perf.json"))
assert g["output_sequence_length"]["avg"] == osl and g["output_sequence_length"]["min"] == osl, g["output_sequence_length"]
assert g["input_sequence_length"]["avg"] == 16.0, g["input_sequence_length"]
assert g["request_count"]["avg"] == 8.0, g["request_count"]
ep = g["input_config"]["endpoint"]
assert ep["type"] == "anthropic_messages" and ep["custom"] == "v1/messages", ep
hdr = g["input_config"]["input"]["header"]
assert "x-api-key: ***" in hdr and "anthropic-version: 2023-06-01" in hdr, hdr
# request bodies, key by key (docs.anthropic.com, Messages API: model,
# max_tokens, messages [{role, content}], stream)
for e in json.load(open(d + "inputs.json"))["data"]:
    b = e["payload"][0]
    want = ["model", "max_tokens", "messages"] + (["stream"] if streamed else [])
    assert list(b) == want, list(b)
    assert b["max_tokens"] == 20 and b["model"] == "m" and (b.get("stream") is True) == streamed, b
    assert len(b["messages"]) == 1 and list(b["messages"][0]) == ["role", "content"], b["messages"]
    assert b["messages"][0]["role"] == "user" and isinstance(b["messages"][0]["content"], str)
truth = [json.loads(l) for l in open(log)]
assert len(truth) == 8 and all(t["outcome"] == "ok" and t["status"] == 200 for t in truth), truth[:1]
assert all(t["endpoint"] == "anthropic_messages" for t in truth)
if streamed:
    ttft = g["time_to_first_token"]["p50"]
    assert 19.5 <= ttft <= 80, ttft
    off = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    first_text = {}
    for t in truth:
        # chunk i of kinds; with --reasoning the first C chunks are thinking
        cs = [ns for ns, k in zip(t["chunks_ns"], t["kinds"]) if k == "C"]
        first_text[t["id"]] = cs[t.get("reasoning_tokens", 0) or 0] if cs else None
    reqs = json.load(open(d + "profile_export.json"))["experiments"][0]["requests"]
    worst = 0
    for q in reqs:
        rid, got = None, None
        for ts, out in zip(q["response_timestamps"], q["response_outputs"]):
            m = re.search(r'"id":"(msg_[^"]+)"', out["response"])
            rid = rid or (m and m.group(1))
            if got is None and '"text_delta"' in out["response"]:
                got = ts - off
        assert rid and got, (rid, got)
        if first_text[rid] is not None and "reasoning" not in d:
            worst = max(worst, abs(got - first_text[rid]) / 1e6)
    print("%s: TTFT p50 %.2f ms, worst first-text stamp vs serve %.2f ms" % (d, ttft, worst))
    assert worst <= 30, worst
PY
}

run stream ""  --streaming
check stream 20 1
run reasoning "--reasoning 3" --streaming
check reasoning 17 1
grep -q "8 of 8 requests reasoned" reasoning.err || { cat reasoning.err; fail "thinking deltas were not read as reasoning"; }
python3 - reasoning/*/profile_export_genperf.json <<'PY' || fail "reasoning figures"
import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
assert "reasoning" in s, "no reasoning block in _genperf.json"
PY
run nonstream ""
check nonstream 20 0
echo ok
