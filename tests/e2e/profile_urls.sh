# Several endpoints (replicas, issue 17), asked for with --urls: two `genperf
# serve` instances; round robin sends each exactly half (their own timing logs
# and success counters say so, and so do the console lines naming each
# endpoint), least_in_flight uses both; *_genperf.json gets
# scale_out.endpoints (count, throughput, TTFT/ITL p50/p99, failures) and
# GenAI-Perf's files keep their aggregate shape; a bad --url-strategy is a
# usage error. (One --url byte for byte as before: golden_artifacts.sh.)
# A repeated --url keeps the last, as GenAI-Perf's argparse does (issue 28):
# every request goes to B, a note on stderr names the one not used; with
# --url-strategy the old two---url spelling is a usage error naming --urls.
# Ingested into SQLite, the breakdown becomes job_endpoints rows that match
# the JSON and sum to the request count; a one --url run adds none.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --ttft-ms 5 --itl-ms 1 --quiet --timing-log "$TMPDIR/a.jsonl"
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
A=$URL; PA=${PIDS[0]}
start_serve --ttft-ms 20 --itl-ms 2 --quiet --timing-log "$TMPDIR/b.jsonl"
B=$URL; PB=${PIDS[1]}
cd "$TMPDIR"
common=(-m m --endpoint-type chat --streaming --tokenizer builtin --synthetic-input-tokens-mean 16
        --output-tokens-mean 10 --random-seed 7 --concurrency 4)
successes() { curl -s "$1/metrics" | awk '/^vllm:request_success_total/ {s += $2} END {print s + 0}'; }

"$GENPERF" profile "${common[@]}" --urls "$A" "$B" --request-count 40 --artifact-dir rr >o1.txt 2>e1.txt || \
  { cat e1.txt; fail "round robin: exit $?"; }
[ "$(successes "$A")" = 20 ] || fail "server A served $(successes "$A"), expected 20"
[ "$(successes "$B")" = 20 ] || fail "server B served $(successes "$B"), expected 20"
grep -qF "genperf: 2 endpoints (--urls, --url-strategy round_robin)" e1.txt &&
  grep -qxF "genperf:   $A/v1/chat/completions: 20 requests (50.0%), 0 failed" e1.txt &&
  grep -qxF "genperf:   $B/v1/chat/completions: 20 requests (50.0%), 0 failed" e1.txt ||
  fail "the console does not name both endpoints and their split: $(cat e1.txt)"
grep -q "note: -u/--url" e1.txt && fail "--urls run printed the repeated --url note"

# a repeated --url: the last wins (GenAI-Perf); the first server gets nothing
"$GENPERF" profile "${common[@]}" --url "$A" --url "$B" --request-count 8 --artifact-dir last >o4.txt 2>e4.txt || \
  { cat e4.txt; fail "repeated --url: exit $?"; }
[ "$(successes "$A")" = 20 ] && [ "$(successes "$B")" = 28 ] ||
  fail "repeated --url split the load: A served $(( $(successes "$A") - 20 )), B $(( $(successes "$B") - 20 )) of 8"
grep -qF "genperf: note: -u/--url given 2 times: the last wins, as in GenAI-Perf; every request goes to $B ($A is not used)" e4.txt ||
  fail "no note that the first --url was replaced: $(cat e4.txt)"
grep -q "endpoints" last/m-openai-chat-concurrency4/profile_export_genperf.json && fail "repeated --url wrote an endpoint breakdown"
[ "$(json_get last/m-openai-chat-concurrency4/profile_export_genai_perf.json 'd["input_config"]["endpoint"]["url"]')" = "$B" ] ||
  fail "input_config.url is not the last --url"
# ... and with --url-strategy it is the old spelling of two endpoints: refused, naming --urls
"$GENPERF" profile "${common[@]}" --url "$A" --url "$B" --url-strategy least_in_flight >/dev/null 2>e5.txt; rc=$?
[ $rc = 2 ] && grep -qF "argument --url-strategy: -u/--url was given 2 times and the last one wins" e5.txt &&
  grep -qF -- "--urls URL URL" e5.txt || fail "--url twice with --url-strategy: exit $rc, $(cat e5.txt)"
python3 - rr/m-openai-chat-concurrency4 "$A" "$B" <<'PY' || fail "round robin artifacts"
import json, sys
d, a, b = sys.argv[1:4]
g = json.load(open(d + "/profile_export_genai_perf.json"))
assert g["request_count"]["avg"] == 40.0, g["request_count"]
assert "endpoints" not in json.dumps(g)
eps = json.load(open(d + "/profile_export_genperf.json"))["scale_out"]["endpoints"]
assert [e["url"] for e in eps] == [a + "/v1/chat/completions", b + "/v1/chat/completions"], eps
assert [e["requests"] for e in eps] == [20, 20] and [e["failed"] for e in eps] == [0, 0], eps
for e in eps:
    assert e["request_throughput"] > 0 and e["output_token_throughput"] > 0, e
    assert 0 < e["time_to_first_token_ms"]["p50"] <= e["time_to_first_token_ms"]["p99"], e
    assert e["inter_token_latency_ms"]["p50"] > 0, e
