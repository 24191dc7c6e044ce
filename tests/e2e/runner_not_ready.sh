#!/usr/bin/env bash
# A server that never becomes ready, and one that crashes while loading: the
# run fails cleanly within the timeout, shows the log tail, and leaves no process.
set -eu
cd "$TMPDIR"
export PATH="$GP_ROOT/tests/e2e/fakes:$PATH"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > s.yaml <<Y
model: sim
framework: vllm
hardware: {gpus: 1}
concurrency: 1
isl: 8
osl: 4
port: $port
ready_timeout_s: 2
stop_timeout_s: 2
artifact_dir: $TMPDIR/arts
Y
start=$(date +%s)
if FAKE_MODE=never-ready "$GENPERF" run s.yaml 2>err.txt; then echo "run succeeded"; exit 1; fi
cat err.txt
[ $(( $(date +%s) - start )) -lt 20 ]
grep -q "server not ready after 2 s" err.txt
grep -q "loading weights (forever)" err.txt
if pgrep -f "sleep 600" >/dev/null && pgrep -f "fake_server.sh" >/dev/null; then echo "fake server left running"; exit 1; fi
if FAKE_MODE=crash "$GENPERF" run s.yaml 2>err2.txt; then echo "run succeeded"; exit 1; fi
cat err2.txt
grep -q "server exited before it was ready (exit status 3)" err2.txt
grep -q "CUDA out of memory (fake)" err2.txt
