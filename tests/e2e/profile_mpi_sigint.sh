# Ctrl-C mid-run under `mpirun -n 2 genperf profile --workers 2` (issue 17
# "Faults"): Open MPI's mpirun does not forward SIGINT; it sends each rank
# SIGCONT, SIGTERM one odls_base_sigkill_timeout (1 s) later and SIGKILL as
# long again. Within that second every rank must stop, ship what it measured,
# and rank 0 must write the partial artifact set: profile_export.json and the
# other artifacts parse, requests finished before the stop are in them, the
# ones cut off are recorded as cancelled (the one-process Ctrl-C path), rank 0
# says "interrupted: wrote what was measured", no temporary file is left.
# Requests take ~3 s and the signal comes just after the first ones finished,
# so the one-process 2 s grace for the rest overran the window and the
# SIGKILL left no artifacts. Three rounds: the signal to mpirun alone,
# and to mpirun's process group as a terminal's Ctrl-C sends it; a fourth
# before any request finished: every request is cut off, which must not pass
# for a rank whose every request failed (that fails the job with no
# artifacts).
# mpirun exits 1 (Open MPI's status for a job it stopped), not 130.
# A fifth round sends SIGUSR1 to mpirun (what `genperf run` sends on a
# Ctrl-C): mpirun forwards it to the ranks at once and they take it as their
# Ctrl-C, so the records end within the ranks' grace (a quarter of the 1 s
# window), not after mpirun's SIGTERM a second later; mpirun then exits 130.
. "$GP_ROOT/tests/e2e/profile_common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
command -v setsid >/dev/null || { echo "setsid not installed (util-linux)"; exit 77; }
ldd "$GENPERF" 2>/dev/null | grep -q libmpi || { echo "genperf built without MPI (mpicc not found at build time)"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
unset http_proxy HTTP_PROXY all_proxy ALL_PROXY OMPI_MCA_odls_base_sigkill_timeout
# 300 tokens at 10 ms: each request ~3 s, far longer than Open MPI's 1 s window
start_serve --ttft-ms 50 --itl-ms 10 --quiet
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
successes() { curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s + 0}'; }
running() { curl -s "$URL/metrics" | awk '/^vllm:num_requests_running/ {s += $2} END {print s + 0}'; }
run_dir=m-openai-chat-concurrency4

for round in 1 2 3 4 5; do
  dir=r$round
  before=$(successes)
  # setsid: mpirun leads its own process group, as in a terminal
  setsid mpirun --allow-run-as-root --oversubscribe -n 2 "$GENPERF" profile -m m --url "$URL" --endpoint-type chat \
    --streaming --tokenizer builtin --synthetic-input-tokens-mean 16 --output-tokens-mean 300 \
    --output-tokens-stddev 0 --concurrency 4 --workers 2 --request-count 5000 --artifact-dir $dir \
    >$dir.out 2>$dir.err &
  mp=$!
  PIDS+=($mp)
  want=4; [ $round = 4 ] && want=0
  for _ in $(seq 300); do   # up to 15 s: some requests of the measured phase finished (round 4: began)
    [ $(( $(successes) - before )) -ge $want ] && [ "$(running)" -ge 4 ] && break
    kill -0 $mp 2>/dev/null || break
    sleep 0.05
  done
  [ $(( $(successes) - before )) -ge $want ] || { cat $dir.err; fail "round $round: no request finished"; }
  [ $round != 4 ] || [ $(( $(successes) - before )) = 0 ] || fail "round 4: a request finished already"
  sleep 0.1   # the next requests are in flight, ~3 s from their end
  t_sig=$(date +%s%N)
  case $round in 2) kill -INT -- -$mp ;; 5) kill -USR1 $mp ;; *) kill -INT $mp ;; esac
  rc=0
  for _ in $(seq 200); do kill -0 $mp 2>/dev/null || break; sleep 0.1; done   # 20 s at most
  kill -0 $mp 2>/dev/null && { kill -KILL -- -$mp; fail "round $round: mpirun still running 20 s after Ctrl-C"; }
  wait $mp || rc=$?
  unset 'PIDS[${#PIDS[@]}-1]'
  echo "round $round: mpirun exit $rc"; tail -n 3 $dir.err
  if [ $round = 5 ]; then check_rc $rc 130; else check_rc $rc 1 130; fi
  grep -q "genperf: interrupted: wrote what was measured to $dir/$run_dir" $dir.err \
    || fail "round $round: no 'interrupted: wrote what was measured' line"
  grep -q "genperf: note: rank 0 exits 130; the launcher may report its own status" $dir.err \
    || fail "round $round: no note on mpirun's exit status"
  [ -z "$(find $dir -name '*.tmp*')" ] || fail "round $round: temporary files left: $(find $dir -name '*.tmp*')"
  python3 - $dir/$run_dir $want $round $t_sig <<'PY' || fail "round $round: partial artifacts"
import csv, glob, json, os, sys
d, finished, rnd, t_sig = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
names = {os.path.basename(f) for f in glob.glob(os.path.join(d, "*"))}
want = {"inputs.json", "profile_export.json", "profile_export_genai_perf.json", "profile_export_genai_perf.csv",
        "profile_export_genperf.json", "profile_export_records.jsonl"}
assert want <= names, sorted(want - names)
for n in names:
    f = os.path.join(d, n)
    if n.endswith(".json"):
        json.load(open(f))
    elif n.endswith(".csv"):
        assert list(csv.reader(open(f, newline=""))), n
pe = json.load(open(os.path.join(d, "profile_export.json")))
ok = len(pe["experiments"][0]["requests"])
g = json.load(open(os.path.join(d, "profile_export_genai_perf.json")))
if finished:
    assert ok >= 1 and g["request_count"]["avg"] == ok, (ok, g.get("request_count"))
else:
    assert ok == 0, ok
recs = [json.loads(l) for l in open(os.path.join(d, "profile_export_records.jsonl"))]
assert 0 < len(recs) < 5000, len(recs)
assert sum(r["status"] == "ok" for r in recs) == ok, "records and profile_export.json disagree"
assert any(r["fail_kind"] == "cancelled" for r in recs), "no request was cut off by the interrupt"
gp = json.load(open(os.path.join(d, "profile_export_genperf.json")))
assert gp["scale_out"]["ranks"] == 2 and gp["scale_out"]["workers"] == 2, gp["scale_out"]
assert gp.get("interrupted") is True, "_genperf.json does not say interrupted"
# both ranks shipped their records: rank r runs loops 2r and 2r+1
ranks = {r["worker"] // 2 for r in recs}
assert ranks == {0, 1}, ranks
last = max(r["t_end_ns"] for r in recs) - t_sig
print("round %d: last request ended %.2f s after the signal" % (rnd, last / 1e9))
if rnd == 5:  # SIGUSR1 reached the ranks at once, not as SIGTERM 1 s later
    assert last < 0.9e9, "a request ran until %.2f s after SIGUSR1" % (last / 1e9)
PY
done
echo ok
