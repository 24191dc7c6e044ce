#!/usr/bin/env bash
# serve_token_accounting: with --server-usage, <stem>_genperf.json compares the
# client's counts with the server's request by request. `genperf serve
# --miscount-rate` reports usage.completion_tokens one too high for a seeded
# share of requests (its timing log says which): the OSL disagreement count
# must equal the server's own count, streamed and not, and the ISL side (no
# chat template in genperf serve) must measure an overhead of 0 and agree.
# Without --server-usage there is no usage and no token_accounting block.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
for mode in stream plain; do
  rm -f url
  "$GENPERF" serve --quiet --port 0 --port-file url --zero-delay --seed 7 --miscount-rate 0.4 \
    --timing-log "log.$mode.jsonl" >/dev/null 2>&1 &
  pid=$!
  wait_file url 10 || fail "serve did not start"
  extra=(); [ $mode = stream ] && extra=(--streaming)
  "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$(cat url)" --endpoint-type chat "${extra[@]}" \
    --isl 16 --osl 8 --genperf-output-tokens-deterministic --request-count 30 --server-usage \
    --artifact-dir "a.$mode" >"$mode.out" 2>&1 || { cat "$mode.out"; fail "$mode: profile failed"; }
  kill -TERM $pid; wait $pid
  python3 - "$(find "a.$mode" -name '*_genperf.json')" "log.$mode.jsonl" <<'PY' || fail "$mode: accounting"
import json, sys
g = json.load(open(sys.argv[1]))
log = [json.loads(l) for l in open(sys.argv[2])]
truth = sum(1 for e in log if e["usage_miscount"])
ta = g["token_accounting"]
assert ta["requests_with_server_usage"] == 30, ta
o, i = ta["osl_vs_completion_tokens"], ta["isl_vs_prompt_tokens"]
assert 0 < truth < 30, truth
assert o["compared"] == 30 and o["disagree"] == truth and o["max_abs_difference_tokens"] == 1, (o, truth)
assert abs(o["mean_difference_tokens"] - truth / 30) < 1e-9, o
assert i["template_overhead_tokens"] == 0 and i["disagree"] == 0, i
PY
done
rm -f url
"$GENPERF" serve --quiet --port 0 --port-file url --zero-delay >/dev/null 2>&1 &
pid=$!; PIDS+=($pid)
wait_file url 10 || fail "serve did not start"
"$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$(cat url)" --endpoint-type chat --streaming \
  --isl 16 --osl 8 --request-count 4 --artifact-dir a.none >none.out 2>&1 || fail "profile without usage"
python3 -c "import json,sys; g=json.load(open(sys.argv[1])); assert 'token_accounting' not in g" \
  "$(find a.none -name '*_genperf.json')" || fail "token_accounting without server usage"
echo ok
