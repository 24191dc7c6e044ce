#!/usr/bin/env python3
"""tests/e2e/serve_client.py — a raw-socket HTTP/1.1 client for the serve_* e2e
tests: decodes chunked bodies itself and stamps every received HTTP chunk with
time.monotonic_ns() (CLOCK_MONOTONIC, the clock of the server's timing log).

  serve_client.py URL PATH JSON_BODY      prints one JSON object describing the response
"""
import json, socket, sys, time, urllib.parse


def request(url, path, body, headers=None, timeout=30):
    u = urllib.parse.urlparse(url)
    s = socket.create_connection((u.hostname, u.port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = body.encode() if isinstance(body, str) else body
    h = {"Host": u.netloc, "Content-Type": "application/json", "Content-Length": str(len(data))}
    h.update(headers or {})
    req = "POST %s HTTP/1.1\r\n%s\r\n" % (path, "".join("%s: %s\r\n" % kv for kv in h.items()))
    t0 = time.monotonic_ns()
    s.sendall(req.encode() + data)
    return read_response(s, t0)


_leftover = {}


def read_response(s, t0=None):
    """Reads one response; bytes past it stay queued for the next call on s."""
    buf = _leftover.pop(s.fileno(), b"")
    out = {"t_send_ns": t0, "status": 0, "headers": {}, "chunks": [], "eof": False, "error": None,
           "terminated": False, "body": b""}
    def more():
        nonlocal buf
        try:
            d = s.recv(1 << 16)
        except (ConnectionResetError, socket.timeout) as e:
            out["error"] = type(e).__name__
            return False
        if not d:
            out["eof"] = True
            return False
        buf += d
        return True
    while b"\r\n\r\n" not in buf:
        if not more():
            return out
    head, buf = buf.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    out["status"] = int(lines[0].split()[1])
    for l in lines[1:]:
        k, v = l.split(":", 1)
        out["headers"][k.strip().lower()] = v.strip()
    if out["headers"].get("transfer-encoding") == "chunked":
        while True:
            while b"\r\n" not in buf:
                if not more():
                    return out
            size_line, rest = buf.split(b"\r\n", 1)
            n = int(size_line.split(b";")[0], 16)
            if n == 0:
                while b"\r\n\r\n" not in b"\r\n" + rest:
                    buf = rest
                    if not more():
                        return out
                    rest = buf
                _leftover[s.fileno()] = (b"\r\n" + rest).split(b"\r\n\r\n", 1)[1]
                out["terminated"] = True
                return out
            while len(rest) < n + 2:
                buf = rest
                if not more():
                    return out
                rest = buf
            out["chunks"].append((time.monotonic_ns(), rest[:n].decode("utf-8", "replace")))
            buf = rest[n + 2:]
    n = int(out["headers"].get("content-length", "0"))
    while len(buf) < n:
        if not more():
            return out
    out["body"] = buf[:n]
    _leftover[s.fileno()] = buf[n:]
    out["chunks"].append((time.monotonic_ns(), buf[:n].decode("utf-8", "replace")))
    out["terminated"] = True
    return out


def sse_events(chunks):
    """SSE events (payload strings) from the concatenated chunk texts, with the time
    of the chunk that completed each event."""
    ev, text = [], ""
    for t, c in chunks:
        text += c
        while "\n\n" in text:
            e, text = text.split("\n\n", 1)
            if e.startswith(":"):
                ev.append((t, e))          # comment (": keep-alive"), kept verbatim
                continue
            assert e.startswith("data: "), repr(e)
            ev.append((t, e[6:]))
    return ev


if __name__ == "__main__":
    r = request(sys.argv[1], sys.argv[2], sys.argv[3])
    r["body"] = r["body"].decode("utf-8", "replace")
    print(json.dumps(r))
