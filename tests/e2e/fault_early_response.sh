# A server that answers before it has read the whole request (413 to a body
# over `genperf serve --max-body-bytes`) and then closes: the built-in HTTP/1.1
# client reports that answer, an HTTP failure with status 413, and does not
# back off. It used to report the reset its send ran into ("Send failure:
# Broken pipe" / "Connection reset by peer", 6 of 6), a transport failure
# that also put the slot into reconnect back-off. libcurl (7.88) is no
# control here: it loses the same race itself, about 1 request in 6 at
# concurrency 2 on the 2-core box, when the reset comes before it reads.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve --zero-delay --quiet --max-body-bytes 1048576
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
# one 4 MiB prompt: the body goes on long after the server's 413
python3 -c "import json; open('big.jsonl','w').write(json.dumps({'text': 'hello world ' * 350000}) + '\n')"
for tr in h1; do
  GENPERF_TRANSPORT=$tr "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --tokenizer builtin \
    --input-file big.jsonl --request-count 6 --concurrency 2 --artifact-dir "art.$tr" >out.$tr 2>err.$tr
  rc=$?; cat err.$tr
  check_rc $rc 1
  grep -q "all 6 requests .* failed: OpenAI response returns HTTP code 413" err.$tr || fail "$tr: the 413 is not what was reported"
  grep -q "backed off" err.$tr && fail "$tr: an HTTP answer put the client into reconnect back-off"
  d=$(echo art.$tr/*/)
  check_artifacts "$d" 6
  python3 - "$d"/profile_export_records.jsonl "$d"/profile_export_genperf.json <<'PY' || fail "$tr: records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [(r["http_status"], r["fail_kind"], r["error"]) for r in recs if r["http_status"] != 413 or r["fail_kind"] != "http"]
assert not bad, "want every record an HTTP failure with status 413: %s" % bad[:3]
g = json.load(open(sys.argv[2]))
assert g["failures"]["http"] == 6 and g["failures"]["transport"] == 0, g["failures"]
assert "backoff" not in g["client"], g["client"]["backoff"]
PY
done
echo ok
