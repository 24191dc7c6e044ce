#!/usr/bin/env bash
# Memory budget (issue 26 item 11): against `serve --zero-delay` the record
# store grows by tens of MB a second, and without a limit a long run ends in
# the kernel's OOM killer with nothing written. A small --max-memory stops
# sending instead, on both client workers (the budget is shared), lets what
# is in flight finish, and writes everything: exit 4, `incomplete: true` with
# the reason in *_genperf.json, every artifact parses, and the records are
# exactly the requests the server answered. The peak RSS stays under the
# budget. --duration 15 bounds the test should the budget never stop it.
# Then an open loop with hundreds of requests in flight when the budget is
# reached (500 ms to the first token): their bytes pass the hard limit (1/8
# over), and the request whose bytes were refused is a failed record with
# the reason, the rest are cancelled records: every request sent is a
# record, none is lost.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
start_serve --zero-delay --quiet
[ "$SERVER" = serve ] || fail "genperf serve did not start"
python3 - "$GENPERF" "$URL" <<'PY' >rusage.txt || fail "could not run profile"
import resource, subprocess, sys
rc = subprocess.call([sys.argv[1], "profile", "-m", "m", "--url", sys.argv[2], "--endpoint-type", "chat",
                      "--streaming", "--tokenizer", "builtin", "--isl", "16", "--osl", "128", "--concurrency", "8",
                      "--workers", "2", "--duration", "15", "--max-memory", "100M", "--artifact-dir", "mm"],
                     stdout=open("out.txt", "w"), stderr=open("err.txt", "w"))
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
read -r rc peak_kib <rusage.txt
cat err.txt
check_rc "$rc" 4
grep -q "error: memory budget reached (--max-memory 100 MiB): sending stopped" err.txt || fail "no exit-4 budget message"
phase=$(sed -n 's/.*measured phase \([0-9.]*\) s.*/\1/p' err.txt)
python3 -c "import sys; sys.exit(0 if float('$phase') < 14 else 1)" || fail "the budget did not stop the run (measured phase $phase s)"
if ! has_asan; then # (ASan's shadow memory is RSS the budget does not count)
  [ "$peak_kib" -lt $((100 * 1024)) ] || fail "peak RSS $peak_kib KiB is over the 100 MiB budget"
fi
served=$(curl -s "$URL/metrics" | awk '/request_success_total\{/ {s += $2} END {print s + 0}')
[ "$served" -gt 100 ] || fail "the server answered only $served requests"
d=$(ls -d mm/*/)
check_artifacts "$d" "$served"
python3 - "$d" "$served" <<'PY' || fail "incomplete run accounting"
import glob, json, sys
d, n = sys.argv[1], int(sys.argv[2])
g = json.load(open(glob.glob(d + "/*_genperf.json")[0]))
pe = json.load(open(glob.glob(d + "/profile_export.json")[0]))
rq = g["requests"]
print("server answered %d requests; client:" % n, rq)
assert g.get("incomplete") is True and g.get("incomplete_reason") == "memory_budget", g
assert g.get("max_memory_bytes") == 100 << 20, g.get("max_memory_bytes")
assert rq["lost_out_of_memory"] == 0 and rq["failed"] == 0, rq
assert rq["ok"] == rq["sent"] == n == len(pe["experiments"][0]["requests"]), (rq, n)
PY

# open loop, many in flight
start_serve --ttft-ms 500 --itl-ms 2 --quiet
"$GENPERF" profile -m m --url "$URL" --endpoint-type chat --streaming --tokenizer builtin --isl 16 --osl 64 \
  --request-rate 1000 --duration 15 --max-memory 40M --artifact-dir ol >out2.txt 2>err2.txt; rc=$?
tail -1 err2.txt
check_rc "$rc" 4
sleep 1 # (the server counts a cancelled request when it next writes to it)
served2=$(curl -s "$URL/metrics" | awk '/request_success_total\{/ && !/abort/ {s += $2} END {print s + 0}')
d=$(ls -d ol/*/)
sent2=$(json_get "$(ls "$d"/*_genperf.json)" 'd["requests"]["sent"]')
check_artifacts "$d" "$sent2"
python3 - "$d" "$served2" <<'PY' || fail "open loop: incomplete run accounting"
import glob, json, sys
d, n = sys.argv[1], int(sys.argv[2])
g = json.load(open(glob.glob(d + "/*_genperf.json")[0]))
recs = [json.loads(l) for l in open(glob.glob(d + "/*_records.jsonl")[0])]
rq = g["requests"]
print("server completed %d requests; client:" % n, rq)
assert g.get("incomplete_reason") == "memory_budget", g
# every request sent is a record; the server finished at least the ones recorded ok
assert rq["lost_out_of_memory"] == 0 and len(recs) == rq["sent"] >= n >= rq["ok"] > 0, (rq, len(recs), n)
failed = [r["error"] for r in recs if r["status"] != "ok"]
assert failed and all("--max-memory" in e for e in failed), set(failed)
PY
echo "ok (peak RSS $peak_kib KiB, $served requests; open loop $served2)"
