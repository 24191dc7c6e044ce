#!/usr/bin/env bash
# serve_capacity: thousands of concurrent streams on the one server thread: every stream
# completes with the right count, the server's memory stays small.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
N=${SERVE_CAPACITY_STREAMS:-2000}
PYTHONPATH="$GP_ROOT/tests/e2e" exec python3 - "$GENPERF" "$TMPDIR" "$N" <<'PY'
import json, os, resource, selectors, signal, socket, subprocess, sys, time
genperf, tmp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if hard < n + 100:
    print("RLIMIT_NOFILE hard limit %d is below %d streams" % (hard, n)); sys.exit(77)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
p = subprocess.Popen([genperf, "serve", "--quiet", "--port", "0", "--port-file", tmp + "/url",
                      "--ttft-ms", "300", "--itl-ms", "20"], stdout=subprocess.DEVNULL)
try:
    for _ in range(200):
        if os.path.exists(tmp + "/url"): break
        time.sleep(0.02)
    port = int(open(tmp + "/url").read().rsplit(":", 1)[1])
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "cap"}], "max_tokens": 20,
                       "stream": True, "stream_options": {"include_usage": True}}).encode()
    req = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body)) + body
    sel = selectors.DefaultSelector()
    bufs = {}
    t0 = time.monotonic()
    for i in range(n):
        s = socket.socket()
        s.setblocking(True)
        s.connect(("127.0.0.1", port))
        s.sendall(req)
        s.setblocking(False)
        bufs[s] = bytearray()
        sel.register(s, selectors.EVENT_READ)
    t_open = time.monotonic() - t0
    done, peak_rss, active_seen = 0, 0, 0
    deadline = time.monotonic() + 40
    while done < n and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            d = s.recv(65536)
            bufs[s] += d
            if not d or bufs[s].endswith(b"0\r\n\r\n"):
                sel.unregister(s)
                done += 1
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    peak_rss = max(peak_rss, int(line.split()[1]))
    elapsed = time.monotonic() - t0
    ok = sum(1 for b in bufs.values() if b.count(b'"delta":{"content":"') == 20 and b'"completion_tokens":20' in b
             and b.endswith(b"data: [DONE]\n\n\r\n0\r\n\r\n"))
    print("streams %d, complete %d, opened in %.2fs, all done in %.2fs, server peak RSS %.1f MiB"
          % (n, ok, t_open, elapsed, peak_rss / 1024))
    for s in bufs: s.close()
    p.send_signal(signal.SIGTERM)
    assert p.wait(10) == 0
    assert ok == n, "only %d of %d streams complete" % (ok, n)
    assert peak_rss < 200 * 1024, "server RSS %d KiB" % peak_rss
finally:
    if p.poll() is None:
        p.kill(); p.wait()
PY
