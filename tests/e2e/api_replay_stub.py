#!/usr/bin/env python3
"""tests/e2e/api_replay_stub.py - a loopback server that answers with the tool
calls and refusals `genperf serve` cannot produce (issue 38 items 1 and 2),
shaped as the official SDKs type them (openai-node 7.60.0,
@anthropic-ai/sdk 1.17.0). Each request's "model" names the answer; its
"stream" picks the event stream or the whole body. Writes its base URL to
--port-file once listening; one line per request to --log.

Models (ARGS is the tool call's JSON arguments, TEXT a line of text, REFUSAL
a refusal; the stream sends them in FRAGS pieces, 20 ms apart):
  anth_tool      Anthropic Messages: one tool_use block (input_json_delta
                 fragments; not streamed, content[] = [tool_use{input}])
  anth_mixed     Anthropic: a text block (TEXT), then the tool_use block
  resp_tool      Responses API: one function_call item
                 (response.function_call_arguments.delta; not streamed,
                 output[] = [function_call{arguments}])
  resp_mixed     Responses: a message (TEXT), then the function_call
  resp_refusal   Responses: a message whose only part is a refusal
                 (response.refusal.delta; not streamed, content[] =
                 [{type: refusal, refusal}])
  chat_refusal   chat completions: delta.refusal (not streamed,
                 message.refusal; content null)
"""
import argparse, json, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = '{"city": "Paris", "unit": "celsius"}'  # json.dumps of INPUT, byte for byte
INPUT = {"city": "Paris", "unit": "celsius"}
TEXT = "Let me look that up. "
REFUSAL = "I can't help with that request."
FRAGS = 4

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--log", default="")
a = ap.parse_args()
lock = threading.Lock()
logf = open(a.log, "a", buffering=1) if a.log else None


def pieces(s):
    n = (len(s) + FRAGS - 1) // FRAGS
    return [s[i:i + n] for i in range(0, len(s), n)]


def sse(events, named):
    """Each event as SSE bytes: `event: TYPE` first where the API names them."""
    out = []
    for e in events:
        if isinstance(e, (int, float)):
            out.append(e)  # a pause, in seconds
            continue
        head = ("event: %s\n" % e["type"]) if named else ""
        out.append((head + "data: " + json.dumps(e) + "\n\n").encode())
    return out


def anthropic(mixed, stream):
    usage = {"input_tokens": 9, "output_tokens": 12}
    tool = {"type": "tool_use", "id": "toolu_1", "name": "get_weather"}
    if not stream:
        content = ([{"type": "text", "text": TEXT}] if mixed else []) + [dict(tool, input=INPUT)]
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": content,
                "stop_reason": "tool_use", "stop_sequence": None, "usage": usage}
    ev = [{"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                "content": [], "model": "m", "stop_reason": None,
                                                "usage": {"input_tokens": 9, "output_tokens": 1}}}]
    i = 0
    if mixed:
        ev += [{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
               {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": TEXT}},
               {"type": "content_block_stop", "index": 0}, 0.02]
        i = 1
    ev.append({"type": "content_block_start", "index": i, "content_block": dict(tool, input={})})
    for p in pieces(ARGS):
        ev += [{"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": p}},
               0.02]
    ev += [{"type": "content_block_stop", "index": i},
           {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 12}},
           {"type": "message_stop"}]
    return ev


def responses(kind, stream):
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    msg = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed"}
    if kind == "refusal":
        items = [dict(msg, content=[{"type": "refusal", "refusal": REFUSAL}])]
    else:
        items = ([dict(msg, content=[{"type": "output_text", "text": TEXT, "annotations": []}])]
                 if kind == "mixed" else []) + [dict(call, arguments=ARGS, status="completed")]
    resp = {"id": "resp_1", "object": "response", "status": "completed", "error": None, "model": "m",
            "output": items, "usage": {"input_tokens": 9, "output_tokens": 12, "total_tokens": 21}}
    if not stream:
        return resp
    seq = [0]

    def e(t, **kw):
        seq[0] += 1
        return dict(type=t, sequence_number=seq[0], **kw)
    ev = [e("response.created", response=dict(resp, status="in_progress", output=[], usage=None))]
    out = 0
    if kind == "refusal":
        ev += [e("response.output_item.added", output_index=0, item=dict(msg, status="in_progress", content=[])),
               e("response.content_part.added", item_id="msg_1", output_index=0, content_index=0,
                 part={"type": "refusal", "refusal": ""})]
        for p in pieces(REFUSAL):
            ev += [e("response.refusal.delta", item_id="msg_1", output_index=0, content_index=0, delta=p), 0.02]
        ev += [e("response.refusal.done", item_id="msg_1", output_index=0, content_index=0, refusal=REFUSAL)]
    else:
        if kind == "mixed":
            ev += [e("response.output_item.added", output_index=0, item=dict(msg, status="in_progress", content=[])),
                   e("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=TEXT),
                   e("response.output_text.done", item_id="msg_1", output_index=0, content_index=0, text=TEXT), 0.02]
            out = 1
        ev.append(e("response.output_item.added", output_index=out, item=dict(call, arguments="", status="in_progress")))
        for p in pieces(ARGS):
            ev += [e("response.function_call_arguments.delta", item_id="fc_1", output_index=out, delta=p), 0.02]
        ev += [e("response.function_call_arguments.done", item_id="fc_1", output_index=out, arguments=ARGS),
               e("response.output_item.done", output_index=out, item=dict(call, arguments=ARGS, status="completed"))]
    ev.append(e("response.completed", response=resp))
    return ev


def chat_refusal(stream):
    if not stream:
        return {"id": "c", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "refusal": REFUSAL},
                             "finish_reason": "stop"}]}

    def ch(delta, finish=None):
        return {"id": "c", "object": "chat.completion.chunk", "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    ev = [ch({"role": "assistant", "content": None, "refusal": ""})]
    for p in pieces(REFUSAL):
        ev += [ch({"refusal": p}), 0.02]
    ev.append(ch({}, "stop"))
    return ev


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        model, stream = body.get("model", ""), bool(body.get("stream"))
        if logf:
            with lock:
                logf.write("%s %s %s\n" % (self.path, model, "stream" if stream else "body"))
        if model.startswith("anth_"):
            answer, named, done = anthropic(model == "anth_mixed", stream), True, False
        elif model.startswith("resp_"):
            answer, named, done = responses(model[5:], stream), True, False
        elif model == "chat_refusal":
            answer, named, done = chat_refusal(stream), False, True
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        if not stream:
            b = json.dumps(answer).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)
            return
        parts = sse(answer, named) + ([b"data: [DONE]\n\n"] if done else [])
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(sum(len(p) for p in parts if isinstance(p, bytes))))
        self.end_headers()
        for part in parts:
            if isinstance(part, bytes):
                self.wfile.write(part)
                self.wfile.flush()
            else:
                time.sleep(part)


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
