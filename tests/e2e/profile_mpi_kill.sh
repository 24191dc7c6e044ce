# `mpirun -n 3 genperf profile` with one non-zero rank killed (SIGKILL) mid-run
# (issue 17 "Faults"): mpirun exits non-zero, one line names the dead rank
# (ours "rank R on host H" or Open MPI's "process rank R ... exited on signal
# 9"), and no complete-looking artifact set is left (no profile_export*).
# The victim is found from outside: mpirun's children, each carrying
# OMPI_COMM_WORLD_RANK in its environment (no hook in genperf).
. "$GP_ROOT/tests/e2e/profile_common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
command -v pgrep >/dev/null || { echo "pgrep not installed (procps)"; exit 77; }
ldd "$GENPERF" 2>/dev/null | grep -q libmpi || { echo "genperf built without MPI (mpicc not found at build time)"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
unset http_proxy HTTP_PROXY all_proxy ALL_PROXY
# slow enough that 60 requests take ~9 s: the kill lands well inside the run
start_serve --ttft-ms 50 --itl-ms 20 --quiet
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
host=$(hostname)
running() { curl -s "$URL/metrics" | awk '/^vllm:num_requests_running/ {s += $2} END {print s + 0}'; }

mpirun --allow-run-as-root --oversubscribe -n 3 "$GENPERF" profile -m m --url "$URL" --endpoint-type chat \
  --streaming --tokenizer builtin --synthetic-input-tokens-mean 16 --output-tokens-mean 20 --output-tokens-stddev 0 \
  --concurrency 3 --request-count 60 --artifact-dir k >k.out 2>k.err &
mp=$!
PIDS+=($mp)
rank_pid() { # rank -> pid of mpirun's child with that rank
  local c
  for c in $(pgrep -P "$mp"); do
    tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$c"; return 0; }
  done
  return 1
}
victim=""
for _ in $(seq 200); do   # up to 10 s: rank 2 exists and the load is flowing
  victim=$(rank_pid 2) && [ "$(running)" -ge 3 ] && break
  victim=""; sleep 0.05
done
[ -n "$victim" ] || { cat k.out k.err; fail "rank 2 never started or no requests reached the server"; }
others="$(rank_pid 0) $(rank_pid 1)"
sleep 0.3
kill -KILL "$victim"
t0=$(date +%s)
rc=0
for _ in $(seq 300); do kill -0 "$mp" 2>/dev/null || break; sleep 0.1; done   # 30 s at most
kill -0 "$mp" 2>/dev/null && { kill -KILL "$mp"; fail "mpirun still running 30 s after rank 2 was killed"; }
wait "$mp" || rc=$?
PIDS=("${PIDS[0]}")
echo "mpirun exit $rc after $(( $(date +%s) - t0 )) s"; cat k.err
[ "$rc" -ne 0 ] || fail "mpirun exited 0 with a rank killed"
n=$(grep -cE "(error: rank 2 on host $host|process rank 2 with PID [0-9]+ on node .* exited on signal 9)" k.err || true)
[ "$n" = 1 ] || fail "want exactly one line naming rank 2, got $n"
[ -z "$(find k -name 'profile_export*')" ] || fail "artifacts left by a broken run: $(find k -name 'profile_export*')"
grep -q 'LLM Metrics' k.out && fail "a broken run printed a results table"
alive() { local p; for p in $others; do [ -d "/proc/$p" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$p/stat" && echo "$p"; done; }
for _ in $(seq 40); do [ -z "$(alive)" ] && break; sleep 0.05; done
[ -z "$(alive)" ] || fail "ranks 0/1 outlived mpirun: $(alive)"
echo ok
