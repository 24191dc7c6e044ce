#!/usr/bin/env bash
# Hostile or broken servers cost one request each, never the run (issue 14):
# a 307 is a failure with its status, an endless stream hits the byte cap and
# fails only its own request, a server that accepts and never answers costs
# each such request its --request-timeout, an oversized SSE line (2 MiB of
# content on one line) is parsed whole or fails only against the byte cap,
# --max-failure-rate turns too many failures into exit 3; and bad command
# lines (header injection, missing colon, file:// metrics URL, --concurrency
# 0, -s 0) are one-line errors. Counts are checked against the stub's own log
# (one line per request it read); every artifact parses.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
base=(-m m --endpoint-type chat --tokenizer builtin --isl 8)

# 3xx: every request fails with the status and the redirect target
start_stub --redirect "http://127.0.0.1:1/elsewhere"
"$GENPERF" profile "${base[@]}" --url "$URL" --request-count 4 --artifact-dir r3 >o 2>e && fail "307s accepted"
grep -q "all 4 requests .* failed: OpenAI response returns HTTP code 307: not a success (2xx); redirect to http://127.0.0.1:1/elsewhere not followed" e ||
  { cat e; fail "3xx message"; }
g=$(ls r3/*/*_genperf.json)
[ "$(json_get "$g" 'd["requests"]["failed"]')" = 4 ] || fail "3xx not counted as failures"
[ "$(json_get "$g" 'd["failures"]["http"]')" = 4 ] || fail "3xx not an http failure: $(cat "$g")"
[ "$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l).get("status")=="ok"))' r3/*/*_records.jsonl)" = 0 ] ||
  fail "a 307 record says ok"
check_artifacts "$(ls -d r3/*/)" 4
[ "$(wc -l <"$LOG")" = 4 ] || fail "3xx: the stub read $(wc -l <"$LOG") requests, want 4"
cleanup; PIDS=()

# endless stream of 64 KiB events: the 1 MiB cap fails each request, memory stays bounded
start_stub --endless-event-bytes 65536
vlimit=2000000; has_asan && vlimit=unlimited   # the cap, not the limit, is what is tested
( ulimit -v $vlimit; "$GENPERF" profile "${base[@]}" --url "$URL" --streaming --request-count 3 \
    --max-response-bytes 1048576 --request-timeout 20 --artifact-dir big >o 2>e ); rc=$?
cat e
[ $rc -eq 1 ] || fail "endless streams: expected exit 1 (all failed), got $rc"
grep -q "response larger than 1048576 bytes (--max-response-bytes)" e || fail "no byte-cap error"
g=$(ls big/*/*_genperf.json)
[ "$(json_get "$g" 'd["requests"]["failed"]')" = 3 ] || fail "byte cap: not 3 failures"
n=$(grep -c "max-response-bytes" big/*/*_records.jsonl)
[ "$n" = 3 ] || fail "byte cap: $n records carry the error, expected 3"
check_artifacts "$(ls -d big/*/)" 3
[ "$(wc -l <"$LOG")" = 3 ] || fail "endless: the stub read $(wc -l <"$LOG") requests, want 3"
cleanup; PIDS=()

# a server that accepts, reads, and never answers (no status line) every 3rd request
start_stub --tokens 3 --hang-every 3
"$GENPERF" profile "${base[@]}" --url "$URL" --streaming --request-count 6 --concurrency 3 --request-timeout 1 \
  --artifact-dir hang >o 2>e; rc=$?
cat e; check_rc $rc 0
check_artifacts "$(ls -d hang/*/)" 6
[ "$(wc -l <"$LOG")" = 6 ] || fail "never-answers: the stub read $(wc -l <"$LOG") requests, want 6"
hung=$(awk '$1 % 3 == 0' "$LOG" | wc -l)
g=$(ls hang/*/*_genperf.json)
[ "$(json_get "$g" 'd["failures"]["timeout"]')" = "$hung" ] || fail "never-answers: want $hung timeouts: $(cat "$g")"
[ "$(json_get "$g" 'd["requests"]["ok"]')" = $((6 - hung)) ] || fail "never-answers: ok count"
[ "$(grep -c '"error":"request timed out after 1 s (--request-timeout)' hang/*/*_records.jsonl)" = "$hung" ] ||
  fail "never-answers: timeout error text"
