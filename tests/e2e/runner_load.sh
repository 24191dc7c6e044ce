#!/usr/bin/env bash
# genperf run with load: {workers, ranks, hosts, mpirun_args} (issue 17):
# the dry run prints the exact `mpirun ... genperf profile ... --workers N`
# line; bad load values fail with one line naming load.KEY; a missing mpirun
# fails before anything starts, naming the fix; a real run with ranks: 2
# against genperf serve (attach) gives one merged artifact set.
set -eu
cd "$TMPDIR"
fail() { echo "FAIL: $*"; exit 1; }
cat > l.yaml <<'Y'
name: l
model: sim
tokenizer: builtin
framework: attach
url: http://127.0.0.1:9/
concurrency: 4
isl: 16
osl: 4
requests: 12
artifact_dir: arts
load: {workers: 2, ranks: 3, hosts: [h1, h2], mpirun_args: [--map-by, node, --bind-to, none]}
Y
out=$("$GENPERF" run l.yaml --dry-run)
echo "$out"
want="mpirun -n 3 --host h1,h2 --mca odls_base_sigkill_timeout 3 --map-by node --bind-to none $GENPERF profile -m sim --url http://127.0.0.1:9"
want+=" -H 'Accept: text/event-stream' --tokenizer builtin --endpoint-type chat --streaming"
want+=" --synthetic-input-tokens-mean 16 --synthetic-input-tokens-stddev 0 --output-tokens-mean 4"
want+=" --output-tokens-stddev 0 --request-count 12 --num-dataset-entries 12 --concurrency 4 --random-seed 0"
want+=" --workers 2 --extra-inputs ignore_eos:true --profile-export-file profile_export_c4_isl16_osl4.json --artifact-dir arts/l/c4_isl16_osl4"
[ "$(grep -cxF -- "$want" <<<"$out")" = 1 ] || fail "dry-run line differs from: $want"

# workers alone: no mpirun, --workers on the profile; hosts alone: one rank per host
sed 's/^load:.*/load: {workers: auto}/' l.yaml > w.yaml
out=$("$GENPERF" run w.yaml --dry-run)
grep -q "^$GENPERF profile .* --random-seed 0 --workers auto --extra-inputs ignore_eos:true --profile-export-file" <<<"$out" || fail "workers: auto"
grep -q mpirun <<<"$out" && fail "mpirun without ranks/hosts"
sed 's/^load:.*/load: {hosts: [a, b, c]}/' l.yaml > h.yaml
"$GENPERF" run h.yaml --dry-run | grep -q "^mpirun -n 3 --host a,b,c --mca odls_base_sigkill_timeout 3 $GENPERF profile " || fail "hosts alone"
# an api_key reaches remote ranks through -x GENPERF_API_KEY, never by value
printf 'api_key: SECRETKEY\n' >> h.yaml
out=$("$GENPERF" run h.yaml --dry-run)
grep -q "^mpirun -n 3 --host a,b,c -x GENPERF_API_KEY --mca odls_base_sigkill_timeout 3 $GENPERF profile " <<<"$out" || fail "-x GENPERF_API_KEY"
grep -q SECRETKEY <<<"$out" && fail "api key printed"

# validation: one line each, naming the key
check_err() { # yaml-load-line expected-text
  sed "s/^load:.*/load: $1/" l.yaml > bad.yaml
  if "$GENPERF" run bad.yaml --dry-run >/dev/null 2>err.txt; then fail "accepted load: $1"; fi
  cat err.txt
  [ "$(wc -l <err.txt)" = 1 ] || fail "more than one line for load: $1"
  grep -qF -- "$2" err.txt || fail "load: $1: want '$2'"
}
check_err '{ranks: 0}' "bad.yaml: 'load.ranks' must be an integer >= 1"
check_err '{workers: 0}' "bad.yaml: 'load.workers' must be an integer >= 1 or auto"
check_err '{workers: two}' "'load.workers' must be an integer >= 1 or auto"
check_err '{rank: 2}' "bad.yaml: unknown key 'load.rank' (known: workers, ranks, hosts, mpirun_args)"
check_err '{hosts: []}' "'load.hosts' must be a non-empty list of strings"
check_err '{hosts: ["a,b"]}' "'load.hosts' must be a list of host names without commas or spaces (item 1 is not)"
check_err '{mpirun_args: --oversubscribe}' "'load.mpirun_args' must be a list of strings"
check_err '[2]' "bad.yaml: 'load' must be a mapping"

# mpirun missing with ranks > 1: one line naming the fix, before any cell runs
if PATH=/nonexistent "$GENPERF" run l.yaml >out.txt 2>err.txt; then fail "ran without mpirun"; fi
cat err.txt
[ "$(wc -l <err.txt)" = 1 ] || fail "missing mpirun: more than one line"
grep -q "l.yaml: load asks for mpirun (ranks 3, hosts) but mpirun is not on PATH; install Open MPI (apt-get install openmpi-bin)" err.txt
[ ! -e arts/l ] || fail "a cell directory was made without mpirun"
PATH=/nonexistent "$GENPERF" run l.yaml --dry-run | grep -q "^# warning: mpirun is not on PATH" || fail "dry-run warning"

# a real run: 2 ranks x 2 workers against genperf serve in attach mode
command -v mpirun >/dev/null || { echo "mpirun not installed: skipping the real run"; exit 77; }
ldd "$GENPERF" 2>/dev/null | grep -q libmpi || { echo "genperf built without MPI"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
unset http_proxy HTTP_PROXY all_proxy ALL_PROXY
"$GENPERF" serve --model sim --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
sed -e "s|^url:.*|url: $url|" -e "s|^artifact_dir:.*|artifact_dir: $TMPDIR/real|" \
    -e 's/^load:.*/load: {workers: 2, ranks: 2, mpirun_args: [--allow-run-as-root, --oversubscribe]}/' l.yaml > r.yaml
timeout 120 "$GENPERF" run r.yaml >run.out 2>run.err || { cat run.out run.err; fail "run with ranks: 2: exit $?"; }
cat run.out
[ "$(grep -c 'LLM Metrics' run.out)" = 1 ] || fail "expected one console table (rank 0 only)"
d=$(dirname "$(ls "$TMPDIR"/real/l/c4_isl16_osl4/*/profile_export_c4_isl16_osl4_genai_perf.json)")
python3 - "$d" <<'PY' || fail "artifacts of the 2-rank run"
import json, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(d + "/profile_export_c4_isl16_osl4_records.jsonl")]
assert len(recs) == 12 and all(r["status"] == "ok" for r in recs), recs
assert {r["worker"] for r in recs} == {0, 1, 2, 3}, {r["worker"] for r in recs}
so = json.load(open(d + "/profile_export_c4_isl16_osl4_genperf.json"))["scale_out"]
assert so["ranks"] == 2 and so["workers"] == 2, so
assert json.load(open(d + "/genperf_run.json"))["scenario"] == "l"
PY
[ -s "$TMPDIR/real/genperf.db" ] || fail "cell not ingested"
grep -q "genperf run: cell 1/1: concurrency 4" run.out
echo ok
