#!/usr/bin/env bash
# A 2xx that did not measure never looks clean (issue 26 items 1, 2, 6, 7; issue 27 item 4), against
# tests/e2e/hostile_stub.py (one server; each run's model name picks the hostile answer): a 200
# text/html page, a stream of malformed events + [DONE] and a 204 are `no_content` failures with
# their reason, the run exits 1 when nothing completed and 3 past --max-failure-rate; a real empty
# answer stays ok with request_count 0; a stream cut inside an event by a short Content-Length is
# a `truncated` failure; `event: no_error_here` is an ordinary event; usage counts out of range,
# fractional or negative are null with a counted `bad_usage` (item 6). Every run's artifacts
# parse and `genperf ingest` accepts them.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
LOG="$TMPDIR/hostile.log"; : >"$LOG"
python3 "$GP_ROOT/tests/e2e/hostile_stub.py" --port-file "$TMPDIR/url" --log "$LOG" --mode model &
PIDS+=($!)
wait_file "$TMPDIR/url" 10 || fail "hostile stub did not start"
URL=$(head -n1 "$TMPDIR/url")

# profile MODE N [args...]: N requests answered as MODE; rc = exit status, D = the run directory;
# its artifacts must parse and ingest must add it
profile() {
  local mode=$1 n=$2; shift 2
  "$GENPERF" profile -m "$mode" --endpoint-type chat --tokenizer builtin --isl 8 --streaming --url "$URL" \
    --request-count "$n" --artifact-dir "a.$mode" "$@" >"o.$mode" 2>"e.$mode"; rc=$?
  cat "e.$mode"
  D=$(ls -d a.$mode/*/)
  check_artifacts "$D" "$n"
  "$GENPERF" ingest "a.$mode" --db "$TMPDIR/gp.db" >"i.$mode" 2>&1 || { cat "i.$mode"; fail "$mode: ingest refused the run"; }
  grep -q "1 added" "i.$mode" || { cat "i.$mode"; fail "$mode: ingest did not add the run"; }
}

# check "python asserts": G (*_genperf.json), J (*_genai_perf.json), R (records, measured) bound
check() {
  python3 - "$D" "$1" <<'PY' || fail "checks of $D"
import glob, json, os, sys
d = sys.argv[1]
one = lambda p: json.load(open(glob.glob(os.path.join(d, p))[0]))
G, J = one("*_genperf.json"), one("*_genai_perf.json")
R = [json.loads(l) for l in open(glob.glob(os.path.join(d, "*_records.jsonl"))[0])]
F = G["failures"]
exec(sys.argv[2])
PY
}

# 200 text/html (a proxy's login page): no_content, exit 1, a *_genai_perf.json with request_count 0
profile html 3
check_rc $rc 1
grep -q "all 3 requests .* failed: no_content: text/html body (HTTP 200, 92 bytes): <!DOCTYPE html>" e.html || fail "html: exit-1 line"
check '
assert F["no_content"] == 3, F
assert all(r["fail_kind"] == "no_content" and r["status"] == "failed" for r in R), R[0]
assert J["request_count"]["avg"] == 0.0 and J["request_throughput"]["avg"] == 0.0, J'

# a stream of 12 malformed events, then [DONE]
profile malformed 3
check_rc $rc 1
grep -q "failed: no_content: 12 malformed events" e.malformed || fail "malformed: reason"
check 'assert F["no_content"] == 3, F'

# 204 No Content
profile 204 3
check_rc $rc 1
grep -q "failed: no_content: 204 (no body)" e.204 || fail "204: reason"
check 'assert F["no_content"] == 3, F'

# one request in 2 is an HTML page: --max-failure-rate counts them (exit 3)
profile html_every2 4 --max-failure-rate 0.1
check_rc $rc 3
grep -q "error: 2 of 4 requests failed (50.0%), more than --max-failure-rate 0.1 allows" e.html_every2 || fail "mix: exit-3 line"
check 'assert F["no_content"] == 2 and G["requests"]["ok"] == 2 and J["request_count"]["avg"] == 2.0, (F, G["requests"])'

# a real but empty answer (finish chunk, [DONE], no content) stays ok, as in GenAI-Perf: the run
# completes with a warning and request_count 0
profile empty 3
check_rc $rc 0
grep -q "warning: none of the 3 completed requests carried content" e.empty || fail "empty: warning"
check 'assert G["requests"]["ok_without_content"] == 3 and J["request_count"]["avg"] == 0.0, (G["requests"], J)'

# Content-Length shorter than the body: two tokens, the third event cut in half, no [DONE], no
# finish_reason: a truncated failure, not an ok request with half its output
profile short_cl 3
check_rc $rc 1
grep -q "failed: stream cut before finish_reason and \[DONE\]: the body ended inside an event" e.short_cl || fail "short_cl: reason"
check 'assert F["truncated"] == 3, F'

# `event: no_error_here` is not an error event
profile event_name 3
check_rc $rc 0
check 'assert G["requests"]["ok"] == 3 and J["output_sequence_length"]["avg"] == 8.0, (G["requests"], J)  # 2 x "tok ", builtin tokenizer: bytes'
# usage.completion_tokens out of range, fractional, negative: null and counted, never a number
for m in usage_big usage_frac usage_neg; do
  profile $m 3
  check_rc $rc 0
  check '
assert G["requests"]["bad_usage"] == 3, G["requests"]
assert all(r["server_completion_tokens"] is None and r["server_prompt_tokens"] == 5 for r in R), R[0]'
done
echo "hostile 2xx: ok"
