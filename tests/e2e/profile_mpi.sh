# `mpirun -n 3 genperf profile` against `genperf serve` (issue 17):
#  - one artifact set; request count == --request-count == the server's own
#    success counter (minus warmup), 0 failures; inputs.json identical to a
#    single-process run's; peak in flight at the server (timing log) <=
#    --concurrency; records merged by start time on rank 0's clock; the
#    per-rank clock block in *_genperf.json; 2 ranks x 2 workers as well;
#  - the measured phase starts at one shared instant (scale_out.measured_start):
#    every rank's warmup ended before it, no measured record of any rank
#    starts before it, each rank's recorded start lies within the skew bound;
#    in rate mode the union of the ranks' arrivals is the one-process schedule
#    from that instant;
#  - a rank whose host cannot reach the server (its environment routes the
#    URL through a dead proxy) ends the run with one line naming the rank and
#    host, a non-zero exit, and no profile_export* artifacts.
. "$GP_ROOT/tests/e2e/profile_common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
ldd "$GENPERF" 2>/dev/null | grep -q libmpi || { echo "genperf built without MPI (mpicc not found at build time)"; exit 77; }
# Open MPI's own allocations are not ours to chase under LeakSanitizer.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
unset http_proxy HTTP_PROXY all_proxy ALL_PROXY
# genperf names the transport of a one-host job only where the user did not
# (scale_out.mpi_mca_set below): start from a clean slate
unset OMPI_MCA_pml OMPI_MCA_btl GENPERF_DIST_KEEP_MCA
start_serve --ttft-ms 5 --itl-ms 1 --quiet --timing-log "$TMPDIR/timing.jsonl"
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
mpirun=(timeout 120 mpirun --allow-run-as-root --oversubscribe)
host=$(hostname)
common=(-m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 16
        --output-tokens-mean 10 --random-seed 7 --concurrency 5 --request-count 43)
