#!/usr/bin/env bash
# `genperf ui` answers only requests addressed to a name it was told about (DNS rebinding): localhost,
# 127.0.0.1, [::1] and each --allow-host NAME; a name that merely starts with "127." gets 403. And a query
# argument holding a NUL byte (?model=%00) is refused instead of read as "no filter" (every job); a request
# with two Host lines gets 400 (RFC 9112 section 3.2; issue 40 item 7).
# Needs only curl: the page is served from the fixture sweep's artifact directories, no store.
set -euo pipefail
command -v curl >/dev/null || { echo "skip: curl missing"; exit 77; }
fx="$GP_ROOT/tests/fixtures/report/sweep"
pids=() bad=0
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && { kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || bad=1; }; done
  grep -lE 'AddressSanitizer|LeakSanitizer|runtime error' "$TMPDIR"/*.err 2>/dev/null && bad=1
  if [ "$bad" -ne 0 ]; then echo "genperf ui did not exit cleanly on SIGTERM:"; tail -n 20 "$TMPDIR"/*.err; exit 1; fi
  true
}
trap cleanup EXIT
start_ui() { # name, then extra flags; sets P (the port)
  local n=$1; shift
  rm -f "$TMPDIR/$n.url"
  "$GENPERF" ui --artifacts "$fx" --port 0 --port-file "$TMPDIR/$n.url" "$@" 2>"$TMPDIR/$n.err" &
  pids+=($!)
  for _ in $(seq 1 100); do [ -s "$TMPDIR/$n.url" ] && break; sleep 0.05; done
  [ -s "$TMPDIR/$n.url" ] || { echo "genperf ui $* did not start"; cat "$TMPDIR/$n.err"; exit 1; }
  P=$(sed 's/.*://' "$TMPDIR/$n.url")
}
fails=0
want() { # code, then curl arguments
  local w=$1; shift
  local got; got=$(curl -s -o "$TMPDIR/body" -w '%{http_code}' --max-time 10 "$@")
  if [ "$got" != "$w" ]; then echo "FAIL: want $w, got $got: curl $*"; head -c 300 "$TMPDIR/body"; echo; fails=1; fi
}

start_ui plain
# A rebinding attacker's name resolves to 127.0.0.1 but is not a loopback name.
want 403 --resolve "127.attacker.example:$P:127.0.0.1" "http://127.attacker.example:$P/api/jobs"
grep -q '"error":.*--allow-host' "$TMPDIR/body" || { echo "FAIL: the 403 should name --allow-host"; head -c 300 "$TMPDIR/body"; fails=1; }
want 403 --resolve "localhost.attacker.example:$P:127.0.0.1" "http://localhost.attacker.example:$P/api/jobs"
want 403 -H "Host: 127.0.0.1.attacker.example:$P" "http://127.0.0.1:$P/api/jobs"
want 403 -H "Host: 127.1:$P" "http://127.0.0.1:$P/api/jobs"
want 403 -H "Host: localhost:$P@evil.example" "http://127.0.0.1:$P/api/jobs"
want 403 -H "Host: localhost:x" "http://127.0.0.1:$P/api/jobs"
want 403 -H "Host: [::1]x:$P" "http://127.0.0.1:$P/api/jobs"
want 403 --http1.0 -H "Host:" "http://127.0.0.1:$P/api/jobs"
# The loopback names, as a browser or curl sends them.
want 200 "http://127.0.0.1:$P/api/jobs"
want 200 "http://localhost:$P/api/jobs"
want 200 -H "Host: LocalHost:$P" "http://127.0.0.1:$P/api/jobs"
want 200 -H "Host: [::1]:$P" "http://127.0.0.1:$P/api/jobs"
# No port (what a client sends for port 80) and another port (ssh -L 9000:localhost:$P, docker -p): the
# name is what a rebinding attacker controls, so these stay open for tunnels.
want 200 -H "Host: localhost" "http://127.0.0.1:$P/api/jobs"
want 200 -H "Host: 127.0.0.1:9000" "http://127.0.0.1:$P/api/jobs"
want 403 --resolve "bench.internal:$P:127.0.0.1" "http://bench.internal:$P/api/jobs"

# --allow-host NAME (repeatable) opens exactly those names.
start_ui allow --allow-host bench.internal --allow-host Other.Example
want 200 --resolve "bench.internal:$P:127.0.0.1" "http://bench.internal:$P/api/jobs"
want 200 --resolve "other.example:$P:127.0.0.1" "http://other.example:$P/"
want 403 --resolve "bench.internal.attacker.example:$P:127.0.0.1" "http://bench.internal.attacker.example:$P/api/jobs"
want 403 --resolve "127.attacker.example:$P:127.0.0.1" "http://127.attacker.example:$P/api/jobs"
want 200 "http://localhost:$P/api/jobs"
rc=0; "$GENPERF" ui --artifacts "$fx" --port 0 --allow-host "evil:80" >/dev/null 2>"$TMPDIR/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--allow-host" "$TMPDIR/bad.err" ||
  { echo "FAIL: --allow-host with a port must be a usage error (exit 2), got $rc"; cat "$TMPDIR/bad.err"; fails=1; }

# ?model=%00 is not "no filter"; and a filter does not change what the next request sees.
start_ui nul
want 200 "http://127.0.0.1:$P/api/jobs?model=nope"
grep -q '"jobs":\[\]' "$TMPDIR/body" || { echo "FAIL: ?model=nope should list no job"; fails=1; }
want 200 "http://127.0.0.1:$P/api/jobs"
[ "$(grep -o '"id":' "$TMPDIR/body" | wc -l)" = 2 ] || { echo "FAIL: after ?model=nope, /api/jobs should still list 2 jobs"; fails=1; }
want 400 "http://127.0.0.1:$P/api/jobs?model=%00"
grep -q '"error":.*NUL' "$TMPDIR/body" || { echo "FAIL: the 400 should say why (NUL)"; head -c 300 "$TMPDIR/body"; fails=1; }
want 400 "http://127.0.0.1:$P/api/jobs?model=a%00b"
want 400 "http://127.0.0.1:$P/api/job?id=1%00"
want 200 "http://127.0.0.1:$P/api/jobs?model="
# Two Host header lines, loopback first (what the server would check) and another second (what a proxy
# in front may route by): RFC 9112 section 3.2 says 400. Sent on a raw socket, as curl merges them.
got=$(python3 - "$P" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"GET /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
data = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print(data.split(b"\r\n", 1)[0].decode())
PY
) || true
[[ "$got" == "HTTP/1.1 400 "* ]] || { echo "FAIL: two Host lines: want 400, got '$got'"; fails=1; }
[ "$fails" = 0 ] || exit 1
echo "ui Host check and NUL arguments ok"
