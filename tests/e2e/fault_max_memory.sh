#!/usr/bin/env bash
# Memory budget (issue 26 item 11): against `serve --zero-delay` the record
# store grows by tens of MB a second, and without a limit a long run ends in
# the kernel's OOM killer with nothing written. A small --max-memory stops
# sending instead, on both client workers (the budget is shared), lets what
# is in flight finish, and writes everything: exit 4, `incomplete: true` with
# the reason in *_genperf.json, every artifact parses, and the records are
# exactly the requests the server answered. The peak RSS stays under the
# budget. --duration 15 bounds the test should the budget never stop it.
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
echo "ok (peak RSS $peak_kib KiB, $served requests)"
