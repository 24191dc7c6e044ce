#!/usr/bin/env bash
# Issue 39 item 1: the cells send the model name the server serves. A scenario
# with served_model_name launches the engine under that name and every cell
# sends it (the fake engine is genperf serve --strict-model, which answers 404
# to any other name, as vLLM does); before the first cell the runner reads
# /v1/models and refuses a name the server does not list, naming what it serves.
set -eu
cd "$TMPDIR"
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH" FAKE_ARGV_LOG="$TMPDIR/argv.log" FAKE_STRICT=1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for fw in vllm sglang; do
  : > argv.log
  cat > $fw.yaml <<Y
name: $fw
model: Org/M-8B
tokenizer: builtin
framework: $fw
hardware: {gpus: 1}
engine_args: {served_model_name: chat-$fw}
concurrency: 2
isl: 16
osl: 4
requests: 4
port: $(free_port)
ready_timeout_s: 30
artifact_dir: $TMPDIR/arts
Y
  dry=$("$GENPERF" run $fw.yaml --dry-run)
  grep -q -- " profile -m chat-$fw --url " <<<"$dry" || { echo "$dry"; echo "FAIL: $fw cells do not send the served name"; exit 1; }
  grep -q -- "--tokenizer builtin " <<<"$dry"
  "$GENPERF" run $fw.yaml > out-$fw.txt 2>&1 || { cat out-$fw.txt; echo "FAIL: $fw run"; exit 1; }
  grep -A1 -x -- '--served-model-name' argv.log | grep -qx "chat-$fw"
  inputs=$(ls arts/$fw/c2_isl16_osl4/*/inputs.json)
  [ "$(grep -c "\"model\": *\"chat-$fw\"" "$inputs")" -eq 4 ] || { echo "FAIL: $fw request bodies"; exit 1; }
  # every request answered: the summary row's failed column is 0
  row=$(awk '$1 == 2 && $2 == 16 && $3 == 4' out-$fw.txt)
  [ "$(awk '{print $NF}' <<<"$row")" = 0 ] || { cat out-$fw.txt; echo "FAIL: $fw requests failed"; exit 1; }
done

# trtllm-serve has no served-name option and serves a local model directory under
# its name: without served_model_name the cells' name is refused, naming that
# name; with it, no flag is passed and the cells send it
mkdir -p models/llama-dir
for named in no yes; do
  cat > trt.yaml <<Y
name: trt
model: $TMPDIR/models/llama-dir
tokenizer: builtin
framework: trtllm
hardware: {gpus: 1}
concurrency: 1
isl: 16
osl: 4
requests: 2
port: $(free_port)
ready_timeout_s: 30
artifact_dir: $TMPDIR/arts
Y
  if [ $named = no ]; then
    if "$GENPERF" run trt.yaml > trt.out 2>&1; then cat trt.out; echo "FAIL: trtllm name mismatch accepted"; exit 1; fi
    grep -q "serves 'llama-dir', not '$TMPDIR/models/llama-dir'" trt.out || { cat trt.out; exit 1; }
    grep -q "stopping the server" trt.out   # the launched server is stopped
  else
    echo 'engine_args: {served_model_name: llama-dir}' >> trt.yaml
    : > argv.log
    "$GENPERF" run trt.yaml > trt.out 2>&1 || { cat trt.out; echo "FAIL: trtllm run"; exit 1; }
    if grep -q served argv.log; then echo "FAIL: trtllm-serve got a served-name flag"; exit 1; fi
    grep -q '"model": *"llama-dir"' arts/trt/c1_isl16_osl4/*/inputs.json
  fi
done

# attach to a server serving another name: refused before the first cell
"$GENPERF" serve --model other-model --strict-model --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 \
  >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
cat > a.yaml <<Y
name: a
model: Org/M-8B
tokenizer: builtin
framework: attach
url: $url
concurrency: 1
isl: 16
osl: 4
requests: 2
artifact_dir: $TMPDIR/arts
Y
if "$GENPERF" run a.yaml >a.out 2>&1; then cat a.out; echo "FAIL: a model the server does not serve was accepted"; exit 1; fi
cat a.out
grep -q "the server at $url serves 'other-model', not 'Org/M-8B', the model every cell would send" a.out
if grep -q "cell 1/1" a.out; then echo "FAIL: a cell ran"; exit 1; fi   # refused before the first cell
[ ! -d arts/a/c1_isl16_osl4 ]
echo PASS
