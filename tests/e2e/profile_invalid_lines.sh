#!/usr/bin/env bash
# What invalidates a benchmark is said on the console, not only in *_genperf.json (issue 28 item 4):
# one line each for a server that answers another OSL than asked (64 tokens to every --osl 16:
# before, only "osl_mismatch": 20 in the JSON), --server-usage with a server that sends no usage,
# client and server token counts that disagree (serve --miscount-rate), TTFT that includes the
# reasoning (with TTFR and TTFO beside it), and failures broken down by kind and HTTP status.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
prof() { "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --output-tokens-mean 16 --concurrency 2 --request-count 20 \
  --artifact-dir "$TMPDIR/art.$1" "${@:2}" >/dev/null 2>"$1.err"; }
gj() { json_get art.$1/*/*_genperf.json "$2"; }

# a server that ignores max_tokens (mock-llm's 64 tokens) and one that sends no usage
start_stub --fixed-tokens 64 --token-ms 0 --no-usage
prof osl --server-usage; check_rc $? 0
grep -qF "genperf: warning: the server's output length differs from the requested OSL in 20 of 20 requests (20 longer, 0 shorter; asked 16.0 tokens on average" osl.err ||
  { cat osl.err; fail "OSL mismatch line"; }
[ "$(gj osl 'd["requests"]["osl_mismatch"]')" = 20 ] || fail "osl_mismatch in the JSON"
grep -qF "genperf: warning: --server-usage was given but the server sent no usage in any of the 20 successful responses" osl.err ||
  { cat osl.err; fail "no-usage line"; }
stop_serve

start_serve --zero-delay --quiet --miscount-rate 0.5 --seed 3
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
prof miscount --server-usage --extra-inputs ignore_eos:true; check_rc $? 0
want=$(gj miscount 'd["token_accounting"]["osl_vs_completion_tokens"]["disagree"]')
[ "$want" -gt 0 ] || fail "miscount: no disagreement in the JSON"
grep -qF "genperf: warning: client and server output token counts disagree in $want of 20 requests" miscount.err ||
  { cat miscount.err; fail "token disagreement line (want $want of 20)"; }
stop_serve

start_serve --ttft-ms 5 --itl-ms 3 --reasoning 4 --quiet
prof reason --server-usage --extra-inputs ignore_eos:true; check_rc $? 0
# usage.completion_tokens counts the reasoning tokens too: no false disagreement, no OSL line
grep -qE "disagree|output length differs|no usage" reason.err && { cat reason.err; fail "reasoning run: false warning"; }
line=$(grep "genperf: note: TTFT includes reasoning: " reason.err) || { cat reason.err; fail "reasoning line"; }
python3 - "$line" art.reason/*/*_genperf.json <<'PY' || fail "reasoning line figures"
import json, re, sys
line, d = sys.argv[1], json.load(open(sys.argv[2]))
m = re.search(r"(\d+) of (\d+) requests reasoned before answering; time to first token \(content\) avg ([0-9.]+) ms, "
              r"to first reasoning token \(TTFR\) avg ([0-9.]+) ms, to first output token of either kind \(TTFO\) avg ([0-9.]+) ms", line)
assert m, line
nr, n, ttft, ttfr, ttfo = int(m[1]), int(m[2]), float(m[3]), float(m[4]), float(m[5])
print(line)
assert nr == n == 20, (nr, n)
assert abs(ttfr - d["reasoning"]["time_to_first_reasoning_token"]["avg"]) < 0.01, ttfr
assert ttfo == ttfr and ttft > ttfr + 8, (ttft, ttfr, ttfo)  # 4 reasoning tokens 3 ms apart come first
PY
grep -q "reasoning" osl.err && fail "a run without reasoning mentions it"
stop_serve

start_serve --zero-delay --quiet --seed 5 --fault-rate-429 0.15 --fault-rate-500 0.15 --fault-rate-stream-error 0.15
prof faults --request-count 60; check_rc $? 0
line=$(grep "genperf: failures by kind: " faults.err) || { cat faults.err; fail "failures line"; }
python3 - "$line" art.faults/*/*_genperf.json <<'PY' || fail "failures line figures"
import json, re, sys
line, d = sys.argv[1], json.load(open(sys.argv[2]))
print(line)
want = {"HTTP " + k: v for k, v in d["http_error_statuses"].items()}
want.update({k: v for k, v in d["failures"].items() if v and k != "http"})
got = {m[2]: int(m[1]) for m in re.finditer(r"(\d+) (HTTP \d+|[a-z_]+)", line.split(": ", 1)[1].split(" (of")[0])}
assert got == want and len(got) == 3, (got, want)
PY
grep -q "failures by kind" reason.err && fail "a run without failures prints the failures line"
echo "profile_invalid_lines: all checks passed"
