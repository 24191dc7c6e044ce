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
# The signal goes once the server has answered requests, not after a fixed
# 2 s: under ASan on a loaded CI host the profile child was still building its
# dataset 2 s into the cell and had measured nothing.
served() {
  curl -s -m 2 "http://127.0.0.1:$port/metrics" |
    awk '/^vllm:request_success_total/ {n += $NF} END {print n + 0}'
}
for _ in $(seq 300); do [ "$(served)" -ge 3 ] && break; sleep 0.1; done
kill -INT $rpid
rc=0; wait $rpid || rc=$?
cat out.txt | grep -v '│' | tail -n 12; cat err.txt
[ "$rc" = 130 ] || { echo "exit $rc, expected 130"; exit 1; }
grep -q "interrupted during cell 1" err.txt
ls arts/int/c1_isl8_osl16/*/*_genai_perf.json     # what was measured was written
[ ! -d arts/int/c2_isl8_osl16 ]                      # the second cell never started
if curl -s -m 2 "http://127.0.0.1:$port/health" >/dev/null; then echo "server still up"; exit 1; fi

# Ctrl-C before the cell's profile sent a request (a large dataset still
# being built): the runner says nothing was measured instead of pointing at a
# directory with no artifacts, and still exits 130 and stops the server.
sed -i 's/^isl: 8/isl: 200\nprofile_args: ["--num-dataset-entries", "200000"]/' s.yaml
rm -rf arts out.txt err.txt
"$GENPERF" run s.yaml >out.txt 2>err.txt &
rpid=$!
for _ in $(seq 300); do grep -q "Profiling these models" err.txt 2>/dev/null && break; sleep 0.05; done
kill -INT $rpid
rc=0; wait $rpid || rc=$?
cat err.txt
[ "$rc" = 130 ] || { echo "early: exit $rc, expected 130"; exit 1; }
grep -q "interrupted during cell 1 before it sent a request; nothing measured" err.txt
if curl -s -m 2 "http://127.0.0.1:$port/health" >/dev/null; then echo "server still up"; exit 1; fi
