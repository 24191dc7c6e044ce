#!/usr/bin/env bash
# Issue 39 item 3: one scenario's common engine args in each engine's own words
# (vLLM arg_utils.py, SGLang server_args.py, trtllm-serve serve.py; the versions
# are in recipes/*.yaml and docs/runner.md), what TensorRT-LLM has only as an
# LLM-API option in the --extra_llm_api_options YAML, and a pass-through name an
# engine does not declare refused before launch with its nearest option.
set -eu
cd "$TMPDIR"
args='{max_model_len: 4096, gpu_memory_utilization: 0.85, enable_chunked_prefill: false, enable_prefix_caching: false, max_num_seqs: 128, dtype: bfloat16}'
for fw in vllm sglang trtllm; do
  printf 'name: t\nmodel: Org/M-8B\nframework: %s\nhardware: {gpus: 2}\nengine_args: %s\nconcurrency: 1\nisl: 8\nosl: 4\nartifact_dir: arts\n' \
    "$fw" "$args" > $fw.yaml
  "$GENPERF" run $fw.yaml --dry-run > $fw.out
  cat $fw.out
done
grep -qx 'vllm serve Org/M-8B --tensor-parallel-size 2 --max-model-len 4096 --gpu-memory-utilization 0.85 --max-num-seqs 128 --dtype bfloat16 --no-enable-chunked-prefill --no-enable-prefix-caching --port 8000 --host 127.0.0.1' vllm.out
grep -qx 'python3 -m sglang.launch_server --model-path Org/M-8B --tp-size 2 --context-length 4096 --mem-fraction-static 0.85 --max-running-requests 128 --dtype bfloat16 --chunked-prefill-size -1 --disable-radix-cache --enable-metrics --port 30000 --host 127.0.0.1' sglang.out
grep -qx 'trtllm-serve Org/M-8B --tp_size 2 --max_seq_len 4096 --kv_cache_free_gpu_memory_fraction 0.85 --max_batch_size 128 --port 8000 --host 127.0.0.1 --extra_llm_api_options arts/t/extra_llm_api_options.yaml' trtllm.out
grep -qx '# arts/t/extra_llm_api_options.yaml (written before the server starts): {"dtype":"bfloat16","kv_cache_config":{"enable_block_reuse":false,"free_gpu_memory_fraction":0.85},"return_perf_metrics":true}' trtllm.out
if grep -q llm_api_options vllm.out sglang.out; then echo 'FAIL: YAML for vllm/sglang'; exit 1; fi

# the launch writes that file, and trtllm-serve gets its path
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH" FAKE_ARGV_LOG="$TMPDIR/argv.log"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -e "s/^model: .*/model: sim/" -e "s/^hardware: .*/hardware: {gpus: 1}/" trtllm.yaml > run.yaml
printf 'tokenizer: builtin\nrequests: 2\nport: %s\nready_timeout_s: 30\n' "$port" >> run.yaml
"$GENPERF" run run.yaml > run.out 2>&1 || { cat run.out; exit 1; }
grep -A1 -x -- '--extra_llm_api_options' argv.log | grep -qx 'arts/t/extra_llm_api_options.yaml'
python3 -c 'import json,sys; d=json.load(open("arts/t/extra_llm_api_options.yaml")); assert d["kv_cache_config"]["enable_block_reuse"] is False, d'

# pass-through names each engine does not declare: refused before launch, with the nearest
refuse() {  # refuse FRAMEWORK ENGINE_ARGS MESSAGE
  printf 'model: m\nframework: %s\nhardware: {gpus: 1}\nengine_args: %s\nconcurrency: 1\nisl: 8\nosl: 4\n' "$1" "$2" > bad.yaml
  if "$GENPERF" run bad.yaml --dry-run > bad.out 2>&1; then cat bad.out; echo "FAIL: $1 $2 accepted"; exit 1; fi
  grep -qF -- "$3" bad.out || { cat bad.out; echo "FAIL: want: $3"; exit 1; }
}
refuse sglang '{max_num_batched_tokens: 8192}' 'engine_args.max_num_batched_tokens: sglang has no --max-num-batched-tokens; did you mean --chunked-prefill-size?'
refuse sglang '{schedule_polcy: lpm}' 'sglang has no --schedule-polcy; did you mean --schedule-policy?'
refuse trtllm '{max_num_batched_tokens: 8192}' 'trtllm has no --max_num_batched_tokens; did you mean --max_num_tokens?'
refuse trtllm '{enforce_eager: true}' 'trtllm has no --enforce_eager; did you mean'
refuse vllm '{mem_fraction_static: 0.5}' 'vllm has no --mem-fraction-static; did you mean --gpu-memory-utilization?'
refuse vllm '{max_num_seq: 5}' 'vllm has no --max-num-seq; did you mean --max-num-seqs?'
refuse sglang '{mem_fraction_static: 0.8, gpu_memory_utilization: 0.7}' 'engine_args.mem_fraction_static: --mem-fraction-static is already set'
# the engine's own names pass through; a flag alone the recipe already passes
# (sglang's --enable-metrics, issue 39 item 2) is given once
printf 'model: m\nframework: sglang\nhardware: {gpus: 1}\nengine_args: {schedule_policy: lpm, enable_metrics: true}\nconcurrency: 1\nisl: 8\nosl: 4\n' > ok.yaml
"$GENPERF" run ok.yaml --dry-run > ok.out
grep -q -- '--host 127.0.0.1 --schedule-policy lpm$' ok.out || { cat ok.out; echo 'FAIL: schedule_policy'; exit 1; }
[ "$(grep '^python3 ' ok.out | grep -o -- '--enable-metrics' | wc -l)" = 1 ] || { cat ok.out; echo 'FAIL: --enable-metrics not once'; exit 1; }
echo PASS
