#!/usr/bin/env bash
# Issue 39 item 2: server telemetry on every engine, or a line saying why not.
# SGLang gets --enable-metrics; TRT-LLM gets return_perf_metrics: true in its
# --extra_llm_api_options file (merged with the scenario's own) and its cells
# scrape /prometheus/metrics; a metrics URL answering JSON is named on the
# console with the fix.
set -eu
cd "$TMPDIR"
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH" FAKE_ARGV_LOG="$TMPDIR/argv.log"
cat > s.yaml <<'Y'
model: m
framework: sglang
hardware: {gpus: 1}
concurrency: 1
isl: 8
osl: 4
artifact_dir: arts
Y
"$GENPERF" run s.yaml --dry-run > s.txt
grep -q '^python3 -m sglang.launch_server .* --enable-metrics' s.txt || { cat s.txt; echo "sglang without --enable-metrics"; exit 1; }
# TRT-LLM: the scenario's own options file is merged, its keys kept
printf 'enable_chunked_prefill: true\nreturn_perf_metrics: true\n' > mine.yaml
printf 'kv_cache_config: {enable_block_reuse: false}\n' > mine2.yaml
cat > t.yaml <<'Y'
model: m
framework: trtllm
hardware: {gpus: 1}
engine_args: {extra_llm_api_options: mine2.yaml}
concurrency: 1
isl: 8
osl: 4
artifact_dir: arts
Y
"$GENPERF" run t.yaml --dry-run > t.txt
cat t.txt
grep -q -- '--extra_llm_api_options arts/t/extra_llm_api_options.yaml' t.txt
# the one options file, printed once (recipe's llm_api_options: map + set + the scenario's file)
grep -qx '# arts/t/extra_llm_api_options.yaml (written before the server starts): {"kv_cache_config":{"enable_block_reuse":false},"return_perf_metrics":true}' t.txt
[ "$(grep -c 'extra_llm_api_options.yaml' t.txt)" = 2 ]   # the server command and that line
[ "$(grep '^trtllm-serve ' t.txt | grep -o -- '--extra_llm_api_options' | wc -l)" = 1 ]
grep -q -- '--server-metrics-url http://127.0.0.1:8000/prometheus/metrics ' t.txt
[ ! -e arts/t/extra_llm_api_options.yaml ]   # a dry run writes nothing
# a real run against the fake trtllm-serve (genperf serve --flavor trtllm)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > r.yaml <<Y
model: sim
tokenizer: builtin
framework: trtllm
hardware: {gpus: 1}
concurrency: 1
isl: 8
osl: 4
requests: 3
port: $port
ready_timeout_s: 30
artifact_dir: $TMPDIR/arts
Y
: > argv.log
"$GENPERF" run r.yaml > r.txt 2>&1 || { cat r.txt; exit 1; }
cat r.txt
opts=$(grep -A1 -x -- '--extra_llm_api_options' argv.log | tail -n1)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d == {"return_perf_metrics": True}, d' "$opts"
! grep -q 'no server telemetry' r.txt
grep -q '"device":"server"' "$TMPDIR"/arts/r/c1_isl8_osl4/*/*_telemetry.jsonl
# attach to a TRT-LLM flavour at its /metrics (JSON): the console says so
"$GENPERF" serve --flavor trtllm --model sim --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
cat > a.yaml <<Y
model: sim
tokenizer: builtin
framework: attach
url: $url
concurrency: 1
isl: 8
osl: 4
requests: 3
artifact_dir: $TMPDIR/arts
Y
"$GENPERF" run a.yaml > a.txt 2>&1 || { cat a.txt; exit 1; }
grep "no server telemetry" a.txt
grep -q "warning: no server telemetry from $url/metrics: .*answered JSON, not Prometheus text; .*/prometheus/metrics" a.txt
