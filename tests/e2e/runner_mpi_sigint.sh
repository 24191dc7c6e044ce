#!/usr/bin/env bash
# Ctrl-C from the terminal during a `genperf run` cell that runs under mpirun
# (load: {ranks: 2}): the signal goes to the runner's whole process group. The
# runner passes it on to mpirun once, as SIGUSR1, which mpirun forwards to the
# ranks at once (SIGINT would reach them only as SIGTERM 3 s later, and had
# mpirun also got the terminal's SIGINT, Open MPI would take the second as
# "kill everything now" and no artifact would be written); the records end
# within the ranks' grace after the Ctrl-C. So: the cell's partial artifacts are there (rank 0's
# "interrupted" line, parsing profile export with the finished requests),
# and the run exits 130. (mpirun's --mca odls_base_sigkill_timeout 3: in
# runner_load.sh's dry runs and test_runner.)
set -eu
cd "$TMPDIR"
fail() { echo "FAIL: $*"; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun not installed (apt-get install openmpi-bin)"; exit 77; }
command -v setsid >/dev/null || { echo "setsid not installed (util-linux)"; exit 77; }
ldd "$GENPERF" 2>/dev/null | grep -q libmpi || { echo "genperf built without MPI"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
unset http_proxy HTTP_PROXY all_proxy ALL_PROXY OMPI_MCA_odls_base_sigkill_timeout
# requests of ~3 s (300 tokens at 10 ms)
"$GENPERF" serve --model sim --port 0 --port-file "$TMPDIR/url" --ttft-ms 50 --itl-ms 10 --quiet >serve.log 2>&1 &
spid=$!
rpid=""
trap 'kill $spid 2>/dev/null || true; [ -z "$rpid" ] || kill -KILL -- -$rpid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
successes() { curl -s "$url/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s + 0}'; }
cat > m.yaml <<Y
name: m
model: sim
tokenizer: builtin
framework: attach
url: $url
concurrency: 4
isl: 16
osl: 300
requests: 5000
artifact_dir: $TMPDIR/arts
load: {workers: 2, ranks: 2, mpirun_args: [--allow-run-as-root, --oversubscribe]}
Y
# setsid: the runner leads its process group, as a shell's foreground job does
setsid "$GENPERF" run m.yaml >out.txt 2>err.txt &
rpid=$!
for _ in $(seq 400); do [ "$(successes)" -ge 4 ] && break; sleep 0.05; done   # up to 20 s
[ "$(successes)" -ge 4 ] || { cat out.txt err.txt; fail "no request finished"; }
sleep 0.1
t_int=$(date +%s%N)
kill -INT -- -$rpid   # what a terminal's Ctrl-C does
rc=0
for _ in $(seq 300); do kill -0 $rpid 2>/dev/null || break; sleep 0.1; done   # 30 s at most
kill -0 $rpid 2>/dev/null && fail "genperf run still running 30 s after Ctrl-C"
wait $rpid || rc=$?
rpid=""
grep -v '│' out.txt | tail -n 8; cat err.txt
[ "$rc" = 130 ] || fail "exit $rc, expected 130"
grep -q "genperf: interrupted: wrote what was measured" out.txt err.txt || fail "rank 0 did not write what it measured"
d=$(dirname "$(ls arts/m/c4_isl16_osl300/*/profile_export_c4_isl16_osl300.json)") || fail "no profile export"
[ -z "$(find arts -name '*.tmp*')" ] || fail "temporary files left: $(find arts -name '*.tmp*')"
python3 - "$d" "$t_int" <<'PY' || fail "partial artifacts"
import json, sys
d, t_int = sys.argv[1], int(sys.argv[2])
pe = json.load(open(d + "/profile_export_c4_isl16_osl300.json"))
ok = len(pe["experiments"][0]["requests"])
recs = [json.loads(l) for l in open(d + "/profile_export_c4_isl16_osl300_records.jsonl")]
assert ok >= 1 and 0 < len(recs) < 5000, (ok, len(recs))
# the runner passed the Ctrl-C on as SIGUSR1, which mpirun forwards at once:
# every rank stopped within its grace (a quarter of the 3 s window), not 3 s
# later when mpirun's own SIGTERM would have come
last = max(r["t_end_ns"] for r in recs) - t_int
assert last < 2.5e9, "a request ran until %.2f s after the Ctrl-C" % (last / 1e9)
print("last request ended %.2f s after the Ctrl-C" % (last / 1e9))
assert json.load(open(d + "/profile_export_c4_isl16_osl300_genperf.json"))["scale_out"]["ranks"] == 2
PY
echo ok
