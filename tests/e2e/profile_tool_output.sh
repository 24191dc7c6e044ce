#!/usr/bin/env bash
# A tool call and a refusal are output on every API (issue 38 items 1 and 2), against
# tests/e2e/api_replay_stub.py (genperf serve answers tool calls in chat's shape only, and no
# refusals): Anthropic tool_use (input_json_delta; tool_use.input not streamed), Responses
# function_call (response.function_call_arguments.delta; function_call.arguments), each
# tool-only and after some text, a Responses refusal and a chat refusal, streamed and not. Every
# request is counted (request_count 4, none "ok without content", no warning), its OSL is the
# arguments' / refusal's bytes (+ the text's; the builtin tokenizer counts bytes), and its latency
# ends at its last content chunk. Before the fix these runs exited 0 with request count 0 (or an
# OSL and latency that stopped at the text).
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
LOG="$TMPDIR/replay.log"; : >"$LOG"
python3 "$GP_ROOT/tests/e2e/api_replay_stub.py" --port-file "$TMPDIR/url" --log "$LOG" &
PIDS+=($!)
wait_file "$TMPDIR/url" 10 || fail "replay stub did not start"
URL=$(head -n1 "$TMPDIR/url")

ARGS=36    # len('{"city": "Paris", "unit": "celsius"}')
TEXT=21    # len("Let me look that up. ")
REFUSAL=31 # len("I can't help with that request.")

run() { # model endpoint-type osl [--streaming]
  local model=$1 ep=$2 osl=$3; shift 3
  local name="$model${1:+-s}"
  "$GENPERF" profile -m "$model" --endpoint-type "$ep" --url "$URL" --tokenizer builtin \
    --synthetic-input-tokens-mean 8 --output-tokens-mean 16 --request-count 4 --artifact-dir "a.$name" "$@" \
    >"o.$name" 2>"e.$name"
  local rc=$?
  [ $rc -eq 0 ] || { cat "e.$name"; fail "$name: exit $rc"; }
  ! grep -q "carried content" "e.$name" "o.$name" || { cat "e.$name"; fail "$name: an 'ok without content' warning"; }
  local d; d=$(ls -d a.$name/*/)
  check_artifacts "$d" 4
  python3 - "$d" "$osl" "$name" <<'PY' || fail "$name"
import glob, json, os, sys
d, osl, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
one = lambda p: json.load(open(glob.glob(os.path.join(d, p))[0]))
G, J = one("*_genperf.json"), one("*_genai_perf.json")
R = [json.loads(l) for l in open(glob.glob(os.path.join(d, "*_records.jsonl"))[0])]
assert J["request_count"]["avg"] == 4.0, (name, J["request_count"])
assert G["requests"]["ok"] == 4 and G["requests"]["ok_without_content"] == 0, (name, G["requests"])
assert J["output_sequence_length"]["avg"] == osl and J["output_sequence_length"]["min"] == osl, \
    (name, J["output_sequence_length"])
for r in R:
    assert r["status"] == "ok" and r["osl"] == osl and r["content_chunks"] >= 1, (name, r)
    # the first content chunk is the first token; the latency runs to the last one
    assert r["ttft_ns"] == r["content_ns"][0] and r["request_latency_ns"] == r["content_ns"][-1], (name, r)
PY
  echo "$name: ok"
}

for s in "" --streaming; do
  run anth_tool anthropic_messages $ARGS $s
  run anth_mixed anthropic_messages $((TEXT + ARGS)) $s
  run resp_tool responses $ARGS $s
  run resp_mixed responses $((TEXT + ARGS)) $s
  run resp_refusal responses $REFUSAL $s
  run chat_refusal chat $REFUSAL $s
done
# every answer came from the stub, streamed and not, on each API's path
for want in "/v1/messages anth_tool stream" "/v1/messages anth_mixed body" "/v1/responses resp_tool stream" \
            "/v1/responses resp_refusal body" "/v1/chat/completions chat_refusal stream"; do
  grep -q "^$want\$" "$LOG" || fail "the stub never answered: $want"
done
echo "tool output: ok"
