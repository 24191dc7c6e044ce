#!/usr/bin/env bash
# issue 14: a bearer token (and any --redact-header header) never reaches a
# file, a database row, a page, a log or the process list. profile (-H and
# --api-key-file), ingest into SQLite, run (scenario api_key: dry-run and a
# real attach run), report and ui are all exercised; then every byte written
# is grepped for the secrets. genperf serve --api-key proves the key was sent.
set -eu
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
KEY="sk-e2eSECRET0123456789"
TENANT="tenant-e2eSECRET-42"
start_serve --model sim --api-key "$KEY" --ttft-ms 150 --itl-ms 1 --quiet --timing-log "$TMPDIR/timing.jsonl"
[ "$SERVER" = serve ] || fail "genperf serve did not start"
SPID=${PIDS[-1]}
common=(-m sim --url "$URL" --tokenizer builtin --endpoint-type chat --streaming --isl 16 --osl 4
        --num-dataset-entries 4 --request-count 4 --concurrency 2)

# 1. -H Authorization + a custom secret header named by --redact-header;
#    `ps` must not show either value while the run is going on.
"$GENPERF" profile "${common[@]}" -H "Authorization: Bearer $KEY" -H "X-Tenant: $TENANT" \
  --redact-header X-Tenant --artifact-dir a1 --request-timeout 30 >p1.out 2>p1.err &
ppid=$!
sleep 0.25
ps -o args= -p $ppid >ps1.txt || true
wait $ppid || { cat p1.err; fail "profile with -H Authorization failed"; }
grep -q "Authorization: \*\*\*" ps1.txt || { cat ps1.txt; fail "ps does not show the scrubbed -H"; }
run1=$(ls -d a1/*/)
g1=$(ls "$run1"*_genai_perf.json)
json_get "$g1" 'd["input_config"]["input"]["header"]' | grep -q "'Authorization: \*\*\*', 'X-Tenant: \*\*\*'" ||
  fail "input_config.header not redacted: $(json_get "$g1" 'd["input_config"]["input"]["header"]')"

# 2. --api-key-file and $GENPERF_API_KEY: the key on no command line
printf '%s\n' "$KEY" >key.txt
"$GENPERF" profile "${common[@]}" --api-key-file key.txt --artifact-dir a2 >p2.out 2>p2.err ||
  { cat p2.err; fail "--api-key-file run failed"; }
GENPERF_API_KEY="$KEY" "$GENPERF" profile "${common[@]}" --artifact-dir a3 >p3.out 2>p3.err ||
  { cat p3.err; fail "GENPERF_API_KEY run failed"; }
# without a key the server refuses: the key above was really sent
"$GENPERF" profile "${common[@]}" --artifact-dir a4 >p4.out 2>p4.err && fail "no key accepted"
grep -q "401" p4.err || { cat p4.err; fail "expected a 401 without the key"; }
for d in a1 a2 a3; do
  [ "$(json_get "$(ls $d/*/*_genperf.json)" 'd["requests"]["ok"]')" = 4 ] || fail "$d: not 4 ok requests"
done

# 3. ingest (also a GenAI-Perf-written artifact carrying the raw header)
"$GENPERF" ingest "$run1" --db gp.db >i1.out 2>&1 || { cat i1.out; fail "ingest failed"; }
mkdir -p real/run && cp "$run1"* real/run/
python3 - "$(ls real/run/*_genai_perf.json)" "$KEY" <<'PY'
import json, sys
p, key = sys.argv[1], sys.argv[2]
d = json.load(open(p))
d["input_config"]["input"]["header"] = ["Authorization: Bearer " + key, "api-key: " + key]
json.dump(d, open(p, "w"))
PY
"$GENPERF" ingest real/run --db gp.db >i2.out 2>&1 || { cat i2.out; fail "ingest of a raw-header artifact failed"; }
"$GENPERF" query --db gp.db "SELECT input_config FROM jobs" >q.out 2>&1
grep -q 'api-key: \*\*\*' q.out || { cat q.out; fail "ingested input_config not redacted"; }
rm -rf real   # our own copy with the raw key: not an output of genperf

