#!/usr/bin/env bash
# Ctrl-C during a cell: the profile child writes what it measured, the server
# is stopped, and genperf run exits 130.
set -eu
cd "$TMPDIR"
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > s.yaml <<Y
name: int
model: sim
tokenizer: builtin
framework: vllm
hardware: {gpus: 1}
concurrency: [1, 2]
isl: 8
osl: 16
requests: 100000
port: $port
ready_timeout_s: 30
stop_timeout_s: 5
artifact_dir: $TMPDIR/arts
Y
"$GENPERF" run s.yaml >out.txt 2>err.txt &
rpid=$!
for _ in $(seq 300); do grep -q "cell 1/2" out.txt 2>/dev/null && break; sleep 0.1; done
sleep 2
kill -INT $rpid
rc=0; wait $rpid || rc=$?
cat out.txt | grep -v '│' | tail -n 12; cat err.txt
[ "$rc" = 130 ] || { echo "exit $rc, expected 130"; exit 1; }
grep -q "interrupted during cell 1" err.txt
ls arts/int/c1_isl8_osl16/*/*_genai_perf.json     # what was measured was written
[ ! -d arts/int/c2_isl8_osl16 ]                      # the second cell never started
if curl -s -m 2 "http://127.0.0.1:$port/health" >/dev/null; then echo "server still up"; exit 1; fi
