#!/usr/bin/env bash
# serve_emfile: `genperf serve` out of file descriptors (RLIMIT_NOFILE 32, more
# connections than that) does not spin: on EMFILE it stops watching the
# listener until a connection closes, so over 3 s at the limit it uses next to
# no CPU (it used to take a whole core: accept failed, the level-triggered
# listener woke it again at once), says so on stderr once, and once
# connections close it accepts and answers the ones that waited.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
PYTHONPATH="$GP_ROOT/tests/e2e" exec python3 - "$GENPERF" "$TMPDIR" <<'PY'
import os, resource, signal, socket, subprocess, sys, time
from serve_client import read_response
genperf, tmp = sys.argv[1], sys.argv[2]
LIMIT, EXTRA = 32, 16
tick = os.sysconf("SC_CLK_TCK")
def cpu_s(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick  # utime + stime
err = open(tmp + "/serve.err", "w+")
# soft = hard: serve raises its soft limit to the hard one
p = subprocess.Popen([genperf, "serve", "--port", "0", "--port-file", tmp + "/url", "--zero-delay",
                      "--idle-timeout-s", "60"], stdout=subprocess.DEVNULL, stderr=err,
                     preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT)))
try:
    for _ in range(200):
        if os.path.exists(tmp + "/url"): break
        time.sleep(0.02)
    port = int(open(tmp + "/url").read().rsplit(":", 1)[1])
    # every descriptor the server may have, and EXTRA more waiting in the backlog
    conns = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(LIMIT + EXTRA)]
    time.sleep(0.5)  # the server reaches its limit
    c0, t0 = cpu_s(p.pid), time.monotonic()
    time.sleep(3)
    used, wall = cpu_s(p.pid) - c0, time.monotonic() - t0
    print("server CPU at the fd limit: %.2f s in %.2f s" % (used, wall))
    assert p.poll() is None, "server died"
    assert used < 0.3, "server spins at EMFILE: %.2f s CPU in %.2f s" % (used, wall)
    # the last connections waited in the backlog; freeing descriptors lets them in
    late = conns[-1]
    for s in conns[:LIMIT]:
        s.close()
    late.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    r = read_response(late)
    assert r["status"] == 200, ("a connection from the backlog is not served once others closed", r)
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert read_response(s)["status"] == 200, "a new connection is not served after the limit"
    print("ok recovered: backlog and new connections served")
    for s in conns[LIMIT:] + [s]:
        s.close()
    p.send_signal(signal.SIGTERM)
    assert p.wait(10) == 0
    err.seek(0)
    text = err.read()
    n = text.count("out of file descriptors")
    assert n == 1, ("want the condition said once on stderr, got %d times" % n, text)
    print("ok said once:", [l for l in text.splitlines() if "out of file descriptors" in l][0])
finally:
    if p.poll() is None:
        p.kill()
PY
