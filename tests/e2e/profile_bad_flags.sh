# Usage errors exit 2 with argparse's message; config errors exit 1.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
chk() { # want_rc pattern args...
  local want=$1 pat=$2; shift 2
  "$GENPERF" profile "$@" >out.txt 2>err.txt; local rc=$?
  [ $rc -eq $want ] || { cat err.txt; fail "'$*': exit $rc, want $want"; }
  grep -qF -- "$pat" err.txt || { cat err.txt; fail "'$*': message lacks: $pat"; }
}
chk 2 "error: argument --num-dataset-entries/--num-prompts: The value must be greater than zero." -m m --num-dataset-entries 0
chk 2 "error: argument --concurrency: invalid int value: 'abc'" -m m --concurrency abc
chk 2 "argument --request-rate: not allowed with argument --concurrency" -m m --concurrency 2 --request-rate 1
# issue 43 item 7: the refusal names the way to cap a rate (either order)
chk 2 "argument --request-rate: not allowed with argument --concurrency (one load per run, as in GenAI-Perf; to cap the requests in flight of a --request-rate run, write --request-rate R --max-concurrency N)" \
  -m m --concurrency 4 --request-rate 20
chk 2 "argument --concurrency: not allowed with argument --request-rate (one load per run, as in GenAI-Perf; to cap the requests in flight of a --request-rate run, write --request-rate R --max-concurrency N)" \
  -m m --request-rate 20 --concurrency 4
chk 2 "argument --endpoint-type: invalid choice: 'foo'" -m m --endpoint-type foo
chk 2 "unrecognized arguments: --nope" -m m --nope
chk 2 "usage:" -m m --nope
chk 2 "ambiguous option: -- could match --help, --model," -m m --=1
chk 2 "ambiguous option: --s could match --streaming," -m m --s 5
chk 1 "Required field model_names is not set" --endpoint-type chat
chk 1 "User Config: -1 exceeds lower bounds ({'lower': 0})" -m m --synthetic-input-tokens-mean -1
chk 1 "User Config: 1000.0 exceeds upper bounds ({'lower': 1, 'upper': 999})" -m m -s 1000
chk 1 "If output tokens stddev is set, mean must also be set" -m m --output-tokens-stddev 3
# issue 40 items 3 and 4: the client's framing is its own; no silent defaults
chk 1 "-H 'Content-Length': the client frames each request body itself" -m m -H 'Content-Length: 5'
chk 1 "-H 'transfer-encoding': the client frames each request body itself" -m m -H 'transfer-encoding: chunked'
chk 1 "--synthetic-input-tokens-mean 0: a synthetic prompt needs at least 1 token" -m m --isl 0
chk 1 "--request-rate 0: must be a positive number of requests per second" -m m --request-rate 0
chk 1 "--timeslice-duration inf: must be a finite positive number of seconds" -m m --timeslice-duration inf
chk 1 "--trace-speedup 0: must be a positive factor" -m m --trace-speedup 0
chk 1 "--model-weights 'a:0x1,b:1': the weight of 'a' must be a decimal number" -m a b --model-weights a:0x1,b:1
chk 1 "--model-weights 'a:1,b:1,': each item must be NAME:WEIGHT" -m a b --model-weights a:1,b:1,
# GenAI-Perf's errors, not warnings: config_command.py _check_output_tokens_and_service_kind and
# _check_output_format_and_generate_plots (genperf's own spelling keeps min_tokens/ignore_eos)
chk 1 "User Config: input.output_tokens.deterministic is only supported with Triton or TensorRT-LLM Engine service kinds" \
  -m m --endpoint-type chat --osl 8 --output-tokens-mean-deterministic
chk 1 "--genperf-output-tokens-deterministic" -m m --endpoint-type completions --osl 8 --output-tokens-mean-deterministic
chk 1 "User Config: generate_plots is not supported with the OutputFormat.OPENAI_EMBEDDINGS output format" \
  -m m --endpoint-type embeddings --generate-plots
chk 1 "User Config: generate_plots is not supported with the OutputFormat.RANKINGS output format" \
  -m m --endpoint-type rankings --generate-plots
"$GENPERF" profile --help >out.txt 2>&1 || fail "--help must exit 0"
grep -q -- "--request-timeout" out.txt || fail "--help lacks our flags"
[ -e artifacts ] && fail "a usage error must not create artifacts"
# issue 43 item 7: the goodput terms quoted as one word are accepted (split on whitespace), as if
# given apart; a bad term among them is still GenAI-Perf's format error (exit 1)
chk 1 "Invalid format found for goodput constraints." -m m -g "time_to_first_token:200 ttft=5"
start_serve --ttft-ms 1 --itl-ms 1 --quiet
"$GENPERF" profile -m m -u "$URL" --endpoint-type chat --streaming --tokenizer builtin --isl 8 --osl 4 --request-count 4 \
  --goodput "time_to_first_token:200 inter_token_latency:20" --artifact-dir gp >gp.out 2>gp.err ||
  { cat gp.err; fail "--goodput with the terms in one word: exit $?"; }
[ "$(json_get gp/m-openai-chat-concurrency1/profile_export_genai_perf.json 'd["input_config"]["input"]["goodput"]')" = \
  "{'time_to_first_token': 200.0, 'inter_token_latency': 20.0}" ] || fail "goodput terms not both kept"
echo ok
