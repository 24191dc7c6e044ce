#!/usr/bin/env bash
# serve_http: HTTP/1.1 details a real client hits: pipelined requests answered in order,
# chunked request bodies, Expect: 100-continue, HTTP/1.0 close-delimited streams,
# malformed requests (400 + close), keep-alive idle timeout, API key.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
PYTHONPATH="$GP_ROOT/tests/e2e" exec python3 - "$GENPERF" "$TMPDIR" <<'PY'
import json, os, signal, socket, subprocess, sys, time
from serve_client import read_response, sse_events
genperf, tmp = sys.argv[1], sys.argv[2]
p = subprocess.Popen([genperf, "serve", "--quiet", "--port", "0", "--port-file", tmp + "/url", "--zero-delay",
                      "--idle-timeout-s", "0.5", "--api-key", "k3y"], stdout=subprocess.DEVNULL)
try:
    for _ in range(200):
        if os.path.exists(tmp + "/url"): break
        time.sleep(0.02)
    port = int(open(tmp + "/url").read().rsplit(":", 1)[1])
    def conn():
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        return s
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "pipe"}], "max_tokens": 3, "stream": True})
    auth = "Authorization: Bearer k3y\r\n"
    # three requests in one write: GET, streamed POST with a chunked body, GET
    half = len(body) // 2
    chunked = "%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (half, body[:half], len(body) - half, body[half:])
    s = conn()
    s.sendall(("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
               "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\n"
               "Transfer-Encoding: chunked\r\n\r\n%s"
               "GET /v1/models HTTP/1.1\r\nHost: x\r\n%s\r\n" % (auth, chunked, auth)).encode())
    r1 = read_response(s); r2 = read_response(s); r3 = read_response(s)
    assert r1["status"] == 200 and r1["body"] == b"", r1
    ev = [e for _, e in sse_events(r2["chunks"])]
    assert r2["status"] == 200 and r2["terminated"] and ev[-1] == "[DONE]" and len(ev) == 5, ev
    assert r3["status"] == 200 and b"genperf-sim" in r3["body"], r3
    # the idle keep-alive connection is closed by the server after --idle-timeout-s
    t0 = time.monotonic()
    s.settimeout(3)
    assert s.recv(10) == b""
    waited = time.monotonic() - t0
    assert 0.3 < waited < 2, waited
    s.close()
    print("ok pipelining + chunked body + idle close (%.2fs)" % waited)

    # Expect: 100-continue gets an interim response before the body is sent
    s = conn()
    s.sendall(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\n"
               "Content-Length: %d\r\nExpect: 100-continue\r\n\r\n" % (auth, len(body))).encode())
    interim = s.recv(100)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n", interim
    s.sendall(body.encode())
    r = read_response(s)
    assert r["status"] == 200 and r["terminated"], r
    s.close()
    print("ok expect 100-continue")

    # HTTP/1.0: no chunked encoding, the stream ends when the server closes
    s = conn()
    s.sendall(("POST /v1/chat/completions HTTP/1.0\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
               % (auth, len(body), body)).encode())
    data = b""
    while True:
        d = s.recv(65536)
        if not d: break
        data += d
    head, rest = data.split(b"\r\n\r\n", 1)
    assert b"transfer-encoding" not in head.lower() and rest.endswith(b"data: [DONE]\n\n"), data
    print("ok http/1.0 close-delimited")

    # garbage: 400 and the connection closes; missing key: 401
    s = conn()
    s.sendall(b"BLAH\r\n\r\n")
    r = read_response(s)
    assert r["status"] == 400 and s.recv(10) == b"", r
    s = conn()
    s.sendall(("POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
               % (len(body), body)).encode())
    r = read_response(s)
    assert r["status"] == 401 and json.loads(r["body"]) == {"error": "Unauthorized"}, r
    # a \u0000 in the body is named (issue 40 item 5), not "not a JSON object"
    nul = '{"model": "m", "messages": [{"role": "user", "content": "a\\u0000b"}], "max_tokens": 3}'
    s = conn()
    s.sendall(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\n"
               "Content-Length: %d\r\n\r\n%s" % (auth, len(nul), nul)).encode())
    r = read_response(s)
    msg = json.loads(r["body"])["error"]["message"]
    assert r["status"] == 400 and "NUL character (\\u0000)" in msg and "line 1 column" in msg, r
    print("ok 400/401")

    # bare LF line endings (RFC 9112 2.2 lets a server refuse them): 400 at
    # once, in the request line, a header, a chunked body's trailer; never a
    # wait for a CRLF CRLF that will not come (it used to hang until the idle close)
    for req in [b"GET /health HTTP/1.1\n\n", b"GET /health HTTP/1.1\nHost: x\n\n",
                b"GET /health HTTP/1.1\r\nHost: x\n\r\n", b"GET /health HTTP/1.1\r\nHost: x\n",
                ("POST /v1/chat/completions HTTP/1.1\r\n%sTransfer-Encoding: chunked\r\n\r\n"
                 "0\r\nX: y\n\r\n" % auth).encode()]:
        s = conn()
        t0 = time.monotonic()
        s.sendall(req)
        r = read_response(s)
        waited = time.monotonic() - t0
        assert r["status"] == 400 and s.recv(10) == b"" and waited < 0.3, (req, r, waited)
        s.close()
    print("ok bare LF: 400 at once")
    p.send_signal(signal.SIGTERM)
    assert p.wait(10) == 0
finally:
    if p.poll() is None:
        p.kill(); p.wait()
PY
