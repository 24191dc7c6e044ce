# --warmup-request-count: sent first, excluded from the measured requests.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_stub --tokens 3
cd "$TMPDIR"
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
  --synthetic-input-tokens-mean 8 --concurrency 2 --request-count 6 --warmup-request-count 5 >out.txt 2>err.txt
rc=$?; cat err.txt
[ $rc -eq 0 ] || fail "exit $rc"
[ "$(wc -l <"$LOG")" -eq 11 ] || fail "server saw $(wc -l <"$LOG") requests, want 5 warmup + 6"
d=artifacts/m-openai-chat-concurrency2
[ "$(json_get $d/profile_export.json 'len(d["experiments"][0]["requests"])')" = 6 ] || fail "warmup not excluded"
# measured requests restart at dataset entry 0 after warmup; slot s of C=2 sends entries s, s+2, s+4
python3 - $d/inputs.json $d/profile_export.json <<'PY' || fail "dataset order after warmup"
import json, sys
ins = [json.dumps(e["payload"][0], sort_keys=True) for e in json.load(open(sys.argv[1]))["data"]]
reqs = json.load(open(sys.argv[2]))["experiments"][0]["requests"]
got = sorted(ins.index(json.dumps(json.loads(r["request_inputs"]["payload"]), sort_keys=True)) for r in reqs)
assert got == [0, 1, 2, 3, 4, 5], got
PY
echo ok
