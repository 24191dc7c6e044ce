#!/usr/bin/env python3
"""tests/golden/normalize.py DIR OUT — writes a timing-free copy of every artifact in DIR to OUT.

Why: the golden-artifact test (tests/e2e/golden_artifacts.sh) must prove that a refactor changed no
output byte, yet every run measures different times. So each file is rewritten with the values that
come from the clock masked, and everything else (keys, order, counts, texts, formatting of the
non-timing numbers) kept exactly. inputs.json is compared as it is, byte for byte.
"""
import json, os, re, sys

# Keys whose values (and everything under them) come from the clock or the host.
TIMED = re.compile(r"(_ns$|^t_|timestamp|wall|latency|throughput|time_to|busy|host|duration|"
                   r"elapsed|_s$|_ms$|^avg$|^p\d+$|^min$|^max$|^std$|^value$|seconds|rate|lag|"
                   r"per_sec|cpu|mem|rss|start|end|window|version_git)", re.I)

# Whole blocks that depend on how many telemetry ticks fell inside the run.
DROPPED = {"telemetry", "telemetry_stats"}

def fix_str(s):
    # The ephemeral port of `genperf serve --port 0` and the wall-clock "created" field of its chunks.
    s = re.sub(r"(127\.0\.0\.1|localhost):\d+", r"\1:PORT", s)
    return re.sub(r'(\\?"created\\?":)\d+', r"\1<t>", s)

def mask(v):
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, str):
        return "<t>"
    if isinstance(v, (int, float)):
        return "<t>"
    if isinstance(v, list):
        return [mask(x) for x in v]
    if isinstance(v, dict):
        return {k: mask(x) for k, x in v.items()}
    return v

# Whether reads carry the kernel's receive stamp depends on the host, not on
# the code: Linux turns socket timestamping on for the whole system through a
# deferred work item when the first socket asks (net_enable_timestamp), so on
# a loaded host a short run's reads can all come before it and the run says,
# honestly, "recv" with no recv_lag figures (seen in CI, 2026-12-06: the
# 5-request completions case). e2e/profile_rx_stamp checks the kernel path.
HOST_STAMP = re.compile(r"^(receive_stamp|recv_lag.*)$")

def mask_host(v):
    if v is None:
        return "<t>"
    if isinstance(v, dict):
        return {k: mask_host(x) for k, x in v.items()}
    return mask(v)

def walk(v):
    if isinstance(v, dict):
        return {k: ("<dropped>" if k in DROPPED else mask_host(x) if HOST_STAMP.search(k)
                    else mask(x) if TIMED.search(k) else walk(x))
                for k, x in v.items()}
    if isinstance(v, list):
        return [walk(x) for x in v]
    if isinstance(v, str):
        return fix_str(v)
    return v

def dump(v):
    return json.dumps(v, indent=1, sort_keys=False) + "\n"

def norm_csv(text):
    out = []
    for line in text.splitlines():
        if re.match(r'^(Time|Request Latency|Inter Token|Output Token Throughput|Request Throughput)', line):
            label = line.split(",")[0]
            out.append(label + ",<masked>")
        else:
            out.append(line)
    return "\n".join(out) + "\n"

def norm_console(text):
    out = []
    for line in text.splitlines():
        line = re.sub(r"[\u2500-\u257f]", " ", line)      # box drawing
        line = re.sub(r"[0-9][0-9,.\u2026]*|N/A", "N", line)
        line = re.sub(r"event loop busy N% of one core", "event loop busy", line)
        line = re.sub(r"measured phase N s", "measured phase", line)
        line = " ".join(line.split())
        if line:
            out.append(line)
    return "\n".join(out) + "\n"

def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        p = os.path.join(src, name)
        text = open(p, encoding="utf-8").read()
        if name.endswith("_telemetry.jsonl"):
            continue            # samples depend on when the sampler ticked
        if name == "inputs.json":
            res = text
        elif name.endswith(".jsonl"):
            res = "".join(dump(walk(json.loads(l))) for l in text.splitlines() if l.strip())
        elif name.endswith(".json"):
            res = dump(walk(json.loads(text)))
        elif name.endswith(".csv"):
            res = norm_csv(text)
        elif name.endswith(".txt"):
            res = norm_console(text)
        else:
            res = text
        open(os.path.join(dst, name), "w", encoding="utf-8").write(res)

main()
