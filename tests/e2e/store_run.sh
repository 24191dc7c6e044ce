#!/usr/bin/env bash
# `genperf run` -> store: a 2-cell sweep against a fake `vllm` (tests/e2e/fakes, which becomes
# `genperf serve`) is ingested after each cell with the scenario's metadata from genperf_run.json
# (framework, engine args, TP, GPUs, hardware, label); running it twice adds new jobs, and
# re-ingesting the artifact tree adds nothing.
set -u
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMPDIR"
[ -x "$GP_ROOT/tests/e2e/fakes/vllm" ] || { echo "skip: tests/e2e/fakes/vllm is not there"; exit 77; }
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH" FAKE_ARGV_LOG="$TMPDIR/argv.log"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > s.yaml <<Y
name: storesweep
model: sim-model
tokenizer: builtin
framework: vllm
hardware: {gpus: 2}
engine_args: {max_model_len: 2048, max_num_seqs: 64}
concurrency: [1, 2]
isl: 16
osl: 4
requests: 6
port: $port
ready_timeout_s: 30
artifact_dir: $TMPDIR/arts
db: sqlite://$TMPDIR/runs.db
Y
"$GENPERF" run s.yaml >run.out 2>&1 || { cat run.out; fail "genperf run failed"; }
q() { "$GENPERF" query --db "$TMPDIR/runs.db" --format csv "$1" | tail -n +2; }
got=$(q "SELECT concurrency, isl, osl, request_count, framework, tp, gpu_count, job_label, producer, status FROM v_jobs ORDER BY concurrency")
want="1,16,4,6,vllm,2,2,storesweep,genperf,completed
2,16,4,6,vllm,2,2,storesweep,genperf,completed"
[ "$got" = "$want" ] || fail "jobs from genperf run:
  want: $want
  got:  $got"
q "SELECT engine_args FROM v_jobs LIMIT 1" | grep -q 'max_num_seqs' || fail "engine_args: $(q 'SELECT engine_args FROM v_jobs')"
[ "$(q "SELECT COUNT(*) FROM requests")" = 12 ] || fail "requests: $(q 'SELECT COUNT(*) FROM requests')"
[ "$(q "SELECT COUNT(DISTINCT metric) > 5 FROM v_genai_perf_outputs")" = 1 ] || fail "metrics missing"
out=$("$GENPERF" ingest "$TMPDIR/arts" --db "$TMPDIR/runs.db" 2>&1) || fail "re-ingest: $out"
grep -q "2 jobs: 0 added, 2 already present, 0 rejected" <<<"$out" || fail "re-ingest of the run tree: $out"
echo "store_run: all checks passed"
