#!/usr/bin/env bash
# A 2xx that carried no answer never looks clean (issue 26 item 1; issue 27 item 4), against
# tests/e2e/hostile_stub.py: a 200 text/html page, a stream of malformed events + [DONE] and a 204
# are `no_content` failures with their reason, the run exits 1 when nothing completed and 3 past
# --max-failure-rate; a real empty answer stays ok with request_count 0 and a warning. Every run's
# artifacts parse and `genperf ingest` accepts them (it refused the *_genai_perf.json these runs
# used to leave: no metrics at all).
. "$GP_ROOT/tests/e2e/hostile_common.inc"

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
echo "hostile 2xx: ok"
