#!/usr/bin/env bash
# A 3-cell sweep against a fake `vllm` on PATH that becomes `genperf serve`:
# the recorded argv matches the recipe, every cell ran and was ingested, and
# the server is stopped at the end.
set -eu
cd "$TMPDIR"
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH" FAKE_ARGV_LOG="$TMPDIR/argv.log"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > s.yaml <<Y
name: sweep
model: sim-model
tokenizer: builtin
framework: vllm
hardware: {gpus: 1}
engine_args: {max_model_len: 2048}
concurrency: [1, 2, 4]
isl: 32
osl: 8
requests: 8
port: $port
ready_timeout_s: 30
artifact_dir: $TMPDIR/arts
Y
"$GENPERF" run s.yaml | tee out.txt
expected="serve sim-model --tensor-parallel-size 1 --max-model-len 2048 --port $port --host 127.0.0.1"
got=$(awk '$0 == "--" {exit} {printf "%s ", $0}' argv.log)
[ "$got" = "$expected " ] || { echo "recorded argv: $got"; echo "expected:      $expected"; exit 1; }
for c in 1 2 4; do
  ls arts/sweep/c${c}_isl32_osl8/*/profile_export_c${c}_isl32_osl8_genai_perf.json
  ls arts/sweep/c${c}_isl32_osl8/*/genperf_run.json
done
grep -E '^ +4 +32 +8 ' out.txt
# the server is gone and its port is closed
if curl -s -m 2 "http://127.0.0.1:$port/health" >/dev/null; then echo "server still up"; exit 1; fi
n=$("$GENPERF" query --db "$TMPDIR/arts/genperf.db" "SELECT COUNT(*) AS n FROM jobs" | grep -Eo '[0-9]+' | tail -n1)
[ "$n" = 3 ]
