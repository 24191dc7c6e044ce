#!/usr/bin/env python3
"""tests/e2e/hostile_stub.py - a loopback server that answers every request
with one hostile but 2xx response (issue 26): the answers a proxy, a broken
gateway or a buggy server give, which must never be recorded as clean
measurements. Writes its base URL to --port-file once listening; one line
per request read to --log.

--mode (or --mode model: each request's "model" names its mode, so one server serves a whole
test; a model "<mode>_every2" gets that mode on every 2nd request, a clean stream otherwise):
  html          200 text/html login page (not an OpenAI response)
  malformed     200 event stream of 12 malformed events, then [DONE]
  204           204 No Content
  short_cl      200 event stream whose Content-Length is shorter than the body:
                two tokens whole, the third event cut in half, no [DONE], no
                finish_reason (the connection is closed after it)
  no_done       200 event stream of three tokens that ends on an event boundary without
                finish_reason or [DONE] (counted, as GenAI-Perf counts it, with a warning)
  event_name    200 event stream whose events carry `event: no_error_here`
  empty         200 event stream with a finish chunk and [DONE] but no content (a real, empty
                answer: ok, not hostile)
  usage_big     200 stream, usage.completion_tokens 9223372036854775808
  usage_frac    200 stream, usage.completion_tokens 1.5
  usage_neg     200 stream, usage.completion_tokens -3
  json_empty    200 application/json {} (issue 38 item 6: JSON, but no answer)
  json_status   200 application/json {"status":"ok"} (a health check's answer)
  foreign_stream 200 event stream of one {"foo":1} event, then [DONE]
  resp_failed   200 Responses API stream: two text deltas, then response.completed whose
                response has status "failed" (--endpoint-type responses)
  gzip          200 clean stream sent gzip-compressed with Content-Encoding: gzip, though the
                client sent no Accept-Encoding (issue 40 item 5)
  short_json    200 application/json chat completion cut short: Content-Length announces the
                whole body, half of it is sent, then the connection closes
  long_cl       200 complete stream with [DONE] whose Content-Length is 100 bytes longer than
                the body; the connection closes after the body
"""
import argparse, json, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--mode", required=True)
ap.add_argument("--every", type=int, default=1,
                help="only every Nth request gets --mode; the others a clean 3-token stream")
ap.add_argument("--log", default="")
a = ap.parse_args()
state = {}

lock = threading.Lock()
logf = open(a.log, "a", buffering=1) if a.log else None


def ev(text, finish=None):
    return {"id": "x", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, status, ctype, body, length=None, close=False):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if status != 204:
            self.send_header("Content-Length", str(len(body) if length is None else length))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def stream(self, events, done=True):
        s = "".join("data: %s\n\n" % (e if isinstance(e, str) else json.dumps(e)) for e in events)
        if done:
            s += "data: [DONE]\n\n"
        return s.encode()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        m, every = a.mode, a.every
        if m == "model":
            m = json.loads(self.rfile.read(n)).get("model", "")
            if m.endswith("_every2"):
                m, every = m[:-7], 2
        else:
            self.rfile.read(n)
        with lock:
            state[m] = state.get(m, 0) + 1
            k = state[m]
            if logf:
                logf.write("%d %s %s\n" % (k, self.path, m))
        m = m if k % every == 0 else "clean"
        if m == "clean":
            return self.send_body(200, "text/event-stream", self.stream([ev("tok "), ev("tok "), ev("tok ", "stop")]))
        if m == "html":
            page = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>\n"
            return self.send_body(200, "text/html; charset=utf-8", page)
        if m == "malformed":
            bad = ['{"choices": [{"delta": {"content": "x"' for _ in range(6)] + ["not json %d" % i for i in range(6)]
            return self.send_body(200, "text/event-stream", self.stream(bad))
        if m == "204":
            return self.send_body(204, None, b"")
        if m == "short_cl":
            body = self.stream([ev("tok "), ev("tok "), ev("tok "), ev("", "stop")])
            cut = len(self.stream([ev("tok "), ev("tok ")], done=False)) + 30  # mid third event
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(cut))
            self.send_header("Connection", "close")
            self.close_connection = True
            self.end_headers()
            self.wfile.write(body)  # more than announced: the client must stop at cut
            self.wfile.flush()
            return
        if m == "empty":
            return self.send_body(200, "text/event-stream", self.stream([ev("", "stop")]))
        if m == "no_done":
            return self.send_body(200, "text/event-stream", self.stream([ev("tok ")] * 3, done=False))
        if m == "event_name":
            s = b"".join(b"event: no_error_here\n" + self.stream([e], done=False)
                         for e in [ev("tok "), ev("tok "), ev("", "stop")]) + b"data: [DONE]\n\n"
            return self.send_body(200, "text/event-stream", s)
        if m == "json_empty":
            return self.send_body(200, "application/json", b"{}")
        if m == "json_status":
            return self.send_body(200, "application/json", b'{"status":"ok"}')
        if m == "foreign_stream":
            return self.send_body(200, "text/event-stream", self.stream(['{"foo":1}']))
        if m == "resp_failed":
            evs = [{"type": "response.created", "response": {"object": "response", "status": "in_progress"}},
                   {"type": "response.output_text.delta", "delta": "tok "},
                   {"type": "response.output_text.delta", "delta": "tok "},
                   {"type": "response.completed", "response": {"object": "response", "status": "failed",
                                                               "error": None, "usage": None}}]
            s = "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in evs)
            return self.send_body(200, "text/event-stream", s.encode())
        if m == "gzip":
            import gzip
            body = gzip.compress(self.stream([ev("tok "), ev("tok "), ev("tok ", "stop")]))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            return
        if m in ("short_json", "long_cl"):
            if m == "short_json":
                whole = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "tok tok tok"},
                     "finish_reason": "stop"}]}).encode()
                ctype, body, length = "application/json", whole[:len(whole) // 2], len(whole)
            else:
                body = self.stream([ev("tok "), ev("tok "), ev("tok ", "stop")])
                ctype, length = "text/event-stream", len(body) + 100
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(length))
            self.send_header("Connection", "close")
            self.close_connection = True
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            return
        if m.startswith("usage_"):
            ct = {"usage_big": "9223372036854775808", "usage_frac": "1.5", "usage_neg": "-3"}[m]
            usage = '{"id": "x", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": %s}}' % ct
            return self.send_body(200, "text/event-stream",
                                  self.stream([ev("tok "), ev("tok "), ev("", "stop"), usage]))
        self.send_body(500, "text/plain", b"unknown --mode\n")


class S(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


srv = S(("127.0.0.1", 0), H)
with open(a.port_file + ".tmp", "w") as f:
    f.write("http://127.0.0.1:%d\n" % srv.server_address[1])
import os
os.replace(a.port_file + ".tmp", a.port_file)
srv.serve_forever()
