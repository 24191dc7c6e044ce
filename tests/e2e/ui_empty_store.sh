#!/usr/bin/env bash
# Issue 43 item 5: read-only commands never create a store, and the empty-store page
# suggests commands that work.
# 1. ui, results, query and report on a missing SQLite file exit 2 with a message naming the
#    file and `genperf ingest DIR --db FILE`, and create nothing (ingest still creates one).
# 2. the empty-store note of `genperf ui` (fetched over loopback: the page, then the script it
#    loads) lists command lines; they are pulled out, run as shown against `genperf serve`
#    (only MODEL, the URL and STORE filled in, as the note says), and must succeed and leave
#    a job in the store the page reads. Before, the note suggested `genperf profile ... --db
#    URL`, which genperf profile refuses.
. "$GP_ROOT/tests/e2e/profile_common.inc"
command -v curl >/dev/null || { echo "skip: curl not available"; exit 77; }
cd "$TMPDIR"
typo="$TMPDIR/typo.db"
for c in "ui --db $typo" "results --db $typo" "query --db $typo SELECT_1" "report --db $typo --job 1 -o r.html"; do
  read -r -a argv <<<"$c"
  out=$(timeout 10 "$GENPERF" "${argv[@]/SELECT_1/SELECT 1}" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "genperf $c on a missing store: exit $rc, want 2: $out"
  grep -q "no SQLite database at '$typo'" <<<"$out" || fail "genperf $c: message does not name the file: $out"
  grep -qF "genperf ingest DIR --db $typo" <<<"$out" || fail "genperf $c: message does not say how to create it: $out"
  [ ! -e "$typo" ] || fail "genperf $c created $typo"
done
echo "ok: ui, results, query and report refuse a missing store and create none"

start_serve
[ "$SERVER" = serve ] || fail "genperf serve did not start"
store="$TMPDIR/store.db"
"$GENPERF" results --db "$store" --create >/dev/null || fail "results --create"
"$GENPERF" ui --db "$store" --port 0 --port-file ui.url 2>ui.err &
PIDS+=($!)
wait_file ui.url 10 || { cat ui.err; fail "genperf ui did not start"; }
UI=$(head -n1 ui.url)
curl -sf "$UI/" >page.html || fail "GET / from genperf ui"
[ "$(curl -sf "$UI/api/jobs" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))')" = 0 ] ||
  fail "the store is not empty"
: >page.js
for s in $(grep -o 'src="/assets/[a-z]*\.js"' page.html | sed 's/^src="//; s/"$//'); do
  curl -sf "$UI$s" >>page.js || fail "GET $s"
done
# the note's commands: the string array the empty-store note draws its <pre> lines from
python3 - page.js >cmds.txt <<'PY' || fail "no empty-store commands in the page's script"
import re, sys
js = open(sys.argv[1]).read()
m = re.search(r"emptyStoreCmds = \[(.*?)\];", js, re.S)
assert m and "emptyStoreCmds.map" in js, "the empty-store note draws no command list"
cmds = re.findall(r"'((?:[^'\\]|\\.)*)'", m.group(1))
assert len(cmds) >= 2 and all(c.startswith("genperf ") for c in cmds), cmds
print("\n".join(cmds))
PY
cat cmds.txt
grep -q "^genperf ingest .*--db STORE" cmds.txt || fail "the note does not ingest into STORE"
while IFS= read -r cmd; do
  line=${cmd/#genperf /\"\$GENPERF\" }
  line=${line//http:\/\/127.0.0.1:8000/$URL}
  line=${line//MODEL/m}; line=${line//STORE/\"\$store\"}
  eval "$line" >run.out 2>&1 </dev/null || { tail -n 5 run.out; fail "the empty-store page's command failed: $cmd"; }
  echo "ok: ran: $cmd"
done <cmds.txt
n=$(curl -sf "$UI/api/jobs" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))')
[ "$n" -ge 1 ] || fail "after the page's commands the store the page reads has $n jobs"
echo "ok: the page's commands put $n job(s) in its store"
echo ok
