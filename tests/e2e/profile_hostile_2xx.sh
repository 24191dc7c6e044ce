#!/usr/bin/env bash
# A 2xx that did not measure never looks clean (issue 26 items 1, 2, 6, 7; issue 27 item 4), against
# tests/e2e/hostile_stub.py: a 200 text/html page, a stream of malformed events + [DONE] and a 204
# are `no_content` failures with their reason, the run exits 1 when nothing completed and 3 when
# --max-failure-rate is passed; a stream cut by a short Content-Length is a `truncated` failure;
# `event: no_error_here` is an ordinary event; absurd usage counts become null with a counted
# `bad_usage`. Every run's artifacts parse and `genperf ingest` accepts them.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
base=(-m m --endpoint-type chat --tokenizer builtin --isl 8 --streaming)

start_hostile() { # mode [--every N]
  LOG="$TMPDIR/hostile.log"; : >"$LOG"; rm -f "$TMPDIR/url"
  python3 "$GP_ROOT/tests/e2e/hostile_stub.py" --port-file "$TMPDIR/url" --log "$LOG" --mode "$@" &
  PIDS+=($!)
  wait_file "$TMPDIR/url" 10 || fail "hostile stub did not start"
  URL=$(head -n1 "$TMPDIR/url")
}

# profile MODE N [profile args...]: N requests against the stub in MODE; sets rc, G (genperf.json),
# J (genai_perf.json), R (records.jsonl)
profile() {
  local mode=$1 n=$2; shift 2
  "$GENPERF" profile "${base[@]}" --url "$URL" --request-count "$n" --artifact-dir "a.$mode" "$@" \
    >"o.$mode" 2>"e.$mode"; rc=$?
  G=$(ls a.$mode/*/*_genperf.json); J=$(ls a.$mode/*/*_genai_perf.json); R=$(ls a.$mode/*/*_records.jsonl)
  check_artifacts "$(ls -d a.$mode/*/)" "$n"
  "$GENPERF" ingest "a.$mode" --db "$TMPDIR/gp.db" >"i.$mode" 2>&1 || { cat "i.$mode"; fail "$mode: ingest refused the run"; }
  grep -q "1 added" "i.$mode" || { cat "i.$mode"; fail "$mode: ingest did not add the run"; }
}

fk() { json_get "$G" "d['failures']['$1']"; }

# 200 text/html (a proxy's login page): no_content, exit 1, and a *_genai_perf.json ingest accepts
start_hostile html
profile html 3; cat e.html
check_rc $rc 1
[ "$(fk no_content)" = 3 ] || fail "html: want 3 no_content failures: $(cat "$G")"
grep -q "all 3 requests .* failed: no_content: text/html body" e.html || fail "html: exit-1 line"
[ "$(grep -c '"fail_kind":"no_content"' "$R")" = 3 ] || fail "html: records fail_kind"
[ "$(json_get "$J" 'd["request_count"]["avg"]')" = 0.0 ] || fail "html: request_count: $(cat "$J")"
[ "$(json_get "$J" 'd["request_throughput"]["avg"]')" = 0.0 ] || fail "html: request_throughput"
cleanup; PIDS=()

# a stream of 12 malformed events, then [DONE]
start_hostile malformed
profile malformed 3; cat e.malformed
check_rc $rc 1
[ "$(fk no_content)" = 3 ] || fail "malformed: want 3 no_content failures: $(cat "$G")"
grep -q "failed: no_content: 12 malformed events" e.malformed || fail "malformed: reason"
cleanup; PIDS=()

# 204 No Content
start_hostile 204
profile 204 3; cat e.204
check_rc $rc 1
[ "$(fk no_content)" = 3 ] || fail "204: want 3 no_content failures: $(cat "$G")"
grep -q "failed: no_content: 204" e.204 || fail "204: reason"
cleanup; PIDS=()

# one request in 2 is an HTML page: --max-failure-rate counts them (exit 3), and without it the
# run still completes (exit 0) with the summary line
start_hostile html --every 2
profile mix 4 --max-failure-rate 0.1; cat e.mix
check_rc $rc 3
[ "$(fk no_content)" = 2 ] || fail "mix: want 2 no_content failures: $(cat "$G")"
[ "$(json_get "$G" 'd["requests"]["ok"]')" = 2 ] || fail "mix: want 2 ok"
[ "$(json_get "$J" 'd["request_count"]["avg"]')" = 2.0 ] || fail "mix: request_count"
grep -q "error: 2 of 4 requests failed (50.0%), more than --max-failure-rate 0.1 allows" e.mix || fail "mix: exit-3 line"
cleanup; PIDS=()

# a real but empty answer (finish chunk, [DONE], no content) stays ok, as in GenAI-Perf: the run
# completes with a warning and request_count 0 in a *_genai_perf.json that ingest accepts
start_hostile empty
profile empty 3; cat e.empty
check_rc $rc 0
[ "$(json_get "$G" 'd["requests"]["ok_without_content"]')" = 3 ] || fail "empty: want 3 ok_without_content: $(cat "$G")"
[ "$(json_get "$J" 'd["request_count"]["avg"]')" = 0.0 ] || fail "empty: request_count: $(cat "$J")"
grep -q "warning: none of the 3 completed requests carried content" e.empty || fail "empty: warning"
cleanup; PIDS=()

# `event: no_error_here` is not an error event
start_hostile event_name
profile event_name 3; cat e.event_name
check_rc $rc 0
[ "$(json_get "$G" 'd["requests"]["ok"]')" = 3 ] || fail "event_name: want 3 ok: $(cat "$G")"
[ "$(json_get "$J" 'd["output_sequence_length"]["avg"]')" = 8.0 ] || fail "event_name: OSL (2 x \"tok \", builtin tokenizer: bytes)"
cleanup; PIDS=()

echo "hostile 2xx: ok"
