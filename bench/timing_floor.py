#!/usr/bin/env python3
"""Reference client for bench/timing_bench.sh: the least a client can do to
timestamp chunks -- raw non-blocking sockets on epoll, CLOCK_MONOTONIC read
right after each recv(), no HTTP library, no JSON parsing -- run against the
same server, load and host as genperf profile. Its error against the
--timing-log truth is the floor this machine sets (scheduling, loopback);
genperf's figure beside it says how much the client adds.

Arrivals: Poisson at --rate with at most --streams in flight, --requests in
all, one connection per request. Prints one JSON line: {"requests", "events"}.
Writes every request's id and per-content-event arrival times (monotonic ns)
to --out as JSON lines {"id":..., "t":[...]} for timing_compare.py --floor.
"""
import argparse
import json
import random
import re
import select
import socket
import time

ap = argparse.ArgumentParser()
ap.add_argument("--url", required=True)
ap.add_argument("--streams", type=int, required=True)
ap.add_argument("--rate", type=float, required=True)
ap.add_argument("--requests", type=int, required=True)
ap.add_argument("--osl", type=int, default=64)
ap.add_argument("--out", required=True)
a = ap.parse_args()

host, port = a.url.split("//", 1)[1].split(":")
port = int(port)
now = time.monotonic_ns
rng = random.Random(1)
id_re = re.compile(rb'"id":"([^"]+)"')


def request_bytes(i):
    body = json.dumps({"model": "sim", "stream": True, "max_tokens": a.osl, "min_tokens": a.osl,
                       "ignore_eos": True,
                       "messages": [{"role": "user", "content": "floor %d" % i}]}).encode()
    return (b"POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n\r\n" % (host.encode(), len(body))) + body


ep = select.epoll()
conns = {}  # fd -> [sock, buffer, id, times]
out = open(a.out, "w")
started = done = events = 0
t0 = now()
next_due = t0
while done < a.requests:
    t = now()
    while started < a.requests and len(conns) < a.streams and next_due <= t:
        s = socket.create_connection((host, port))
        s.sendall(request_bytes(started))
        s.setblocking(False)
        conns[s.fileno()] = [s, bytearray(), None, []]
        ep.register(s.fileno(), select.EPOLLIN)
        started += 1
        next_due += int(rng.expovariate(a.rate) * 1e9)
    if started < a.requests and len(conns) < a.streams:
        timeout = max(0.0, (next_due - now()) / 1e9)
    else:
        timeout = 1.0
    for fd, _ in ep.poll(timeout):
        c = conns[fd]
        try:
            data = c[0].recv(65536)
        except BlockingIOError:
            continue
        t = now()
        if data:
            c[1] += data
            # count whole SSE events that carry content; stamp them with t
            while True:
                k = c[1].find(b"\n\n")
                if k < 0:
                    break
                ev = bytes(c[1][:k])
                del c[1][:k + 2]
                if c[2] is None:
                    m = id_re.search(ev)
                    if m:
                        c[2] = m.group(1).decode()
                if b'"content":"' in ev and b'"content":""' not in ev:
                    c[3].append(t)
                    events += 1
            continue
        ep.unregister(fd)
        c[0].close()
        out.write(json.dumps({"id": c[2], "t": c[3]}) + "\n")
        del conns[fd]
        done += 1
out.close()
print(json.dumps({"requests": done, "events": events, "wall_s": (now() - t0) / 1e9}))
