#!/usr/bin/env bash
# genperf run --dry-run prints each recipe's server command and each cell's
# profile command exactly; unknown frameworks and missing executables fail clearly.
set -eu
cd "$TMPDIR"
cat > s.yaml <<'Y'
name: t
model: Org/M-8B
framework: vllm
hardware: {gpus: 2}
engine_args: {max_model_len: 4096, dtype: auto}
concurrency: [1, 4]
isl: 64
osl: 16
api_key: KEY
artifact_dir: arts
Y
out=$("$GENPERF" run s.yaml --dry-run)
echo "$out"
grep -qx 'vllm serve Org/M-8B --tensor-parallel-size 2 --max-model-len 4096 --dtype auto --port 8000 --host 127.0.0.1 --api-key \*\*\*' <<<"$out"
# the scenario's api_key is in no printed line (profiles get it as $GENPERF_API_KEY)
[ "$(grep -v 'GENPERF_API_KEY' <<<"$out" | grep -c 'KEY')" -eq 0 ]
[ "$(grep -c ' profile -m Org/M-8B ' <<<"$out")" -eq 2 ]
grep -q -- "--concurrency 4 --random-seed 0 --extra-inputs ignore_eos:true --extra-inputs min_tokens:16 --profile-export-file profile_export_c4_isl64_osl16.json --artifact-dir arts/t/c4_isl64_osl16" <<<"$out"
grep -q -- "--request-count 200 --num-dataset-entries 200" <<<"$out"
# the printed profile line is runnable as printed: its first word is an executable
first=$(grep ' profile -m ' <<<"$out" | head -n1 | cut -d' ' -f1)
[ -x "$first" ]
sed 's/framework: vllm/framework: tgi/' s.yaml > bad.yaml
if "$GENPERF" run bad.yaml --dry-run 2>err.txt; then echo "unknown framework accepted"; exit 1; fi
grep -q "unknown framework 'tgi'; known: " err.txt
# a real run with no vllm on PATH: clear error naming the executable, exit 1
if PATH=/usr/bin:/bin "$GENPERF" run s.yaml 2>err2.txt; then echo "missing vllm accepted"; exit 1; fi
cat err2.txt
grep -q "server executable 'vllm' not found on PATH" err2.txt
echo "scenario error:"; printf 'model: m\nframework: vllm\n' > e.yaml
if "$GENPERF" run e.yaml 2>err3.txt; then exit 1; fi
grep -q "e.yaml: 'concurrency' is required" err3.txt
# GPU count (TP) from NVML when hardware.gpus is not given: the fake NVML says 4
printf 'model: m\nframework: vllm\nconcurrency: 1\nisl: 8\nosl: 4\n' > nogpu.yaml
fake="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
if [ -f "$fake" ]; then
  GENPERF_NVML_LIB=$fake GENPERF_FAKE_NVML_DEVICES=4 "$GENPERF" run nogpu.yaml --dry-run | grep -q -- '--tensor-parallel-size 4'
fi
GENPERF_NVML_LIB=/nonexistent/libnvidia-ml.so.1 "$GENPERF" run nogpu.yaml --dry-run 2>err4.txt && exit 1
grep -q "no GPU was detected through NVML" err4.txt
