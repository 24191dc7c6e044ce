# `--url` given several times (replicas, issue 17): two `genperf serve`
# instances; round robin sends each exactly half (their own timing logs and
# success counters say so), least_in_flight uses both; *_genperf.json gets
# scale_out.endpoints (count, throughput, TTFT/ITL p50/p99, failures) and
# GenAI-Perf's files keep their aggregate shape; a bad --url-strategy is a
# usage error. (One --url byte for byte as before: golden_artifacts.sh.)
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

"$GENPERF" profile "${common[@]}" --url "$A" --url "$B" --request-count 40 --artifact-dir rr >o1.txt 2>e1.txt || \
  { cat e1.txt; fail "round robin: exit $?"; }
[ "$(successes "$A")" = 20 ] || fail "server A served $(successes "$A"), expected 20"
[ "$(successes "$B")" = 20 ] || fail "server B served $(successes "$B"), expected 20"
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

"$GENPERF" profile "${common[@]}" --url "$A" --url "$B" --url-strategy least_in_flight --request-count 40 \
  --workers 2 --artifact-dir lif >o2.txt 2>e2.txt || { cat e2.txt; fail "least_in_flight: exit $?"; }
python3 - lif/m-openai-chat-concurrency4 <<'PY' || fail "least_in_flight artifacts"
import json, sys
eps = json.load(open(sys.argv[1] + "/profile_export_genperf.json"))["scale_out"]["endpoints"]
n = [e["requests"] for e in eps]
assert sum(n) == 40 and min(n) > 0 and sum(e["failed"] for e in eps) == 0, eps
print("least_in_flight split:", n)
PY

# the timing logs (written when the servers exit) count each one's share
kill "$PA" "$PB"; wait "$PA" "$PB" 2>/dev/null; PIDS=()
na=$(wc -l <a.jsonl); nb=$(wc -l <b.jsonl)
[ "$na" -ge 20 ] && [ "$nb" -ge 20 ] && [ $((na + nb)) = 80 ] || fail "timing logs: $na + $nb lines, expected 80 in all"

"$GENPERF" profile "${common[@]}" --url "$A" --url-strategy nearest >/dev/null 2>bad.txt && fail "bad strategy accepted"
grep -q "argument --url-strategy: invalid choice: 'nearest'" bad.txt || fail "unexpected message: $(cat bad.txt)"
echo ok
