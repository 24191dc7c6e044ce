#!/usr/bin/env bash
# Out of memory: under an address-space limit (ulimit -v; the record store
# then keeps a malloc'd arena and holds back headroom, src/client/record.c),
# a server sending 8 MiB bodies fills the store. The request that hits the
# limit fails with the reason, the run stops there, every record kept is
# written (each request the stub read is one record), `incomplete: true` is
# in *_genperf.json, every artifact parses, and the exit status is 4.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
has_asan && { echo "skip: an ASan build cannot run under ulimit -v (it reserves terabytes of shadow memory)"; exit 77; }
start_stub --body-bytes 8388608
# 80 x 8 MiB = 640 MiB of bodies cannot fit in 400 MB of address space
( ulimit -v 400000; "$GENPERF" profile -m m --url "$URL" --endpoint-type chat --tokenizer builtin --isl 8 \
    --request-count 80 --concurrency 1 --artifact-dir oom >out.txt 2>err.txt ); rc=$?
cat err.txt
check_rc $rc 4
grep -q "error: out of memory storing request records: the run stopped early" err.txt || fail "no exit-4 message"
d=$(ls -d oom/*/)
n=$(wc -l <"$LOG")
check_artifacts "$d" "$n"
python3 - "$d" "$n" <<'PY' || fail "incomplete run accounting"
import glob, json, sys
d, n = sys.argv[1], int(sys.argv[2])
g = json.load(open(glob.glob(d + "/*_genperf.json")[0]))
recs = [json.loads(l) for l in open(glob.glob(d + "/*_records.jsonl")[0])]
pe = json.load(open(glob.glob(d + "/profile_export.json")[0]))
rq = g["requests"]
print("stub read %d requests; client:" % n, rq)
assert g.get("incomplete") is True and g.get("incomplete_reason") == "out_of_memory", g.keys()
assert 5 <= n < 80, "the limit should stop the run part-way: %d requests" % n
# the request that hit the limit: a failed record with the reason, or (store full) counted as lost
failed = [r for r in recs if r["status"] != "ok"]
assert len(failed) + rq["lost_out_of_memory"] == 1, (failed, rq)
assert all("out of memory while receiving the response" in r["error"] for r in failed), failed
assert rq["ok"] == n - 1 == len(pe["experiments"][0]["requests"]), (rq, len(pe["experiments"][0]["requests"]))
assert all(r["osl"] == 8388608 for r in recs if r["status"] == "ok")
PY
echo ok
