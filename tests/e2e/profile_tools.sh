# Tool calling and structured output (issue 31 item 3) against genperf serve:
# --tools / --synthetic-tools / --tool-choice / --response-format-schema put
# their keys into every chat body, shaped as OpenAI's Chat Completions
# reference defines them; serve answers a request with tools by one tool
# call whose arguments are the asked number of tokens, and those arguments
# are the measured output (OSL = max_tokens, the name-only head is no token),
# streamed and not; a key given twice (flag and --extra-inputs) is refused.
. "$GP_ROOT/tests/e2e/profile_common.inc"
# (vLLM flavour: tool_choice "auto", also the default with tools, needs this, as on vLLM)
start_serve --tokenizer builtin --itl-ms 1 --enable-auto-tool-choice
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
cat >tools.json <<'J'
[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},
 {"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}]
J
cat >person.json <<'J'
{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"]}
J
common=(-m m --url "$URL" --tokenizer builtin --synthetic-input-tokens-mean 16 --output-tokens-mean 12
        --genperf-output-tokens-deterministic --request-count 4)

# streamed, a named function forced
"$GENPERF" profile "${common[@]}" --streaming --tools tools.json --tool-choice get_time \
  --artifact-dir a1 >out1.txt 2>&1
rc=$?; check_rc $rc 0 || { cat out1.txt; }
d=a1/m-openai-chat-concurrency1
python3 - $d <<'PY' || fail "streamed tool calls"
import json, sys
d = sys.argv[1]
exp = json.load(open(d + "/profile_export.json"))["experiments"][0]["requests"]
tools = json.load(open("tools.json"))
for r in exp:
    b = json.loads(r["request_inputs"]["payload"])
    # the reference: tools is an array of {"type":"function","function":{name, description?, parameters?}}
    assert b["tools"] == tools, b["tools"]
    assert b["tool_choice"] == {"type": "function", "function": {"name": "get_time"}}, b["tool_choice"]
    assert b["stream"] is True and b["max_tokens"] == 12 and "response_format" not in b, b
    first = json.loads(r["response_outputs"][0]["response"][len("data: "):])
    tc = first["choices"][0]["delta"]["tool_calls"][0]
    assert tc["function"] == {"name": "get_time", "arguments": ""} and tc["type"] == "function", tc
recs = [json.loads(l) for l in open(d + "/profile_export_records.jsonl")]
assert len(recs) == 4
for x in recs:
    assert x["status"] == "ok", x
    # 12 argument fragments: OSL and content chunks; the head (name only) is not one
    assert x["osl"] == 12 and x["osl_asked"] == 12 and x["content_chunks"] == 12, x
    assert x["ttft_ns"] == x["content_ns"][0] and x["ttft_ns"] > 0, x
PY

# not streamed: message.tool_calls; synthetic tools, tool_choice auto, a schema
"$GENPERF" profile "${common[@]}" --synthetic-tools 3 --tool-choice auto \
  --response-format-schema person.json --artifact-dir a2 >out2.txt 2>&1
rc=$?; check_rc $rc 0 || { cat out2.txt; }
d=a2/m-openai-chat-concurrency1
python3 - $d <<'PY' || fail "non-streamed tool calls"
import json, sys
d = sys.argv[1]
exp = json.load(open(d + "/profile_export.json"))["experiments"][0]["requests"]
for r in exp:
    b = json.loads(r["request_inputs"]["payload"])
    assert [t["function"]["name"] for t in b["tools"]] == ["tool_0", "tool_1", "tool_2"], b["tools"]
    for t in b["tools"]:
        assert t["type"] == "function" and t["function"]["parameters"]["type"] == "object", t
    assert b["tool_choice"] == "auto", b
    rf = b["response_format"]
    # the reference: {"type":"json_schema","json_schema":{"name","schema","strict"}}
    assert rf["type"] == "json_schema" and set(rf["json_schema"]) == {"name", "schema", "strict"}, rf
    assert rf["json_schema"]["name"] == "person" and rf["json_schema"]["strict"] is True, rf
    assert rf["json_schema"]["schema"] == json.load(open("person.json")), rf
    assert "stream" not in b, b
    body = json.loads(r["response_outputs"][0]["response"])
    ch = body["choices"][0]
    assert ch["finish_reason"] == "tool_calls" and ch["message"]["tool_calls"][0]["function"]["name"] == "tool_0", ch
recs = [json.loads(l) for l in open(d + "/profile_export_records.jsonl")]
for x in recs:
    assert x["status"] == "ok" and x["osl"] == 12, x
PY

# tool_choice none: serve answers with content, the body still carries the tools
"$GENPERF" profile "${common[@]}" --streaming --tools tools.json --tool-choice none --artifact-dir a3 >out3.txt 2>&1
rc=$?; check_rc $rc 0 || { cat out3.txt; }
python3 - a3/m-openai-chat-concurrency1 <<'PY' || fail "tool_choice none"
import json, sys
r = json.load(open(sys.argv[1] + "/profile_export.json"))["experiments"][0]["requests"][0]
assert json.loads(r["request_inputs"]["payload"])["tool_choice"] == "none"
assert all("tool_calls" not in o["response"] for o in r["response_outputs"]), r["response_outputs"][:2]
PY

# per-row JSONL inputs keep working with the flags (and --extra-inputs beside them)
printf '{"text": "first row"}\n{"text": "second row"}\n' >rows.jsonl
"$GENPERF" profile "${common[@]}" --streaming --input-file rows.jsonl --tools tools.json \
  --extra-inputs temperature:0.5 --artifact-dir a4 >out4.txt 2>&1
rc=$?; check_rc $rc 0 || { cat out4.txt; }
python3 - a4 <<'PY' || fail "input file rows"
import glob, json, sys
exp = json.load(open(glob.glob(sys.argv[1] + "/*/profile_export.json")[0]))["experiments"][0]["requests"]
texts = set()
for r in exp:
    b = json.loads(r["request_inputs"]["payload"])
    texts.add(b["messages"][0]["content"])
    assert b["temperature"] == 0.5 and b["tools"][0]["function"]["name"] == "get_weather", b
assert texts == {"first row", "second row"}, texts
PY

# structured output against serve's ground truth: serve answers json_schema
# requests with JSON of max_tokens tokens and cuts a seeded share short
# (--invalid-json-rate); the client counts exactly those, fails none
stop_serve
start_serve --tokenizer builtin --itl-ms 0 --invalid-json-rate 0.3 --seed 5 --timing-log "$TMPDIR/timing.jsonl"
# (the third run gives the same response_format through --extra-inputs: checked the same way)
rf=$(python3 -c 'import json; print(json.dumps({"response_format": {"type": "json_schema", "json_schema":
  {"name": "person", "schema": json.load(open("person.json")), "strict": True}}}))')