run_dir=m-openai-chat-concurrency5
successes() { curl -s "$URL/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s + 0}'; }

"$GENPERF" profile "${common[@]}" --artifact-dir one >o1.txt 2>e1.txt || { cat e1.txt; fail "one process: exit $?"; }
before=$(successes)
"${mpirun[@]}" -n 3 "$GENPERF" profile "${common[@]}" --warmup-request-count 6 --artifact-dir three \
  >o3.txt 2>e3.txt || { cat o3.txt e3.txt; fail "mpirun -n 3: exit $?"; }
cat e3.txt
after=$(successes)
[ $((after - before)) = 49 ] || fail "server counted $((after - before)) successes, expected 43 + 6 warmup"
[ "$(grep -c 'LLM Metrics' o3.txt)" = 1 ] || fail "expected one console table (rank 0 only)"
[ "$(find three -name 'profile_export_genai_perf.json' | wc -l)" = 1 ] || fail "not exactly one artifact set"
cmp one/$run_dir/inputs.json three/$run_dir/inputs.json || fail "inputs.json differs between 1 process and 3 ranks"

python3 - one/$run_dir three/$run_dir "$host" <<'PY' || fail "artifact checks"
import json, sys
one, three, host = sys.argv[1:4]
g = json.load(open(three + "/profile_export_genai_perf.json"))
assert g["request_count"]["avg"] == 43.0, g["request_count"]
assert "ranks" not in json.dumps(g) and "scale_out" not in json.dumps(g), "scale-out keys leaked into GenAI-Perf's file"
recs = [json.loads(l) for l in open(three + "/profile_export_records.jsonl")]
meas = [r for r in recs if not r["warmup"]]
assert len(meas) == 43 and all(r["status"] == "ok" for r in meas), [r["status"] for r in meas]
assert len(recs) - len(meas) == 6, len(recs)
r1 = [json.loads(l) for l in open(one + "/profile_export_records.jsonl")]
# the same requests as one process: each slot's k-th request on the same entry
assert sorted((r["slot"], r["entry"]) for r in r1) == sorted((r["slot"], r["entry"]) for r in meas)
assert {r["worker"] for r in meas} == {0, 1, 2}, {r["worker"] for r in meas}
starts = [r["t_start_ns"] for r in recs]
assert starts == sorted(starts), "records not merged by start time"
gp = json.load(open(three + "/profile_export_genperf.json"))
so = gp["scale_out"]
assert so["ranks"] == 3 and so["workers"] == 1, so
pr = so["per_rank"]
assert [p["rank"] for p in pr] == [0, 1, 2] and all(p["host"] == host for p in pr), pr
assert pr[0]["offset_ns"] == 0 and pr[0]["uncertainty_ns"] == 0, pr[0]
for p in pr[1:]:
    # one host: one clock, so the offset is within the uncertainty (generous slack)
    assert p["clock_rounds"] == 50 and 0 < p["uncertainty_ns"] < 5e6, p
    assert abs(p["offset_ns"]) <= p["uncertainty_ns"] + 1000, p
assert sum(p["requests"] for p in pr) == 43 and sum(p["failed"] for p in pr) == 0, pr
assert len(so["per_worker"]) == 3, so
# one shared start: all warmup before it, all measured requests after it
ms = so["measured_start"]
t0 = ms["start_wall_ns"]
assert 2000000 <= ms["margin_ns"] < 1e9, ms
assert max(r["t_end_ns"] for r in recs if r["warmup"]) <= t0, "a warmup request ended after the shared start"
assert min(r["t_start_ns"] for r in meas) >= t0, "a measured request started before the shared start"
# each rank wakes at (not before) the shared instant, give or take its sleep's
# lateness on a busy host; the starts lie within the recorded skew, which
# plus the clock uncertainties is the bound
begs = [p["measure_start_wall_ns"] for p in pr]
for p in pr:
    late = p["measure_start_wall_ns"] - t0
    assert late == p["start_late_ns"] and 0 <= late < 1e8, (p, ms)
    assert all(abs(p["measure_start_wall_ns"] - b) <= ms["skew_bound_ns"] for b in begs), (p, ms)
assert ms["max_skew_ns"] == max(begs) - min(begs), ms
assert ms["max_skew_ns"] <= ms["skew_bound_ns"] <= ms["max_skew_ns"] + 2 * max(p["uncertainty_ns"] for p in pr), ms
print("shared start: margin %d ns, skew %d ns (bound %d ns)" % (ms["margin_ns"], ms["max_skew_ns"], ms["skew_bound_ns"]))
# the measured phase, on rank 0's clock, is the span of the records
print("ranks:", [(p["rank"], p["requests"], p["offset_ns"], p["uncertainty_ns"]) for p in pr])
# one host: ranks 1 and 2's response bytes were mapped from their memfd, not copied
assert so["gather_mapped_ranks"] == 2, so["gather_mapped_ranks"]
# one host: genperf named the shared-memory transport before MPI_Init
assert so["mpi_mca_set"] == "pml=ob1 btl=self,vader", so["mpi_mca_set"]
PY

# The same run with the bytes copied over MPI (as between hosts): the same
# requests and the same response bytes in profile_export.json.
# GENPERF_DIST_KEEP_MCA=1 leaves Open MPI to choose its transports itself.
"${mpirun[@]}" -n 3 -x GENPERF_DIST_NO_SHM=1 -x GENPERF_DIST_KEEP_MCA=1 "$GENPERF" profile "${common[@]}" --warmup-request-count 6 \
  --artifact-dir copied >oc.txt 2>ec.txt || { cat oc.txt ec.txt; fail "mpirun -n 3, GENPERF_DIST_NO_SHM=1: exit $?"; }
python3 - three/$run_dir copied/$run_dir <<'PY' || fail "mapped vs copied gather"
import json, sys
def load(d):
    reqs = json.load(open(d + "/profile_export.json"))["experiments"][0]["requests"]
    out = sorted(len(json.dumps(r["response_outputs"])) for r in reqs)
    so = json.load(open(d + "/profile_export_genperf.json"))["scale_out"]
    return len(reqs), out, so["gather_mapped_ranks"], so["mpi_mca_set"]
m, c = load(sys.argv[1]), load(sys.argv[2])
assert m[0] == c[0] == 43, (m[0], c[0])
assert m[1] == c[1], "response_outputs differ in size between the mapped and the copied gather"
assert m[2] == 2 and c[2] == 0, (m[2], c[2])
assert c[3] == "", "GENPERF_DIST_KEEP_MCA=1 and genperf still chose: " + c[3]
print("mapped vs copied: %d requests, %d response bytes each" % (m[0], sum(m[1])))
PY

# 2 ranks x 2 workers = 4 loops; the user's own btl (mpirun --mca) is kept,
# so genperf names only the pml
"${mpirun[@]}" -n 2 --mca btl self,vader,tcp "$GENPERF" profile "${common[@]}" --workers 2 --artifact-dir four >o4.txt 2>e4.txt || \
  { cat e4.txt; fail "mpirun -n 2 --workers 2: exit $?"; }
python3 - four/$run_dir <<'PY' || fail "2 ranks x 2 workers"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1] + "/profile_export_records.jsonl")]
assert len(recs) == 43 and all(r["status"] == "ok" for r in recs)
assert {r["worker"] for r in recs} == {0, 1, 2, 3}, {r["worker"] for r in recs}
so = json.load(open(sys.argv[1] + "/profile_export_genperf.json"))["scale_out"]
assert so["ranks"] == 2 and so["workers"] == 2 and len(so["per_worker"]) == 4, so
assert so["mpi_mca_set"] == "pml=ob1", so["mpi_mca_set"]
assert [(w["worker"], w["rank"]) for w in so["per_worker"]] == [(0, 0), (1, 0), (2, 1), (3, 1)], so
t0 = so["measured_start"]["start_wall_ns"]
assert min(r["t_start_ns"] for r in recs) >= t0, "a measured request started before the shared start"
late = [p["start_late_ns"] for p in so["per_rank"]]
assert all(0 <= l < 1e8 for l in late) and max(late) - min(late) <= so["measured_start"]["skew_bound_ns"], so
PY

