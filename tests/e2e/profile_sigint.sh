# Ctrl-C mid-run: stops sending, writes what was measured, exits 130.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 20 --token-ms 10
cd "$TMPDIR"
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --concurrency 4 --request-count 1000 >out.txt 2>err.txt &
pid=$!
sleep 1.5
kill -INT $pid
t0=$(date +%s%N); wait $pid; rc=$?; t1=$(date +%s%N); cat err.txt
[ $rc -eq 130 ] || fail "exit $rc, want 130"
ms=$(( (t1 - t0) / 1000000 )); [ $ms -lt 3000 ] || fail "took $ms ms to stop"
[ -f artifacts/m-openai-chat-concurrency4/inputs.json ] || fail "no inputs.json"
n=$(wc -l <"$LOG"); [ "$n" -lt 1000 ] || fail "did not stop sending ($n)"
grep -q interrupted err.txt || fail "no interrupted message"
[ -f artifacts/m-openai-chat-concurrency4/profile_export_genai_perf.json ] || fail "no summary after Ctrl-C"
# the artifacts say so themselves (a run that ended on its own has no such key: see golden)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("interrupted") is True else 1)' \
  artifacts/m-openai-chat-concurrency4/profile_export_genperf.json || fail "_genperf.json does not say interrupted"
# and so does the store: the Benchmarks list and genperf results show status interrupted
"$GENPERF" ingest --db "sqlite://$TMPDIR/s.db" artifacts >ingest.txt 2>&1 || { cat ingest.txt; fail "ingest failed"; }
st=$("$GENPERF" results --db "sqlite://$TMPDIR/s.db" --format csv | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "status") c = i} NR == 2 {print $c}')
[ "$st" = interrupted ] || fail "genperf results status '$st', want interrupted"

# Ctrl-C while the dataset is still being built (200,000 synthetic prompts
# take a second or more): no request was sent, nothing is written, and the
# exit 130 comes with a line that says so, not in silence (the runner read
# the silent 130 as "what was measured is in DIR" and found no artifacts).
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 200 --num-dataset-entries 200000 --request-count 5 \
  --artifact-dir early >out2.txt 2>err2.txt &
pid=$!
for _ in $(seq 200); do grep -q "Profiling these models" err2.txt && break; sleep 0.05; done
kill -INT $pid
rc=0; wait $pid || rc=$?; cat err2.txt
[ $rc -eq 130 ] || fail "early Ctrl-C: exit $rc, want 130"
grep -q "interrupted before any request was sent: nothing was measured" err2.txt || fail "early Ctrl-C: no message"
[ ! -e early ] || { find early; fail "early Ctrl-C left artifacts"; }
echo ok
