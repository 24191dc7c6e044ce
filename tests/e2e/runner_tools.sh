#!/usr/bin/env bash
# Issue 39 item 5: tool workloads as the engines need them. A scenario whose
# profile_args send tools gets the engine's tool-call flags with its
# tool_call_parser (refused without one); `genperf serve --flavor vllm`
# refuses tool_choice "auto" without --enable-auto-tool-choice, as vLLM does,
# and ends a named-tool answer with finish_reason "stop".
set -eu
cd "$TMPDIR"
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH" FAKE_ARGV_LOG="$TMPDIR/argv.log"
cat > base.yaml <<'Y'
model: m
hardware: {gpus: 1}
concurrency: 1
isl: 8
osl: 4
artifact_dir: arts
profile_args: [--synthetic-tools, "2", --tool-choice, auto]
Y
declare -A want=([vllm]='--enable-auto-tool-choice --tool-call-parser hermes' [sglang]='--tool-call-parser hermes'
                 [trtllm]='--tool_parser hermes')
for fw in vllm sglang trtllm; do
  { echo "framework: $fw"; cat base.yaml; } > $fw.yaml
  # no parser: refused before anything starts, naming the fix
  if "$GENPERF" run $fw.yaml --dry-run >out.txt 2>err-$fw.txt; then cat out.txt; echo "$fw: tools without a parser accepted"; exit 1; fi
  grep -q "set tool_call_parser: NAME" err-$fw.txt || { cat err-$fw.txt; exit 1; }
  echo "tool_call_parser: hermes" >> $fw.yaml
  out=$("$GENPERF" run $fw.yaml --dry-run)
  grep -qF -- " ${want[$fw]}" <<<"$(grep -v "^#" <<<"$out" | head -n1)" || { echo "$out"; echo "$fw: no tool flags"; exit 1; }
done
# tool_choice none: nothing to parse, no flags, no refusal
sed 's/--tool-choice, auto/--tool-choice, none/' base.yaml > n.yaml; sed -i '1i framework: vllm' n.yaml
! "$GENPERF" run n.yaml --dry-run | grep -q -- '--tool-call-parser'
# a parser already passed through engine_args counts, and is not repeated
{ echo "framework: vllm"; echo "engine_args: {tool_call_parser: llama3_json}"; cat base.yaml; } > e.yaml
line=$("$GENPERF" run e.yaml --dry-run | grep '^vllm serve')
[ "$(grep -o -- '--tool-call-parser' <<<"$line" | wc -l)" = 1 ] && grep -q -- '--enable-auto-tool-choice' <<<"$line" || { echo "$line"; exit 1; }

# serve's vLLM flavour answers as vLLM does
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
tools='[{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}]'
for tc in '"auto"' absent; do
  body="{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4,\"tools\":$tools"
  [ "$tc" = absent ] || body+=",\"tool_choice\":$tc"
  code=$(curl -s -o resp.json -w '%{http_code}' -H 'Content-Type: application/json' -d "$body}" "$url/v1/chat/completions")
  [ "$code" = 400 ] || { cat resp.json; echo "tool_choice $tc answered $code"; exit 1; }
  grep -q '"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' resp.json
done
named="{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4,\"stream\":true,\"tools\":$tools,\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}}"
curl -sN -H 'Content-Type: application/json' -d "$named" "$url/v1/chat/completions" > named.sse
grep -q '"tool_calls"' named.sse
grep -q '"finish_reason":"stop"' named.sse || { cat named.sse; echo "named tool stream not ended with stop"; exit 1; }
! grep -q '"finish_reason":"tool_calls"' named.sse
kill $spid; wait $spid 2>/dev/null || true
# with the flag "auto" is answered with a tool call
rm -f "$TMPDIR/url"
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 --enable-auto-tool-choice >serve2.log 2>&1 &
spid=$!
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
curl -s -H 'Content-Type: application/json' -d "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4,\"tools\":$tools}" \
  "$url/v1/chat/completions" > auto.json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["choices"][0]; assert c["finish_reason"] == "tool_calls" and c["message"]["tool_calls"], c' auto.json
kill $spid; wait $spid 2>/dev/null || true

# a run through the fake vllm: the recipe's flags reach the server, every request succeeds
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > r.yaml <<Y
model: sim
tokenizer: builtin
framework: vllm
hardware: {gpus: 1}
concurrency: 1
isl: 8
osl: 4
requests: 3
port: $port
ready_timeout_s: 30
tool_call_parser: hermes
profile_args: [--synthetic-tools, "2"]
artifact_dir: $TMPDIR/arts
Y
: > argv.log
"$GENPERF" run r.yaml > r.txt 2>&1 || { cat r.txt; exit 1; }
grep -qx -- '--enable-auto-tool-choice' argv.log
python3 - "$TMPDIR"/arts/r/c1_isl8_osl4 <<'PY'
import glob, json, sys
recs = [json.loads(l) for f in glob.glob(sys.argv[1] + "/*/*_records.jsonl") for l in open(f)]
assert recs and all(r["status"] == "ok" for r in recs), [r.get("status") for r in recs]
PY
