#!/usr/bin/env bash
# serve_basic: --port 0/--port-file contract, vLLM streaming + non-streaming chat,
# health/models/metrics, clean SIGTERM shutdown with a timing log.
set -u
command -v curl >/dev/null || { echo "curl not installed"; exit 77; }
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 30 --itl-ms 5 --seed 7 \
    --timing-log "$TMPDIR/timing.jsonl" >"$TMPDIR/out" 2>"$TMPDIR/err" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url") || { echo "no port file"; exit 1; }
case "$url" in http://127.0.0.1:[0-9]*) ;; *) echo "bad url '$url'"; exit 1;; esac
grep -qx "genperf serve: listening on $url" "$TMPDIR/out" || { echo "banner missing"; cat "$TMPDIR/out"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }

body='{"model":"m","messages":[{"role":"user","content":"hello there"}],"max_tokens":7,"stream":true,"stream_options":{"include_usage":true}}'
curl -sS -N "$url/v1/chat/completions" -H 'Content-Type: application/json' -d "$body" >"$TMPDIR/s1" || fail "curl stream"
n_content=$(grep -c '"delta":{"content":"' "$TMPDIR/s1")
[ "$n_content" -eq 7 ] || fail "expected 7 content chunks, got $n_content"
grep -q '"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}' "$TMPDIR/s1" || fail "role chunk"
grep -q '"finish_reason":"length","stop_reason":null' "$TMPDIR/s1" || fail "finish on last content chunk"
grep -q '"choices":\[\],"usage":{"prompt_tokens":11,"total_tokens":18,"completion_tokens":7}' "$TMPDIR/s1" || fail "usage chunk"
[ "$(tail -n2 "$TMPDIR/s1" | head -n1)" = "data: [DONE]" ] || fail "[DONE] last"

curl -sS "$url/v1/chat/completions" -H 'Content-Type: application/json' \
  -d '{"messages":[{"role":"user","content":"abc"}],"max_tokens":4}' >"$TMPDIR/n1" || fail "curl non-stream"
grep -q '"object":"chat.completion"' "$TMPDIR/n1" || fail "non-stream object"
grep -q '"usage":{"prompt_tokens":3,"total_tokens":7,"completion_tokens":4' "$TMPDIR/n1" || fail "non-stream usage"

code=$(curl -sS -o /dev/null -w '%{http_code}' "$url/health"); [ "$code" = 200 ] || fail "health $code"
curl -sS "$url/v1/models" | grep -q '"id":"genperf-sim"' || fail "models"
curl -sS "$url/metrics" | grep -q '^vllm:generation_tokens_total{engine="0",model_name="genperf-sim"} 11$' || fail "metrics"
code=$(curl -sS -o /dev/null -w '%{http_code}' "$url/nope"); [ "$code" = 404 ] || fail "404 $code"
code=$(curl -sS -o /dev/null -w '%{http_code}' "$url/v1/chat/completions" -H 'Content-Type: application/json' -d '{"messages":[]}')
[ "$code" = 400 ] || fail "empty messages gave $code"

kill -TERM $pid; wait $pid; rc=$?; trap - EXIT
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM"

"$GENPERF" serve --quiet --port 0 --port-file "$TMPDIR/url2" --strict-model --model served --zero-delay >/dev/null &
pid=$!; trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url2" ] && break; sleep 0.05; done
url2=$(cat "$TMPDIR/url2")
code=$(curl -sS -o "$TMPDIR/e404" -w '%{http_code}' "$url2/v1/chat/completions" -H 'Content-Type: application/json' \
  -d '{"model":"other","messages":[{"role":"user","content":"x"}],"max_tokens":2}')
[ "$code" = 404 ] && grep -q 'The model `other` does not exist.' "$TMPDIR/e404" || fail "strict model: $code $(cat "$TMPDIR/e404")"
code=$(curl -sS -o /dev/null -w '%{http_code}' "$url2/v1/chat/completions" -H 'Content-Type: application/json' \
  -d '{"model":"served","messages":[{"role":"user","content":"x"}],"max_tokens":2}')
[ "$code" = 200 ] || fail "strict model, served name: $code"
kill -TERM $pid; wait $pid; rc=$?; trap - EXIT
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM"
[ "$(wc -l <"$TMPDIR/timing.jsonl")" -eq 3 ] || fail "timing log lines"
head -n1 "$TMPDIR/timing.jsonl" | grep -q '"kinds":"RCCCCCCCUD","content_chunks":7,"completion_tokens":7,"prompt_tokens":11,"status":200' || fail "timing log content"
echo ok
