#!/usr/bin/env python3
"""tests/e2e/profile_stub_server.py - a tiny OpenAI-compatible server for the
profile end-to-end tests (loopback only). It exists so the client tests can
inject faults the real `genperf serve` may not offer: fixed HTTP statuses,
every-Nth failure, stalled streams, dying mid-run. Writes its base URL to
--port-file once listening. Counts requests in --count-file (one line per
request: "<path> <entry-marker>") when given.
"""
import argparse, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--tokens", type=int, default=8, help="tokens when max_tokens is absent")
ap.add_argument("--token-ms", type=float, default=1.0)
ap.add_argument("--status", type=int, default=200, help="answer every request with this status")
ap.add_argument("--fail-every", type=int, default=0, help="every Nth request gets HTTP 500")
ap.add_argument("--stall-every", type=int, default=0, help="every Nth stream stalls after its first token")
ap.add_argument("--die-after", type=int, default=0, help="exit the process after N requests")
ap.add_argument("--log", default="")
ap.add_argument("--tls-cert", default="", help="serve https with this PEM certificate (and --tls-key)")
ap.add_argument("--tls-key", default="")
ap.add_argument("--redirect", default="", help="answer every request with 307 to this URL")
ap.add_argument("--endless-event-bytes", type=int, default=0,
                help="stream 'data: <N bytes>' events forever (a hostile server)")
ap.add_argument("--hang-every", type=int, default=0,
                help="every Nth request is read and logged, then never answered (no status line)")
ap.add_argument("--big-line-bytes", type=int, default=0,
                help="streams: the first token event carries N bytes of content on one SSE line")
ap.add_argument("--body-bytes", type=int, default=0,
                help="non-streamed answers carry N bytes of content (large bodies)")
ap.add_argument("--fixed-tokens", type=int, default=0,
                help="answer every request with N tokens whatever its max_tokens (a server that ignores it)")
ap.add_argument("--no-usage", action="store_true", help="never send usage, even when stream_options asks for it")
a = ap.parse_args()

lock = threading.Lock()
state = {"n": 0, "inflight": 0, "max_inflight": 0}
logf = open(a.log, "a", buffering=1) if a.log else None


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def chunk(self, data):
        b = data.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
        self.wfile.flush()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with lock:
            state["n"] += 1
            k = state["n"]
            state["inflight"] += 1
            state["max_inflight"] = max(state["max_inflight"], state["inflight"])
            if logf:
                logf.write("%d %s %d %s\n" % (k, self.path, state["inflight"], self.headers.get("Authorization", "-")))
        try:
            self.handle_req(k, body)
        finally:
            with lock:
                state["inflight"] -= 1
            if a.die_after and k >= a.die_after:
                os._exit(0)

    def handle_req(self, k, body):
        try:
            req = json.loads(body)
        except Exception:
            return self.send_json(400, {"error": {"message": "bad json"}})
        if a.redirect:
            self.send_response(307)
            self.send_header("Location", a.redirect)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if a.endless_event_bytes:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            pad = "x" * a.endless_event_bytes
            try:
                while True:
                    self.chunk("data: " + pad + "\n\n")
            except OSError:
                return
        if a.hang_every and k % a.hang_every == 0:
            time.sleep(3600)  # accepted and read, never answered; the client's timeout ends it
            return
        if a.status != 200:
            return self.send_json(a.status, {"error": {"message": "injected status %d" % a.status, "code": a.status}})
        if a.fail_every and k % a.fail_every == 0:
            return self.send_json(500, {"error": {"message": "injected failure", "code": 500}})
        chat = self.path.endswith("/chat/completions")
        ntok = a.fixed_tokens or req.get("max_tokens") or a.tokens
        model = req.get("model", "m")
        if not req.get("stream"):
            time.sleep(ntok * a.token_ms / 1000.0)
            text = "x" * a.body_bytes if a.body_bytes else "tok " * ntok
            if chat:
                out = {"id": "x", "object": "chat.completion", "model": model,
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": ntok, "total_tokens": ntok + 1}}
            else:
                out = {"id": "x", "object": "text_completion", "model": model,
                       "choices": [{"index": 0, "text": text, "finish_reason": "length"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": ntok, "total_tokens": ntok + 1}}
            return self.send_json(200, out)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i in range(ntok):
            time.sleep(a.token_ms / 1000.0)
            tok = "tok " if not (a.big_line_bytes and i == 0) else "x" * a.big_line_bytes
            if chat:
                ev = {"id": "x", "object": "chat.completion.chunk", "model": model,
                      "choices": [{"index": 0, "delta": {"content": tok}, "finish_reason": None}]}
            else:
                ev = {"id": "x", "object": "text_completion", "model": model,
                      "choices": [{"index": 0, "text": tok, "finish_reason": None}]}
            self.chunk("data: " + json.dumps(ev) + "\n\n")
            if a.stall_every and k % a.stall_every == 0:
                time.sleep(3600)
        if not a.no_usage:
            self.chunk("data: " + json.dumps({"id": "x", "object": "chat.completion.chunk", "model": model,
                                               "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": ntok}})
                       + "\n\n")
        self.chunk("data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def send_json(self, status, obj):
        b = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)


class S(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # a client that hangs up mid-answer is what the fault tests do: no traceback per request


srv = S(("127.0.0.1", 0), H)
scheme = "http"
if a.tls_cert:
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.tls_cert, a.tls_key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    scheme = "https"
tmp = a.port_file + ".tmp"
with open(tmp, "w") as f:
    f.write("%s://127.0.0.1:%d\n" % (scheme, srv.server_address[1]))
os.rename(tmp, a.port_file)
try:
    srv.serve_forever()
except KeyboardInterrupt:
    pass
