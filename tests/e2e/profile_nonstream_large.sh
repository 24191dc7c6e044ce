# Large non-streamed bodies (~120 KB, usually several reads each) at
# concurrency 16: each read is written straight into the record store's
# arena, so a body is joined into one chunk at completion (copied again when
# another transfer's reads landed between its own; gp_record_join_chunks,
# unit-tested in client/test_record.c). Every body must be exported whole,
# as one response that parses as the JSON the server sent.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --zero-delay --tokenizer builtin --quiet
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
"$GENPERF" profile -m m1 --url "$URL" --endpoint-type completions --tokenizer builtin \
  --synthetic-input-tokens-mean 16 --output-tokens-mean 120000 --genperf-output-tokens-deterministic \
  --request-count 64 --concurrency 16 --artifact-dir art >out.txt 2>err.txt
rc=$?; tail -3 err.txt
[ $rc -eq 0 ] || fail "exit $rc"
python3 - art/*/profile_export.json <<'PY' || fail "non-streamed bodies not exported whole"
import json, sys
reqs = json.load(open(sys.argv[1]))["experiments"][0]["requests"]
assert len(reqs) == 64, len(reqs)
sizes = set()
for r in reqs:
    outs = r["response_outputs"]
    assert len(outs) == 1 and len(r["response_timestamps"]) == 1, "one response per non-streamed body"
    body = json.loads(outs[0]["response"])          # a scattered copy would not parse
    assert len(body["choices"][0]["text"]) >= 100000, "text cut short"
    sizes.add(len(outs[0]["response"]))
assert min(sizes) > 100000, sizes                  # several reads per body
PY
echo ok