for mode in stream plain extra; do
  flag=(--response-format-schema person.json)
  [ $mode = stream ] && flag+=(--streaming)
  [ $mode = extra ] && flag=(--streaming --extra-inputs "$rf")
  # 60 tokens: the byte tokenizer spends 22 on the JSON around the words
  "$GENPERF" profile -m m --url "$URL" --tokenizer builtin --synthetic-input-tokens-mean 16 \
    --output-tokens-mean 60 --genperf-output-tokens-deterministic "${flag[@]}" --request-count 20 \
    --artifact-dir s_$mode >so_$mode.txt 2>&1
  rc=$?; check_rc $rc 0 || cat so_$mode.txt
  grep -q 'genperf: structured output: [0-9]* of 20 ok responses not JSON, 0 not matching the schema' so_$mode.txt \
    || { cat so_$mode.txt; fail "structured output console line ($mode)"; }
done
stop_serve
python3 - "$TMPDIR/timing.jsonl" s_stream s_plain s_extra <<'PY' || fail "structured output counts"
import glob, json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
assert len(log) == 60, len(log)
cut = [0, 0, 0]  # per run: the runs are sequential, seq 0-19, 20-39, 40-59
for x in log:
    assert x["structured"] in ("json", "json_cut"), x
    cut[x["seq"] // 20] += x["structured"] == "json_cut"
    assert x["completion_tokens"] == 60, x
assert all(0 < c < 20 for c in cut), cut
for run, d in enumerate(sys.argv[2:]):
    g = json.load(open(glob.glob(d + "/*/profile_export_genperf.json")[0]))
    assert g["structured_output"] == {"requests": 20, "invalid_json": cut[run], "schema_mismatch": 0}, (d, g["structured_output"], cut)
    assert g["requests"]["failed"] == 0 and g["requests"]["ok"] == 20, g["requests"]
    recs = [json.loads(l) for l in open(glob.glob(d + "/*/profile_export_records.jsonl")[0])]
    assert all(r["osl"] == 60 and r["status"] == "ok" for r in recs), [r["osl"] for r in recs]
PY
# a run without a schema has no structured_output block
python3 - a1 <<'PY' || fail "structured_output without a schema"
import glob, json, sys
assert "structured_output" not in json.load(open(glob.glob(sys.argv[1] + "/*/profile_export_genperf.json")[0]))
PY

# the same key from a flag and from --extra-inputs: refused, naming both
"$GENPERF" profile "${common[@]}" --tools tools.json --extra-inputs '{"tools": []}' >out5.txt 2>&1
rc=$?; [ $rc -ne 0 ] || fail "tools given twice accepted"
grep -q -- '--tools: the request.s "tools" is already set' out5.txt || { cat out5.txt; fail "conflict message"; }
"$GENPERF" profile "${common[@]}" --tool-choice auto >out6.txt 2>&1
rc=$?; [ $rc -ne 0 ] || fail "--tool-choice without tools accepted"
grep -q -- 'no tools are sent' out6.txt || { cat out6.txt; fail "tool-choice message"; }
"$GENPERF" profile "${common[@]}" --endpoint-type completions --tools tools.json >out7.txt 2>&1
rc=$?; [ $rc -ne 0 ] || fail "--tools with completions accepted"
echo ok
