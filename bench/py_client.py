#!/usr/bin/env python3
"""The comparison client for bench/capacity_bench.sh: an asyncio + aiohttp
streaming load generator written the way vLLM's benchmark_serving.py client
works (one aiohttp session, a semaphore for concurrency, per-line
perf_counter timestamps, "data: " prefix stripping, json.loads per event).

Prints one JSON line: requests, tokens (content events), events, wall_s, cpu_s.
"""
import argparse
import asyncio
import json
import resource
import time

import aiohttp


async def one(session, url, body, headers, stats):
    try:
        await stream(session, url, body, headers, stats)
    except (aiohttp.ClientError, asyncio.TimeoutError):
        stats["failed"] += 1


async def stream(session, url, body, headers, stats):
    t0 = time.perf_counter()
    ttft = None
    tokens = 0
    events = 0
    async with session.post(url, data=body, headers=headers) as resp:
        if resp.status != 200:
            stats["failed"] += 1
            await resp.read()
            return
        # Like vLLM's benchmark_serving.py: iterate the body line by line
        # (aiohttp's StreamReader), strip, drop the "data: " prefix, json.loads.
        async for chunk_bytes in resp.content:
            chunk_bytes = chunk_bytes.strip()
            if not chunk_bytes:
                continue
            now = time.perf_counter()
            chunk = chunk_bytes.decode("utf-8").removeprefix("data: ")
            if chunk == "[DONE]":
                continue
            events += 1
            obj = json.loads(chunk)
            choices = obj.get("choices") or []
            if choices and (choices[0].get("delta") or {}).get("content"):
                if ttft is None:
                    ttft = now - t0
                tokens += 1
    stats["tokens"] += tokens
    stats["events"] += events
    stats["requests"] += 1


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--osl", type=int, default=256)
    ap.add_argument("--isl-chars", type=int, default=64)
    a = ap.parse_args()
    body = json.dumps({
        "model": "sim", "messages": [{"role": "user", "content": "x" * a.isl_chars}],
        "stream": True, "max_tokens": a.osl, "min_tokens": a.osl, "ignore_eos": True,
        "stream_options": {"include_usage": True},
    })
    headers = {"Content-Type": "application/json"}
    stats = {"requests": 0, "tokens": 0, "events": 0, "failed": 0}
    sem = asyncio.Semaphore(a.concurrency)
    conn = aiohttp.TCPConnector(limit=a.concurrency)
    timeout = aiohttp.ClientTimeout(total=6 * 3600)
    async with aiohttp.ClientSession(connector=conn, timeout=timeout) as session:
        async def guarded():
            async with sem:
                await one(session, a.url + "/v1/chat/completions", body, headers, stats)
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        await asyncio.gather(*(guarded() for _ in range(a.requests)))
        wall = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    stats.update(wall_s=wall, cpu_s=cpu)
    print(json.dumps(stats))


if __name__ == "__main__":
    asyncio.run(main())
