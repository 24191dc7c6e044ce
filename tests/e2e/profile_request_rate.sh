# --request-rate: open loop at the asked rate (constant, Poisson and gamma), with
# --max-concurrency capping requests in flight. The arrival process is recorded (issue 38
# item 9): *_genperf.json "arrivals" {"process", gamma's "burstiness"}, input_config's genperf
# extension {"request_rate_mode", "burstiness"} for poisson and gamma only (a constant run
# keeps GenAI-Perf's input_config), and one console line naming it; a run given an AIPerf
# flag and --request-rate-mode is not told the mode is constant.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 4 --token-ms 1
cd "$TMPDIR"
t0=$(date +%s%N)
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-rate 40 --request-count 40 >out.txt 2>err.txt
rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
ms=$(( (t1 - t0) / 1000000 ))
# 40 arrivals 25 ms apart: the last one is sent at 975 ms
[ $ms -ge 950 ] && [ $ms -lt 4000 ] || fail "constant rate run took $ms ms, want ~1 s"
[ -d artifacts/m-openai-chat-request_rate40.0 ] || fail "run dir name"
[ "$(wc -l <"$LOG")" -eq 40 ] || fail "want 40 requests"
arrivals() { # run_dir: "<genperf.json arrivals> <input_config.genperf or None>"
  python3 - "$1" <<'PY'
import json, sys
d = sys.argv[1]
g = json.load(open(d + "/profile_export_genperf.json"))
ic = json.load(open(d + "/profile_export_genai_perf.json"))["input_config"]
print(json.dumps(g.get("arrivals"), sort_keys=True), json.dumps(ic.get("genperf"), sort_keys=True))
PY
}
[ "$(arrivals artifacts/m-openai-chat-request_rate40.0)" = '{"process": "constant"} null' ] ||
  fail "constant: arrivals $(arrivals artifacts/m-openai-chat-request_rate40.0)"
grep -q "^genperf: arrivals: constant at 40 requests/s (one every 25 ms" err.txt || fail "constant: no arrivals line"
: >"$LOG"
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-rate 50 --request-count 60 --request-distribution poisson \
  --max-concurrency 2 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "poisson exit $rc"
[ "$(wc -l <"$LOG")" -eq 60 ] || fail "want 60 requests"
maxc=$(awk '{print $3}' "$LOG" | sort -n | tail -1)
[ "$maxc" -le 2 ] || fail "--max-concurrency 2 exceeded: $maxc"
[ "$(arrivals artifacts/m-openai-chat-request_rate50.0)" = '{"process": "poisson"} {"request_rate_mode": "poisson"}' ] ||
  fail "poisson: arrivals $(arrivals artifacts/m-openai-chat-request_rate50.0)"
grep -q "^genperf: arrivals: poisson at 50 requests/s (exponential gaps, mean 20 ms)$" err.txt || fail "poisson: no arrivals line"
: >"$LOG"
# gamma, with an AIPerf spelling (--request-timeout-seconds): no note that the mode is constant
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --request-rate 60 --request-count 60 --request-rate-mode gamma --burstiness 0.5 \
  --request-timeout-seconds 30 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "gamma exit $rc"
[ "$(wc -l <"$LOG")" -eq 60 ] || fail "gamma: want 60 requests"
[ "$(arrivals artifacts/m-openai-chat-request_rate60.0)" = \
  '{"burstiness": 0.5, "process": "gamma"} {"burstiness": 0.5, "request_rate_mode": "gamma"}' ] ||
  fail "gamma: arrivals $(arrivals artifacts/m-openai-chat-request_rate60.0)"
grep -q "^genperf: arrivals: gamma at 60 requests/s, burstiness 0.5 (gamma gaps of shape 0.5, mean 16.7 ms: burstier than Poisson)$" err.txt ||
  fail "gamma: no arrivals line"
grep -q "AIPerf's --request-timeout-seconds read as --request-timeout" err.txt || fail "gamma: AIPerf flag not read"
grep -q "request-rate-mode constant" err.txt && fail "gamma run told its mode is constant"
echo ok
