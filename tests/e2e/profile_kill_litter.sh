# A run killed (SIGKILL) while writing over an earlier set leaves that set's inputs.json as it was (issue 40
# item 7: it used to be replaced by the killed run's, so the set no longer matched its own export), and the
# next run into the directory removes the killed run's *.tmp.PID files, keeping those of a live process.
# The kill comes at a deterministic point: once the slow stub has logged requests, i.e. mid-run, after the
# killed run's inputs were written and before its artifacts are.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 20 --token-ms 10
cd "$TMPDIR"
common=(profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --concurrency 1
  --artifact-dir art)
prof() { "$GENPERF" "${common[@]}" "$@"; }
dir=art/m-openai-chat-concurrency1
prof --synthetic-input-tokens-mean 8 --request-count 3 >out1.txt 2>err1.txt || { cat err1.txt; fail "first run failed"; }
[ -f $dir/inputs.json ] || fail "no inputs.json"
sum1=$(cksum <$dir/inputs.json)
: >"$LOG"
"$GENPERF" "${common[@]}" --synthetic-input-tokens-mean 40 --num-dataset-entries 50 --request-count 1000 \
  >out2.txt 2>err2.txt &
pid=$!
for _ in $(seq 400); do [ "$(wc -l <"$LOG")" -ge 3 ] && break; sleep 0.05; done
[ "$(wc -l <"$LOG")" -ge 3 ] || { kill -9 $pid; cat err2.txt; fail "the second run sent no request"; }
kill -9 $pid; wait $pid 2>/dev/null
[ "$(cksum <$dir/inputs.json)" = "$sum1" ] || fail "the killed run replaced the earlier set's inputs.json"
ls $dir | grep -q "\.tmp\.$pid\$" || { ls $dir; fail "expected the killed run's staged inputs.json.tmp.$pid"; }
# A temp file of a live process (this shell) is not litter.
: >"$dir/other.json.tmp.$$"
prof --synthetic-input-tokens-mean 12 --request-count 2 >out3.txt 2>err3.txt || { cat err3.txt; fail "third run failed"; }
left=$(ls $dir | grep "\.tmp\.$pid\$")
[ -z "$left" ] || fail "the next run left the killed run's temp files: $left"
[ -f "$dir/other.json.tmp.$$" ] || fail "the next run removed a live process's temp file"
left=$(ls $dir | grep "\.tmp\.[0-9]*\$" | grep -v "^other.json")
[ -z "$left" ] || fail "the third run left temp files: $left"
[ "$(cksum <$dir/inputs.json)" != "$sum1" ] || fail "the third run did not write its inputs.json"
echo ok