# B is the slow one (TTFT 20 ms vs 5 ms): the breakdown must tell them apart
assert eps[1]["time_to_first_token_ms"]["p50"] > 2 * eps[0]["time_to_first_token_ms"]["p50"], eps
PY

# the results store: one job_endpoints row per --url, equal to the JSON's figures
"$GENPERF" ingest rr --db "sqlite://$TMPDIR/r.db" >ing.txt 2>&1 || { cat ing.txt; fail "ingest of rr"; }
"$GENPERF" query --db "sqlite://$TMPDIR/r.db" --format json \
  "SELECT e.*, j.requests_ok + j.requests_failed AS job_requests FROM v_endpoint_breakdown e JOIN jobs j ON j.id = e.job_id ORDER BY endpoint_index" \
  >eps.json || fail "query of v_endpoint_breakdown"
python3 - rr/m-openai-chat-concurrency4 eps.json <<'PY' || fail "job_endpoints rows differ from the JSON"
import json, sys
eps = json.load(open(sys.argv[1] + "/profile_export_genperf.json"))["scale_out"]["endpoints"]
rows = json.load(open(sys.argv[2]))
assert len(rows) == len(eps) == 2, rows
assert sum(r["requests"] for r in rows) == rows[0]["job_requests"] == 40, rows
for e, r in zip(eps, rows):
    assert (r["endpoint_index"], r["url"], r["requests"], r["failed"]) == (e["endpoint"], e["url"], e["requests"], e["failed"]), (e, r)
    assert r["request_share"] == 0.5 and r["model"] == "m", r
    for k, sub, col in (("time_to_first_token_ms", "p50", "ttft_p50_ms"), ("time_to_first_token_ms", "p99", "ttft_p99_ms"),
                        ("inter_token_latency_ms", "p50", "itl_p50_ms"), ("inter_token_latency_ms", "p99", "itl_p99_ms"),
                        ("request_throughput", None, "request_throughput"), ("output_token_throughput", None, "output_token_throughput")):
        want = e[k][sub] if sub else e[k]
        assert abs(r[col] - want) <= 1e-9 * max(1.0, abs(want)), (col, want, r[col])
PY

# and `genperf results --endpoints` prints them
"$GENPERF" results --db "sqlite://$TMPDIR/r.db" --endpoints --format csv >res.csv || fail "results --endpoints"
[ "$(wc -l <res.csv)" = 3 ] && head -n1 res.csv | grep -q '^job_id,endpoint_index,url,requests,failed,request_share,' &&
  grep -q "^1,1,$B/v1/chat/completions,20,0,0.5," res.csv || fail "results --endpoints: $(cat res.csv)"
"$GENPERF" results --db "sqlite://$TMPDIR/r.db" --endpoints --telemetry >/dev/null 2>&1 && fail "--endpoints --telemetry accepted"

"$GENPERF" profile "${common[@]}" --urls "$A" "$B" --url-strategy least_in_flight --request-count 40 \
  --workers 2 --artifact-dir lif >o2.txt 2>e2.txt || { cat e2.txt; fail "least_in_flight: exit $?"; }
python3 - lif/m-openai-chat-concurrency4 <<'PY' || fail "least_in_flight artifacts"
import json, sys
eps = json.load(open(sys.argv[1] + "/profile_export_genperf.json"))["scale_out"]["endpoints"]
n = [e["requests"] for e in eps]
assert sum(n) == 40 and min(n) > 0 and sum(e["failed"] for e in eps) == 0, eps
print("least_in_flight split:", n)
PY
# one --url: no breakdown block, so the store adds no endpoint row for it
"$GENPERF" profile "${common[@]}" --url "$A" --request-count 8 --artifact-dir one >o3.txt 2>e3.txt || \
  { cat e3.txt; fail "one url: exit $?"; }
"$GENPERF" ingest lif one --db "sqlite://$TMPDIR/r.db" >ing2.txt 2>&1 || { cat ing2.txt; fail "ingest of lif, one"; }
n=$("$GENPERF" query --db "sqlite://$TMPDIR/r.db" --format csv \
  "SELECT COUNT(*) || '/' || SUM(requests) || '/' || COUNT(DISTINCT job_id) FROM job_endpoints" | tail -n1)
[ "$n" = "4/80/2" ] || fail "job_endpoints after rr, lif and a one-url run: $n, expected 4/80/2"

# the timing logs (written when the servers exit) count each one's share
kill "$PA" "$PB"; wait "$PA" "$PB" 2>/dev/null; PIDS=()
na=$(wc -l <a.jsonl); nb=$(wc -l <b.jsonl)
# (40 round robin + 8 repeated --url, all on B + 40 least_in_flight + the one-url run's 8, all on A)
[ "$na" -ge 28 ] && [ "$nb" -ge 28 ] && [ $((na + nb)) = 96 ] || fail "timing logs: $na + $nb lines, expected 96 in all"

"$GENPERF" profile "${common[@]}" --url "$A" --url-strategy nearest >/dev/null 2>bad.txt && fail "bad strategy accepted"
grep -q "argument --url-strategy: invalid choice: 'nearest'" bad.txt || fail "unexpected message: $(cat bad.txt)"
echo ok
