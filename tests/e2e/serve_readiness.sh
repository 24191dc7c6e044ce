#!/usr/bin/env bash
# serve_readiness: --load-s imitates start-up as the spec describes it: vLLM/TRT-LLM refuse
# connections until loaded (port bound, not listening), SGLang listens at once and answers 503
# on /health and /health_generate until warm; SIGTERM while loading exits 0.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
exec python3 - "$GENPERF" "$TMPDIR" <<'PY'
import os, signal, socket, subprocess, sys, time, urllib.error, urllib.request
genperf, tmp = sys.argv[1], sys.argv[2]
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
def status(url):
    try:
        return urllib.request.urlopen(url, timeout=2).status
    except urllib.error.HTTPError as e:
        return e.code
procs = []
try:
    port = free_port()
    p = subprocess.Popen([genperf, "serve", "--quiet", "--port", str(port), "--port-file", tmp + "/u1",
                          "--load-s", "1.0"], stdout=subprocess.DEVNULL); procs.append(p)
    time.sleep(0.3)
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        raise SystemExit("FAIL: vllm accepted a connection while loading")
    except ConnectionRefusedError:
        pass
    assert not os.path.exists(tmp + "/u1"), "port file before ready"
    for _ in range(100):
        if os.path.exists(tmp + "/u1"): break
        time.sleep(0.05)
    assert status("http://127.0.0.1:%d/health" % port) == 200
    p.send_signal(signal.SIGTERM); assert p.wait(10) == 0
    print("ok vllm refuses while loading, then 200")

    p = subprocess.Popen([genperf, "serve", "--quiet", "--port", "0", "--port-file", tmp + "/u2", "--flavor", "sglang",
                          "--load-s", "1.0"], stdout=subprocess.DEVNULL); procs.append(p)
    for _ in range(100):
        if os.path.exists(tmp + "/u2"): break
        time.sleep(0.02)
    url = open(tmp + "/u2").read().strip()
    assert status(url + "/health_generate") == 503 and status(url + "/health") == 503
    assert status(url + "/v1/models") == 200, "models answer during warm-up"
    time.sleep(1.1)
    assert status(url + "/health_generate") == 200
    p.send_signal(signal.SIGTERM); assert p.wait(10) == 0
    print("ok sglang 503 while warming, then 200")

    p = subprocess.Popen([genperf, "serve", "--quiet", "--port", "0", "--load-s", "30"], stdout=subprocess.DEVNULL)
    procs.append(p)
    time.sleep(0.3)
    t0 = time.monotonic(); p.send_signal(signal.SIGTERM); rc = p.wait(10)
    assert rc == 0 and time.monotonic() - t0 < 2, (rc, time.monotonic() - t0)
    print("ok SIGTERM while loading")
finally:
    for p in procs:
        if p.poll() is None: p.kill(); p.wait()
PY