# 4. genperf run: scenario api_key, dry-run and a real attach run
cat >s.yaml <<Y
name: sec
model: sim
tokenizer: builtin
framework: attach
url: $URL
concurrency: 2
isl: 16
osl: 4
requests: 4
api_key: $KEY
artifact_dir: $TMPDIR/runarts
Y
"$GENPERF" run s.yaml --dry-run >r1.out 2>&1 || { cat r1.out; fail "run --dry-run failed"; }
"$GENPERF" run s.yaml --db gp.db >r2.out 2>&1 || { cat r2.out; fail "run failed"; }
json_get "$(ls runarts/sec/*/*/*_genperf.json | head -n1)" 'd["requests"]["ok"]' | grep -qx 4 ||
  fail "the scenario's api_key was not sent"

# 5. report and ui (page + every /api endpoint)
"$GENPERF" report "$run1" -o report.html >rep.out 2>&1 || { cat rep.out; fail "report failed"; }
"$GENPERF" ui --db gp.db --port 0 --port-file ui.url >ui.log 2>&1 & PIDS+=($!)
wait_file ui.url 10 || fail "ui did not start"
U=$(cat ui.url)
for path in / /api/jobs "/api/job?id=1" "/api/job/requests?id=1" "/api/job/telemetry?id=1" "/api/compare?ids=1,2"; do
  curl -sf "$U$path" >>ui_pages.txt || true
done
[ -s ui_pages.txt ] || fail "ui served nothing"

# the server's own log: 3 profiles + the run's 4 with the key; the 4 keyless ones 401
kill $SPID; wait $SPID 2>/dev/null || true; PIDS=("${PIDS[@]/$SPID}")
ok=$(grep -c '"outcome":"ok"' timing.jsonl || true)
[ "$ok" = 16 ] || fail "server logged $ok ok requests, expected 16"

# 5b. credentials in --url's userinfo (two replicas, and a --server-metrics-url):
#     input_config.url, the per-endpoint breakdown, the telemetry block and the
#     database must show "user:***@", never the password or a lone token
PASSWD="pw-e2eSECRET-77"
UTOK="tok-e2eSECRET-88"
start_serve --quiet
HP=${URL#http://}
"$GENPERF" profile -m sim --tokenizer builtin --endpoint-type chat --streaming --isl 16 --osl 4 \
  --num-dataset-entries 4 --request-count 4 --concurrency 2 --artifact-dir a5 \
  --urls "http://alice:$PASSWD@$HP" "http://$UTOK@$HP" \
  --server-metrics-url "http://alice:$PASSWD@$HP/metrics" >p5.out 2>p5.err ||
  { cat p5.err; fail "profile with credentials in --url failed"; }
g5=$(ls a5/*/*_genai_perf.json)
json_get "$g5" 'd["input_config"]["endpoint"]["url"]' | grep -qxE "http://(alice:)?\*\*\*@$HP" ||
  fail "input_config.endpoint.url not redacted: $(json_get "$g5" 'd["input_config"]["endpoint"]["url"]')"
json_get "$(ls a5/*/*_genperf.json)" '[e["url"] for e in d["scale_out"]["endpoints"]]' | grep -qF "http://***@$HP" ||
  fail "endpoint breakdown url not redacted"
"$GENPERF" ingest a5/*/ --db gp.db >i5.out 2>&1 || { cat i5.out; fail "ingest of the credentials run failed"; }

# 6. no secret anywhere: every file under TMPDIR (artifacts, db, html, logs,
#    stdout/stderr), except the key file we wrote and the scenario (input)
hits=$(grep -rlaF -e "$KEY" -e "$TENANT" -e "$PASSWD" -e "$UTOK" . | grep -v -e '^./key.txt$' -e '^./s.yaml$' || true)
[ -z "$hits" ] || { echo "$hits"; for f in $hits; do grep -aoF -m3 -e "$KEY" -e "$TENANT" -e "$PASSWD" -e "$UTOK" "$f" | head -3; done
                    fail "secret written to the files above"; }
echo "no secret in $(find . -type f | wc -l) files"
