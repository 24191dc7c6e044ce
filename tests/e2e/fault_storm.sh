#!/usr/bin/env bash
# A 5xx/429 storm from `genperf serve` (90 % of the answers are 500, 503 or
# 429): the run completes, every status the server's timing log records is
# one failed record with that status and the error body's text, the failure
# rate turns into exit 3 under --max-failure-rate, every artifact parses.
# HTTP answers are not connection failures: no back-off.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --zero-delay --quiet --seed 9 --fault-rate-500 0.5 --fault-rate-503 0.3 --fault-rate-429 0.1 \
  --timing-log "$TMPDIR/truth.jsonl"
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --isl 8 --osl 4 \
  --concurrency 4 --request-count 120 --max-failure-rate 0.5 --artifact-dir storm >out.txt 2>err.txt
rc=$?; cat err.txt
check_rc $rc 3
stop_serve
d=$(ls -d storm/*/)
check_artifacts "$d" 120
grep -q "error: [0-9]* of 120 requests failed (.*%), more than --max-failure-rate 0.5 allows" err.txt || fail "exit-3 line"
python3 - "$d" truth.jsonl <<'PY' || fail "storm accounting"
import collections, glob, json, sys
d = sys.argv[1]
g = json.load(open(glob.glob(d + "/*_genperf.json")[0]))
recs = [json.loads(l) for l in open(glob.glob(d + "/*_records.jsonl")[0])]
log = [json.loads(l) for l in open(sys.argv[2])]
assert len(log) == 120, len(log)
truth = collections.Counter(e["status"] for e in log)
got = collections.Counter(r["http_status"] for r in recs)
print("server statuses", dict(truth), "client", dict(got))
assert truth == got, (truth, got)
assert truth[500] > 40 and truth[503] > 20 and truth[429] > 3, truth
bodies = {500: "Internal", 503: "overloaded", 429: "429"}
for r in recs:
    if r["http_status"] != 200:
        assert r["status"] == "failed" and r["fail_kind"] == "http", r
        assert ("HTTP code %d" % r["http_status"]) in r["error"] and bodies[r["http_status"]] in r["error"], r["error"]
hs = {int(k): v for k, v in g["http_error_statuses"].items()}
assert hs == {k: v for k, v in truth.items() if k != 200}, hs
assert g["requests"]["failed"] == 120 - truth[200] and g["requests"]["ok"] == truth[200]
assert "backoff" not in g["client"], g["client"]
PY
echo ok
