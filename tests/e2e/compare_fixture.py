#!/usr/bin/env python3
"""Writes one hand-made run directory for tests/e2e/compare_unlike.sh: <stem>_genai_perf.json
(input_config and the run-level metrics), <stem>_genperf.json (requests, window) and
<stem>_records.jsonl, in the shapes genperf profile writes them, from per-request TTFTs.

compare_fixture.py DIR [--model M] [--endpoint-type chat] [--isl N] [--osl N] [--file PATH] [--no-streaming]
                   [--concurrency N | --request-rate R] [--arrival PROCESS]
                   [--ttft-ms 20,21,...] [--itl-ms 2] [--osl-tokens 8]
"""
import argparse
import json
import os


def pct(xs, q):
    """NumPy's linear interpolation, as GenAI-Perf reports percentiles."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    k = (len(s) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def stats(xs):
    return {"unit": "ms", "avg": sum(xs) / len(xs), "p50": pct(xs, 50), "p99": pct(xs, 99),
            "min": min(xs), "max": max(xs)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--model", default="m")
    ap.add_argument("--endpoint-type", default="chat")
    ap.add_argument("--isl", type=int, default=64)
    ap.add_argument("--osl", type=int, default=8)
    ap.add_argument("--file", default="")
    ap.add_argument("--no-streaming", action="store_true")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--request-rate", type=float)
    ap.add_argument("--arrival")
    ap.add_argument("--ttft-ms", default="20,21,22,23,24,25,26,27")
    ap.add_argument("--itl-ms", type=float, default=2.0)
    a = ap.parse_args()
    ttft = [float(x) for x in a.ttft_ms.split(",")]
    osl = a.osl
    lat = [t + a.itl_ms * (osl - 1) for t in ttft]
    os.makedirs(a.dir, exist_ok=True)
    stimulus = {"request_rate": a.request_rate} if a.request_rate else {"concurrency": a.concurrency}
    ic = {
        "model_names": [a.model],
        "subcommand": "profile",
        "endpoint": {"type": a.endpoint_type, "streaming": not a.no_streaming, "url": "localhost:8000"},
        "perf_analyzer": {"stimulus": stimulus, "measurement": {"mode": "request_count", "num": len(ttft)},
                          "warmup_request_count": 0},
        "input": {"file": a.file, "goodput": "", "prompt_source": "file" if a.file else "synthetic",
                  "output_tokens": {"mean": a.osl, "deterministic": False, "stddev": 0},
                  "synthetic_tokens": {"mean": a.isl, "stddev": 0}},
    }
    t0 = 1_000_000_000_000
    recs, t = [], t0
    for i, (f, l) in enumerate(zip(ttft, lat)):
        recs.append({"request_index": i, "t_start_ns": t, "t_end_ns": t + int(l * 1e6), "status": "ok",
                     "warmup": False, "ttft_ns": int(f * 1e6), "request_latency_ns": int(l * 1e6),
                     "itl_ns": int(a.itl_ms * 1e6) if osl > 1 else None, "osl": osl})
        t += int(l * 1e6)
    dur_s = (t - t0) / 1e9
    genai = {
        "request_throughput": {"unit": "requests/sec", "avg": len(ttft) / dur_s},
        "request_latency": stats(lat),
        "request_count": {"unit": "count", "avg": len(ttft)},
        "time_to_first_token": stats(ttft),
        "inter_token_latency": stats([a.itl_ms]),
        "output_token_throughput": {"unit": "tokens/sec", "avg": len(ttft) * osl / dur_s},
        "input_config": ic,
    }
    extras = {"mode": "request_rate" if a.request_rate else "concurrency",
              "requests": {"measured": len(ttft), "ok": len(ttft), "failed": 0},
              "window": {"start_wall_ns": t0, "end_wall_ns": t}}
    if a.arrival:
        extras["arrivals"] = {"process": a.arrival}
    stem = os.path.join(a.dir, "profile_export")
    json.dump(genai, open(stem + "_genai_perf.json", "w"), indent=1)
    json.dump(extras, open(stem + "_genperf.json", "w"), indent=1)
    with open(stem + "_records.jsonl", "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")


main()