# Rate mode: the arrivals of 2 ranks x 2 workers, from the shared start, are
# exactly the one-process schedule from its own origin (constant rate: the
# first arrival is at the origin), warmup included.
rate=(-m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 16
      --output-tokens-mean 10 --random-seed 7 --request-rate 200 --request-count 200 --warmup-request-count 4)
"$GENPERF" profile "${rate[@]}" --artifact-dir rate1 >or1.txt 2>er1.txt || { cat er1.txt; fail "rate, one process: exit $?"; }
"${mpirun[@]}" -n 2 "$GENPERF" profile "${rate[@]}" --workers 2 --artifact-dir rate4 >or4.txt 2>er4.txt || \
  { cat er4.txt; fail "rate, mpirun -n 2 --workers 2: exit $?"; }
python3 - rate1 rate4 <<'PY' || fail "rate mode from the shared start"
import glob, json, sys
def load(d):
    recs = [json.loads(l) for l in open(glob.glob(d + "/*/profile_export_records.jsonl")[0])]
    return [r for r in recs if not r["warmup"]], [r for r in recs if r["warmup"]]
one, _ = load(sys.argv[1])
four, warm = load(sys.argv[2])
t0 = json.load(open(glob.glob(sys.argv[2] + "/*/profile_export_genperf.json")[0]))["scale_out"]["measured_start"]["start_wall_ns"]
assert len(one) == len(four) == 200 and len(warm) == 4, (len(one), len(four), len(warm))
o1 = sorted(r["t_sched_ns"] - min(x["t_sched_ns"] for x in one) for r in one)
o4 = sorted(r["t_sched_ns"] - t0 for r in four)
assert o1 == o4, [(a, b) for a, b in zip(o1, o4) if a != b][:5]
assert o4[1] == 5000000 and {r["worker"] for r in four} == {0, 1, 2, 3}, (o4[:3], {r["worker"] for r in four})
assert max(r["t_end_ns"] for r in warm) <= t0 <= min(r["t_start_ns"] for r in four)
PY

# peak in flight at the server over the 3-rank run (seq 43..91); the timing
# log is written when the server exits
kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null; PIDS=()
python3 - timing.jsonl <<'PY' || fail "peak in flight"
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if 43 <= r["seq"] < 92]
assert len(rows) == 49, len(rows)
ev = []
for r in rows:
    end = r["chunks_ns"][-1] if r["chunks_ns"] else r["t_request_ns"]
    ev += [(r["t_request_ns"], 1), (end, -1)]
cur = peak = 0
for _, d in sorted(ev, key=lambda e: (e[0], e[1])):
    cur += d
    peak = max(peak, cur)
print("peak in flight at the server:", peak)
assert 2 <= peak <= 5, peak
PY

# A host that cannot reach the server: rank 2's environment sends the URL to
# a proxy nobody listens on (the client bypasses proxies for 127.0.0.1 only,
# so the server listens on 127.0.0.2).
start_serve --host 127.0.0.2 --quiet
bad=(profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 16
     --output-tokens-mean 10 --concurrency 3 --request-count 9 --artifact-dir bad)
rc=0
"${mpirun[@]}" -n 2 "$GENPERF" "${bad[@]}" : -n 1 env http_proxy=http://127.0.0.1:1 "$GENPERF" "${bad[@]}" \
  >bad.out 2>bad.err || rc=$?
cat bad.err
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a rank that cannot reach the server: rc=$rc"
[ "$(grep -c "error: rank 2 on host $host: every one of its 3 requests failed: .*connect" bad.err)" = 1 ] || \
  fail "no single line naming rank 2 and its host"
[ -z "$(find bad -name 'profile_export*')" ] || fail "artifacts written for a failed run: $(find bad -name 'profile_export*')"
grep -q 'LLM Metrics' bad.out && fail "a failed run printed a results table"
echo ok
