#!/usr/bin/env bash
# A 200 whose JSON is no answer fails (issue 38 item 6), against tests/e2e/hostile_stub.py: a
# 200 application/json `{}` or `{"status":"ok"}` and a stream of `{"foo":1}` then [DONE] are
# `no_content` failures naming what came (the object's keys), and the run exits 1 since nothing
# completed; a Responses API response.completed whose response has status "failed" is a
# stream_error. They used to count as ok without content (exit 0, request count 0).
. "$GP_ROOT/tests/e2e/hostile_common.inc"

STREAMING= profile json_empty 3
check_rc $rc 1
grep -q "all 3 requests .* failed: no_content: 200 with a JSON object that is no chat completion (keys: none)" e.json_empty || fail "json_empty: exit-1 line"
check '
assert F["no_content"] == 3 and G["requests"]["ok"] == 0, (F, G["requests"])
assert all(r["fail_kind"] == "no_content" for r in R), R[0]'

STREAMING= profile json_status 3
check_rc $rc 1
grep -q "failed: no_content: 200 with a JSON object that is no chat completion (keys: status)" e.json_status || fail "json_status: reason"
check 'assert F["no_content"] == 3 and G["requests"]["ok"] == 0, (F, G["requests"])'

profile foreign_stream 3
check_rc $rc 1
grep -q "failed: no_content: 200 stream whose 1 JSON event is no chat completion chunk (keys: foo)" e.foreign_stream || fail "foreign_stream: reason"
check '
assert F["no_content"] == 3 and G["requests"]["ok"] == 0, (F, G["requests"])
assert G["requests"]["malformed_events"] == 3, G["requests"]'

ENDPOINT=responses profile resp_failed 3
check_rc $rc 1
grep -q "failed: in-stream error: response.completed with a failed response" e.resp_failed || fail "resp_failed: reason"
check 'assert F["stream_error"] == 3 and G["requests"]["ok"] == 0, (F, G["requests"])'
echo "hostile json: ok"
