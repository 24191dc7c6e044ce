#!/usr/bin/env bash
# SGLang (python3 -m shim) and TRT-LLM fakes: right argv, readiness path, a run.
set -eu
cd "$TMPDIR"
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH" FAKE_ARGV_LOG="$TMPDIR/argv.log"
for fw in sglang trtllm; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  : > argv.log
  cat > $fw.yaml <<Y
model: sim
tokenizer: builtin
framework: $fw
hardware: {gpus: 2}
concurrency: 2
isl: 16
osl: 4
requests: 4
port: $port
ready_timeout_s: 30
artifact_dir: $TMPDIR/arts-$fw
Y
  "$GENPERF" run $fw.yaml | tee out-$fw.txt
  case $fw in
    sglang) grep -qx -- '--model-path' argv.log; grep -qx -- '--tp-size' argv.log
            grep -q '/health_generate' <("$GENPERF" run $fw.yaml --dry-run) ;;
    trtllm) grep -qx -- '--tp_size' argv.log ;;
  esac
  ls "$TMPDIR"/arts-$fw/$fw/c2_isl16_osl4/*/*_genai_perf.json
done