grep -q "$hung of 6 requests failed; first error: request timed out" e || fail "never-answers: stderr summary"
cleanup; PIDS=()

# an oversized SSE line: the first event of each stream has 2 MiB of content on one line
# (the builtin tokenizer counts one token per byte: OSL = 2 MiB + 3 x "tok ")
start_stub --tokens 4 --big-line-bytes 2097152
"$GENPERF" profile "${base[@]}" --url "$URL" --streaming --request-count 3 --artifact-dir line >o 2>e; rc=$?
cat e; check_rc $rc 0
check_artifacts "$(ls -d line/*/)" 3
python3 - line/*/*_records.jsonl <<'PY' || fail "oversized line: records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
for r in recs:
    assert r["status"] == "ok" and r["done"] and r["bad_events"] == 0, r
    assert r["osl"] == 2097152 + 3 * len("tok ") and r["content_chunks"] == 4, (r["osl"], r["content_chunks"])
PY
"$GENPERF" profile "${base[@]}" --url "$URL" --streaming --request-count 3 --max-response-bytes 1048576 \
  --artifact-dir line2 >o 2>e; rc=$?
check_rc $rc 1
check_artifacts "$(ls -d line2/*/)" 3
[ "$(grep -c 'response larger than 1048576 bytes (--max-response-bytes)' line2/*/*_records.jsonl)" = 3 ] ||
  fail "oversized line over the cap: 3 byte-cap failures expected"
[ "$(wc -l <"$LOG")" = 6 ] || fail "oversized line: the stub read $(wc -l <"$LOG") requests, want 6"
cleanup; PIDS=()

# --max-failure-rate: 1 in 4 fails (25 %)
start_stub --tokens 2 --fail-every 4
"$GENPERF" profile "${base[@]}" --url "$URL" --request-count 8 --max-failure-rate 0.3 --artifact-dir f1 >o 2>e ||
  { cat e; fail "25% failed under a 0.3 limit must exit 0"; }
"$GENPERF" profile "${base[@]}" --url "$URL" --request-count 8 --max-failure-rate 0.1 --artifact-dir f2 >o 2>e; rc=$?
[ $rc -eq 3 ] || { cat e; fail "25% failed over a 0.1 limit: expected exit 3, got $rc"; }
grep -q "error: 2 of 8 requests failed (25.0%), more than --max-failure-rate 0.1 allows" e || { cat e; fail "exit-3 message"; }
ls f2/*/*_genai_perf.json >/dev/null || fail "exit 3 must still write the artifacts"
"$GENPERF" profile --help | grep -q "3 more requests failed than --max-failure-rate allows" || fail "exit 3 not in --help"
cleanup; PIDS=()

# command-line errors: one line each, exit 1, nothing sent
one_line_error() { # expected-substring args...
  local want=$1; shift
  "$GENPERF" profile "${base[@]}" --url http://127.0.0.1:1 "$@" >o 2>e && fail "accepted: $*"
  grep -qF -- "$want" e || { cat e; fail "message for $*: want '$want'"; }
}
one_line_error "-H 'X-A': the header contains a CR or LF" -H $'X-A: 1\r\nX-Evil: 2'
one_line_error "-H 'NoColon': a header must be 'Name: value'" -H NoColon
one_line_error "--concurrency 0: must be >= 1" --concurrency 0
one_line_error "-s/--stability-percentage 0: must be 1..999" -s 0
one_line_error "--server-metrics-url: " --server-metrics-url file:///etc/passwd
[ "$(wc -l <e)" -le 2 ] || { cat e; fail "file:// metrics URL: more than one line"; }
one_line_error "--max-failure-rate 2: must be a share between 0 and 1" --max-failure-rate 2
echo ok
