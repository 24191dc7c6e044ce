#!/usr/bin/env bash
# Hostile streams (issue 26 items 2, 6, 7), against tests/e2e/hostile_stub.py: a stream cut inside
# an event by a short Content-Length is a `truncated` failure; one that ends on an event boundary
# without [DONE] is counted with a warning; `event: no_error_here` is an ordinary event; usage
# counts out of range, fractional or negative are null with a counted `bad_usage`. Every run's
# artifacts parse and `genperf ingest` accepts them.
. "$GP_ROOT/tests/e2e/hostile_common.inc"

# Content-Length shorter than the body: two tokens, the third event cut in half, no [DONE], no
# finish_reason: a truncated failure, not an ok request with half its output
profile short_cl 3
check_rc $rc 1
grep -q "failed: stream cut before finish_reason and \[DONE\]: the body ended inside an event" e.short_cl || fail "short_cl: reason"
check 'assert F["truncated"] == 3, F'

# the same stream ending on an event boundary is kept (GenAI-Perf counts it), but not silently
profile no_done 3
check_rc $rc 0
grep -q "warning: 3 counted streams ended without \[DONE\]" e.no_done || fail "no_done: warning"
check 'assert G["requests"]["ok"] == 3 and G["requests"]["streams_without_done"] == 3, G["requests"]'

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
echo "hostile streams: ok"
