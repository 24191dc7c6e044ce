# Per-host telemetry under mpirun (issue 17): three ranks posing as two hosts
# (GENPERF_HOSTNAME_OVERRIDE, per rank through mpirun's MPMD ":" syntax).
#  - one sampler per host (ranks 0 and 2; rank 1 shares rank 0's host);
#  - <stem>_telemetry.jsonl: every line names its host, both hosts have host
#    series, times on rank 0's clock (the two series overlap in time);
#  - <stem>_genperf.json telemetry.hosts: one summary per host with its rank;
#  - `genperf ingest`: telemetry_samples.host and v_telemetry_job_summary rows
#    for both hosts;
#  - a single-host mpirun writes no "host" key (today's file).
. "$GP_ROOT/tests/e2e/profile_common.inc"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
ldd "$GENPERF" 2>/dev/null | grep -q libmpi || { echo "genperf built without MPI"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
unset http_proxy HTTP_PROXY all_proxy ALL_PROXY
start_serve --ttft-ms 5 --itl-ms 2 --quiet
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
mpirun=(timeout 120 mpirun --allow-run-as-root --oversubscribe)
args=(profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 16
      --output-tokens-mean 20 --random-seed 7 --concurrency 3 --request-count 60 --telemetry-interval 0.05)
run_dir=m-openai-chat-concurrency3
"${mpirun[@]}" -n 1 -x GENPERF_HOSTNAME_OVERRIDE=node-a "$GENPERF" "${args[@]}" --artifact-dir two \
  : -n 1 -x GENPERF_HOSTNAME_OVERRIDE=node-a "$GENPERF" "${args[@]}" --artifact-dir two \
  : -n 1 -x GENPERF_HOSTNAME_OVERRIDE=node-b "$GENPERF" "${args[@]}" --artifact-dir two \
  >o2.txt 2>e2.txt || { cat o2.txt e2.txt; fail "mpirun as two hosts: exit $?"; }
grep -q "warning: telemetry" e2.txt && { cat e2.txt; fail "telemetry warning"; }

python3 - two/$run_dir <<'PY' || fail "per-host artifacts"
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(d + "/profile_export_telemetry.jsonl")]
assert all("host" in l for l in lines), [l for l in lines if "host" not in l][:2]
hosts = [l["host"] for l in lines]
assert set(hosts) == {"node-a", "node-b"}, set(hosts)
# rank 0's host first, then the other's
assert hosts == sorted(hosts), "hosts interleaved"
ser = {h: [l["t_ns"] for l in lines if l["host"] == h and l["device"] == "host" and l["metric"] == "cpu_util_pct"]
       for h in ("node-a", "node-b")}
assert all(len(v) >= 2 for v in ser.values()), {h: len(v) for h, v in ser.items()}
# one timeline (rank 0's clock): the two samplers ran over the same window
a, b = ser["node-a"], ser["node-b"]
assert max(a[0], b[0]) <= min(a[-1], b[-1]), (a[0], a[-1], b[0], b[-1])
g = json.load(open(d + "/profile_export_genperf.json"))
t = g["telemetry"]
hs = t["hosts"]
assert [(h["host"], h["rank"]) for h in hs] == [("node-a", 0), ("node-b", 2)], hs
assert t["samples"] == hs[0]["samples"], "top-level summary is rank 0's host"
assert hs[1]["samples"] == sum(1 for l in lines if l["host"] == "node-b" and "value" in l), hs[1]["samples"]
assert "host.cpu_util_pct" in hs[1]["metrics"], hs[1]["metrics"].keys()
assert [p["host"] for p in g["scale_out"]["per_rank"]] == ["node-a", "node-a", "node-b"]
# rank 1 shares rank 0's host: its bytes are mapped; rank 2's "host" differs: copied
assert g["scale_out"]["gather_mapped_ranks"] == 1, g["scale_out"]["gather_mapped_ranks"]
print("samples per host:", {h["host"]: h["samples"] for h in hs})
PY

db="$TMPDIR/t.db"
"$GENPERF" ingest two --db "$db" >ing.txt 2>&1 || { cat ing.txt; fail "ingest"; }
q() { "$GENPERF" query --db "$db" --format csv "$1" | tail -n +2 | tr -d '"'; }
[ "$(q "SELECT COUNT(DISTINCT host) FROM telemetry_samples WHERE host IS NOT NULL")" = 2 ] || fail "hosts in telemetry_samples: $(q "SELECT DISTINCT host FROM telemetry_samples")"
[ "$(q "SELECT COUNT(*) FROM telemetry_samples WHERE host IS NULL")" = 0 ] || fail "samples without a host"
got=$(q "SELECT host FROM v_telemetry_job_summary WHERE device = 'host' ORDER BY host" | tr '\n' ' ')
[ "$got" = "node-a node-b " ] || fail "v_telemetry_job_summary host rows: '$got'"
# the UI's telemetry endpoint: one series per host
"$GENPERF" query --db "$db" --format csv "SELECT host, COUNT(*) FROM v_telemetry_job_summary GROUP BY host ORDER BY host"

# one host (both ranks on this machine): the file has no host key, as without mpirun
"${mpirun[@]}" -n 2 "$GENPERF" "${args[@]}" --artifact-dir one >o1.txt 2>e1.txt || { cat e1.txt; fail "mpirun one host"; }
! grep -q '"host":' one/$run_dir/profile_export_telemetry.jsonl || fail "single-host file has a host key"
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['telemetry']; assert 'hosts' not in t" \
  one/$run_dir/profile_export_genperf.json || fail "single-host genperf.json has telemetry.hosts"
echo ok
