#!/usr/bin/env bash
# The server is stopped mid-run (SIGTERM: it closes every connection, the
# streams in flight are cut) and restarted on the same port a second later.
# The run completes; the requests the two servers' timing logs record as
# answered are exactly the client's successes; every other request is one
# failed record with its error (connection refused while the server was
# down, cut stream / reset for the ones in flight); the slots back off
# instead of burning their requests in a burst while the server is down
# (client.backoff count and time > 0); every artifact parses.
. "$GP_ROOT/tests/e2e/profile_common.inc"
cd "$TMPDIR"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
serve() { # n
  rm -f url.$1
  "$GENPERF" serve --port "$port" --port-file url.$1 --ttft-ms 5 --itl-ms 2 --quiet --timing-log truth.$1.jsonl \
    >serve.$1.out 2>&1 & PIDS+=($!)
  wait_file url.$1 10 || { cat serve.$1.out; fail "server $1 did not start on port $port"; }
}
serve 1
"$GENPERF" profile -m m --url "http://127.0.0.1:$port" --endpoint-type chat --streaming --tokenizer builtin \
  --isl 8 --osl 10 --concurrency 4 --request-count 240 --request-timeout 5 --artifact-dir rs >out.txt 2>err.txt &
prof=$!
sleep 0.5
stop_serve                       # server 1 gone: in-flight streams cut, new connections refused
sleep 1
serve 2
wait $prof; rc=$?
stop_serve
cat err.txt
check_rc $rc 0 3
d=$(ls -d rs/*/)
check_artifacts "$d" 240
python3 - "$d" truth.1.jsonl truth.2.jsonl <<'PY' || fail "restart accounting"
import collections, glob, json, sys
d = sys.argv[1]
g = json.load(open(glob.glob(d + "/*_genperf.json")[0]))
recs = [json.loads(l) for l in open(glob.glob(d + "/*_records.jsonl")[0])]
l1 = [json.loads(l) for l in open(sys.argv[2])]
l2 = [json.loads(l) for l in open(sys.argv[3])]
o1 = collections.Counter(e["outcome"] for e in l1)
o2 = collections.Counter(e["outcome"] for e in l2)
ok = [r for r in recs if r["status"] == "ok"]
failed = [r for r in recs if r["status"] != "ok"]
refused = [r for r in failed if "Couldn't connect" in r["error"]]
# cut: server 1 had answered (HTTP 200) and stopped mid-stream; unread: no
# server read them (refused, or reset in the backlog of the stopping server)
cut = [r for r in failed if r["http_status"] == 200]
unread = [r for r in failed if not r["http_status"]]
retried = g["requests"]["retried_stale_connection"]
bo = g["client"].get("backoff", {"count": 0, "total_ms": 0})
print("server 1:", dict(o1), "server 2:", dict(o2), "client: ok %d, refused %d, cut %d, other unread %d, resends %d, "
      "back-off %s" % (len(ok), len(refused), len(cut), len(unread) - len(refused), retried, bo))
assert o1["ok"] > 0 and o2["ok"] > 0, "the stop did not land mid-run: tune the sleeps"
assert set(o1) <= {"ok", "shutdown"} and set(o2) == {"ok"}, (o1, o2)
# exact: the client's successes are the servers' answered requests, the streams
# server 1 cut at its stop are its shutdown lines, and nothing else was read
assert len(ok) == o1["ok"] + o2["ok"], (len(ok), o1, o2)
# A stale resend went out on a kept-alive connection the stopping server had
# closed: either the server read it first (a "shutdown" line, then the resend)
# or the close won the race and it never read it (no line: the client cannot
# tell which, like libcurl after its own liveness check)
read_resends = o1["shutdown"] - len(cut)
assert 0 <= read_resends <= retried, (len(cut), o1["shutdown"], retried, [r["error"] for r in cut])
assert len(ok) + len(cut) + read_resends == len(l1) + len(l2)
assert len(cut) + len(unread) == len(failed) == 240 - len(ok) == g["requests"]["failed"]
assert all(r["fail_kind"] in ("transport", "truncated") for r in failed), collections.Counter(r["fail_kind"] for r in failed)
assert len(refused) > 0, "no request hit the stopped server"
# back-off: every refused or cut request but a slot's last is followed by one wait;
# while the server was down (1 s) each of the 4 slots waited 10, 20, 40, ... ms,
# so about 7 refusals per slot; without back-off it would have been hundreds
last = {}
for r in recs:
    if r["slot"] not in last or r["t_start_ns"] > last[r["slot"]]["t_start_ns"]:
        last[r["slot"]] = r
want = sum(1 for r in failed if last[r["slot"]] is not r)
assert bo["count"] == want, (bo, want)
assert bo["total_ms"] > 900, bo  # the slots waited out the second the server was down
assert len(refused) <= 4 * 10, "refusals came in a burst: %d" % len(refused)
PY
grep -q "backed off [0-9]* times" err.txt || fail "no back-off line on stderr"
echo ok
