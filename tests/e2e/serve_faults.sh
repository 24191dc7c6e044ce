#!/usr/bin/env bash
# serve_faults: every injected fault shows up as the client-visible failure it imitates
# and is recorded in the timing log; seeded fault draws are reproducible.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
PYTHONPATH="$GP_ROOT/tests/e2e" exec python3 - "$GENPERF" "$TMPDIR" <<'PY'
import json, os, signal, subprocess, sys, time
from serve_client import request, sse_events
genperf, tmp = sys.argv[1], sys.argv[2]
procs = []

def start(name, *args):
    url_file = "%s/url.%s" % (tmp, name)
    p = subprocess.Popen([genperf, "serve", "--quiet", "--port", "0", "--port-file", url_file,
                          "--timing-log", "%s/%s.jsonl" % (tmp, name)] + list(args), stdout=subprocess.DEVNULL)
    procs.append(p)
    for _ in range(200):
        if os.path.exists(url_file):
            return p, open(url_file).read().strip()
        time.sleep(0.02)
    raise SystemExit("server %s did not start" % name)

def stop(p, name):
    p.send_signal(signal.SIGTERM)
    rc = p.wait(10)
    assert rc == 0, "%s: exit status %d" % (name, rc)
    return [json.loads(l) for l in open("%s/%s.jsonl" % (tmp, name))]

def probe(url):
    body = {"model": "m", "messages": [{"role": "user", "content": "fault probe"}], "max_tokens": 8, "stream": True}
    r = request(url, "/v1/chat/completions", json.dumps(body))
    evs = []
    if r["headers"].get("content-type", "").startswith("text/event"):
        evs = [e for _, e in sse_events(r["chunks"])]
    r["events"] = evs
    return r

def case(name, args, cond):
    p, url = start(name, *args)
    c = probe(url)
    log = stop(p, name)
    ok = False
    try:
        ok = cond(c, log)
    except Exception as e:
        print("exception", e)
    if not ok:
        print("FAIL", name, {k: c[k] for k in ("status", "terminated", "error", "eof", "events", "body")}, log)
        raise SystemExit(1)
    print("ok", name)

try:
    case("e429", ["--zero-delay", "--fault-rate-429", "1"], lambda c, log:
         c["status"] == 429 and json.loads(c["body"])["error"]["code"] == 429 and log[0]["fault"] == "429")
    case("e500", ["--zero-delay", "--fault-rate-500", "1", "--flavor", "sglang"], lambda c, log:
         c["status"] == 500 and json.loads(c["body"])["object"] == "error" and log[0]["status"] == 500)
    case("e503", ["--zero-delay", "--fault-rate-503", "1", "--flavor", "sglang"], lambda c, log:
         c["status"] == 200 and json.loads(c["events"][0])["error"]["code"] == 503 and c["events"][-1] == "[DONE]")
    case("serr", ["--zero-delay", "--fault-rate-stream-error", "1"], lambda c, log:
         "error" in json.loads(c["events"][-2]) and c["events"][-1] == "[DONE]" and c["terminated"]
         and log[0]["outcome"] == "stream_error" and log[0]["kinds"].endswith("ED"))
    case("terr", ["--zero-delay", "--fault-rate-stream-error", "1", "--flavor", "trtllm"], lambda c, log:
         c["status"] == 200 and not c["terminated"] and c["eof"] and "[DONE]" not in c["events"]
         and log[0]["fault"] == "stream_error")
    case("reset", ["--zero-delay", "--fault-rate-reset", "1"], lambda c, log:
         c["error"] == "ConnectionResetError" and not c["terminated"] and log[0]["outcome"] == "reset")
    case("mal", ["--zero-delay", "--fault-rate-malformed", "1"], lambda c, log:
         c["terminated"] and c["events"][-1] == "[DONE]" and "M" in log[0]["kinds"]
         and sum(1 for e in c["events"][:-1] if not e.endswith("}")) == 1)
    case("stall", ["--ttft-ms", "0", "--itl-ms", "1", "--fault-rate-stall", "1", "--stall-s", "0.4"], lambda c, log:
         c["terminated"] and log[0]["fault"] == "stall" and log[0]["completion_tokens"] == 8
         and max(b - a for a, b in zip(log[0]["chunks_ns"], log[0]["chunks_ns"][1:])) >= 0.39e9)
    case("keepalive", ["--ttft-ms", "0", "--itl-ms", "1", "--fault-rate-stall", "1", "--stall-s", "0.45",
                       "--sse-keep-alive-s", "0.1"], lambda c, log:
         c["terminated"] and c["events"][-1] == "[DONE]" and 3 <= c["events"].count(": keep-alive") <= 5
         and log[0]["kinds"].count("K") == c["events"].count(": keep-alive") and log[0]["completion_tokens"] == 8)
    case("slow", ["--zero-delay", "--slow-headers-ms", "300"], lambda c, log:
         c["terminated"] and log[0]["chunks_ns"][0] - log[0]["t_request_ns"] >= 0.3e9)
    case("slowrate", ["--zero-delay", "--fault-rate-slow-headers", "1", "--slow-headers-ms", "250"], lambda c, log:
         c["terminated"] and log[0]["fault"] == "slow_headers" and log[0]["chunks_ns"][0] - log[0]["t_request_ns"] >= 0.25e9)
    # real overload: one running (max-batch 1, slow), 2 may wait, the rest get 503
    import threading
    p, url = start("queue", "--max-batch", "1", "--max-queued", "2", "--decode-step-ms", "60")
    outs = []
    def one():
        outs.append(probe(url)["status"])
    ts = [threading.Thread(target=one) for _ in range(6)]
    for t in ts:
        t.start(); time.sleep(0.03)
    for t in ts: t.join()
    log = stop(p, "queue")
    n503 = sum(1 for e in log if e["outcome"] == "overloaded")
    assert sorted(outs) == [200, 200, 200, 503, 503, 503] and n503 == 3, (outs, [e["outcome"] for e in log])
    print("ok max-queued")
    # a seeded mix: the same seed gives the same faults in the same order
    runs = []
    for run in "ab":
        p, url = start("mix" + run, "--zero-delay", "--seed", "11", "--fault-rate-429", "0.2",
                       "--fault-rate-503", "0.2", "--fault-rate-stream-error", "0.2")
        for _ in range(12):
            probe(url)
        runs.append([e["fault"] for e in stop(p, "mix" + run)])
    print("faults:", runs[0])
    assert runs[0] == runs[1], runs
    assert len(set(runs[0])) >= 3, "the mix should contain several outcomes"
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
PY
