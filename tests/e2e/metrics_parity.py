"""metrics_parity.py RUN_DIR — checks a genperf run directory against GenAI-Perf.

1. Re-parses <run>/profile_export.json with GenAI-Perf 0.0.16's algorithm
   (llm_profile_data_parser._preprocess_response + _extract_openai_chat_text_output,
   spec genai-perf-profile.md §6.2/6.3; builtin tokenizer = UTF-8 byte count) and
   compares TTFT / latency / OSL per request with <stem>_records.jsonl. Requests
   where GenAI-Perf's parser is known to lose or shift content (a splintered event,
   a read holding content plus an unparsable usage/[DONE] event) are reported
   as divergences, every other request must agree exactly.
2. Recomputes every statistic from the per-request values in records.jsonl with
   NumPy's algorithms (pure Python) and requires the metric objects of
   <stem>_genai_perf.json to be identical, and the file to be
   json.dumps(indent=2) of itself.
3. Rebuilds <stem>_genai_perf.csv with Python's csv.writer and f"{v:,.2f}" from
   those statistics (GenAI-Perf's csv_exporter) and requires the same bytes.
"""
import json
import math
import sys

run = sys.argv[1]
pe = json.loads(open(f"{run}/profile_export.json", encoding="utf-8", errors="ignore").read())
text = open(f"{run}/profile_export_genai_perf.json").read()
gp = json.loads(text)
recs = [json.loads(l) for l in open(f"{run}/profile_export_records.jsonl")]
streaming = gp["input_config"]["endpoint"]["streaming"]
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


check(text == json.dumps(gp, indent=2), "genai_perf.json is not json.dumps(indent=2) of itself")

# ---- 1. GenAI-Perf's response parsing --------------------------------------


def is_field(s):
    return s.startswith((":", "event:", "id:", "retry:"))


def strip_data(s):
    s = s.strip()
    if s.startswith("data:"):
        s = s[len("data:"):]
    return s.strip()


COMPLETIONS = pe.get("endpoint") == "v1/completions"


def extract(s):
    if s == "" or is_field(s):
        return ""
    s = strip_data(s)
    if s == "[DONE]":
        return ""
    d = json.loads(s)
    ch = d.get("choices", [{}])[0]
    if COMPLETIONS:  # _extract_openai_text_output
        return ch.get("text", "") or ""
    obj = d.get("object")
    if obj is None:
        t = ch.get("text", "")
    elif obj == "chat.completion":
        t = ch["message"].get("content", "")
    elif obj == "chat.completion.chunk":
        t = ch["delta"].get("content", "")
    else:
        raise ValueError(obj)
    return t or ""


def gp_parse(ts, outs):
    outs = [o["response"] for o in outs]
    splinter = False
    for i in range(len(outs) - 1, 0, -1):
        r = outs[i]
        if is_field(r):
            continue
        if not r.startswith("data: "):
            splinter = True
            j = r.find("data: ")
            if j == -1:
                outs[i - 1] += r
                outs[i] = ""
            else:
                outs[i - 1] += r[:j]
                outs[i] = r[j:]
    lossy = False
    for i, r in enumerate(outs):
        try:
            ev = r.strip().split("\n\n")
            if len(ev) > 1:
                d = json.loads(strip_data(ev[0]))
                merged = "".join(extract(e) for e in ev)
                if COMPLETIONS:
                    d["choices"][0]["text"] = merged
                else:
                    d["choices"][0]["delta"]["content"] = merged
                outs[i] = json.dumps(d)
            elif extract(r) == "":
                outs[i] = ""
        except Exception:
            # a read GenAI-Perf cannot parse: did it hold content we keep?
            for e in r.strip().split("\n\n"):
                try:
                    if extract(e):
                        lossy = True
                except Exception:
                    pass
            outs[i] = ""
    keep = [(t, o) for t, o in zip(ts, outs) if o != "" and extract(o) != ""]
    return keep, splinter, lossy


exp = pe["experiments"][0]
by_start = {}
for r in recs:
    if r["status"] == "ok" and not r["warmup"]:
        by_start.setdefault(r["t_start_ns"], []).append(r)
diverged = 0
for q in exp["requests"]:
    t0 = q["timestamp"]
    keep, splinter, lossy = gp_parse(q["response_timestamps"], q["response_outputs"])
    cands = by_start.get(t0, [])
    check(len(cands) >= 1, f"request at {t0} missing from records.jsonl")
    if not cands:
        continue
    r = cands.pop(0)
    if "session_id" in q.get("request_inputs", {}):
        r["_session"] = q["request_inputs"]["session_id"]
    if not keep:
        same = r["content_chunks"] == 0
    else:
        osl = len("".join(extract(o) for _, o in keep).encode("utf-8"))
        same = (r["ttft_ns"] == keep[0][0] - t0 and r["request_latency_ns"] == keep[-1][0] - t0
                and r["osl"] == osl and r["content_chunks"] == len(keep)
                and r["content_ns"] == [t - t0 for t, _ in keep])
    if not same:
        if splinter or lossy:
            diverged += 1
        else:
            check(False, f"request at {t0}: genai-perf parse {[(t - t0) for t, _ in keep]} vs ours {r}")

# ---- 2. statistics --------------------------------------------------------


def pairwise(a):
    n = len(a)
    if n < 8:
        res = 0.0
        for x in a:
            res += x
        return res
    if n <= 128:
        r = [float(a[k]) for k in range(8)]
        i = 8
        while i < n - (n % 8):
            for k in range(8):
                r[k] += a[i + k]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return pairwise(a[:n2]) + pairwise(a[n2:])


def pct(s, p):
    n = len(s)
    vi = (n - 1) * (p / 100)
    if vi >= n - 1:
        return float(s[-1])
    lo = math.floor(vi)
    a, b, g = s[lo], s[lo + 1], vi - lo
    d = b - a
    return float(b - d * (1 - g)) if g >= 0.5 else float(a + d * g)


def stats(x, unit, scale=1.0):
    m = pairwise([float(v) for v in x]) / len(x)
    sd = math.sqrt(pairwise([(float(v) - m) * (float(v) - m) for v in x]) / len(x))
    s = sorted(x)
    o = {"unit": unit, "avg": m}
    for p in (1, 5, 10, 25, 50, 75, 90, 95, 99):
        o[f"p{p}"] = pct(s, p)
    o["min"], o["max"], o["std"] = float(s[0]), float(s[-1]), sd
    return {k: (v * scale if k != "unit" else v) for k, v in o.items()}


ok = [r for r in recs if r["status"] == "ok" and not r["warmup"]]
cnt = [r for r in ok if r["content_chunks"] > 0]
want = {}
if cnt:
    dur = (max(r["t_start_ns"] + r["request_latency_ns"] for r in cnt) - min(r["t_start_ns"] for r in cnt)) / 1e9
    ms = 1 / 1e6
    want["request_throughput"] = {"unit": "requests/sec", "avg": len(ok) / dur}
    want["request_latency"] = stats([r["request_latency_ns"] for r in cnt], "ms", ms)
    want["request_count"] = {"unit": "count", "avg": float(len(cnt))}
    want["time_to_first_token"] = stats([r["ttft_ns"] for r in cnt], "ms", ms)
    ttst = [r["ttst_ns"] for r in cnt if r["ttst_ns"] is not None]
    if ttst:
        want["time_to_second_token"] = stats(ttst, "ms", ms)
    itl = [r["itl_ns"] for r in cnt if r["itl_ns"] is not None]
    if itl and sum(itl) != 0:
        want["inter_token_latency"] = stats(itl, "ms", ms)
    want["output_token_throughput"] = {"unit": "tokens/sec", "avg": sum(r["osl"] for r in cnt) / dur}
    tps = [1 / (v / 1e9) for v in itl if v > 0]
    if tps:
        want["output_token_throughput_per_user"] = stats(tps, "tokens/sec/user")
    want["output_sequence_length"] = stats([r["osl"] for r in cnt], "tokens")
    want["input_sequence_length"] = stats([r["isl"] for r in cnt], "tokens")
got = {k: v for k, v in gp.items() if k not in ("input_config", "telemetry_stats", "request_goodput", "sessions")}
check(list(got) == list(want), f"metric keys {list(got)} != {list(want)}")
for k in want:
    if got.get(k) != want[k]:
        check(False, f"{k}: ours {got.get(k)} != recomputed {want[k]}")

# ---- 2b. per-session statistics (GenAI-Perf's _session_metrics) ------------
# Requests grouped by their request_inputs session_id in profile_export.json,
# sessions in order of first appearance; throughputs over the session's own
# span (first start to last response). A run without session ids has no block.
want_s = {}
for r in cnt:
    if "_session" in r:
        want_s.setdefault(r["_session"], []).append(r)
for sid, rs in want_s.items():
    ms = 1 / 1e6
    span = (max(r["t_start_ns"] + r["request_latency_ns"] for r in rs) - min(r["t_start_ns"] for r in rs)) / 1e9
    o = {}
    if span > 0:
        o["request_throughput"] = {"unit": "requests/sec", "avg": len(rs) / span}
    o["request_latency"] = stats([r["request_latency_ns"] for r in rs], "ms", ms)
    o["request_count"] = {"unit": "count", "avg": float(len(rs))}
    o["time_to_first_token"] = stats([r["ttft_ns"] for r in rs], "ms", ms)
    ttst = [r["ttst_ns"] for r in rs if r["ttst_ns"] is not None]
    if ttst:
        o["time_to_second_token"] = stats(ttst, "ms", ms)
    itl = [r["itl_ns"] for r in rs if r["itl_ns"] is not None]
    if itl and sum(itl) != 0:
        o["inter_token_latency"] = stats(itl, "ms", ms)
    if span > 0:
        o["output_token_throughput"] = {"unit": "tokens/sec", "avg": sum(r["osl"] for r in rs) / span}
    tps = [1 / (v / 1e9) for v in itl if v > 0]
    if tps:
        o["output_token_throughput_per_user"] = stats(tps, "tokens/sec/user")
    o["output_sequence_length"] = stats([r["osl"] for r in rs], "tokens")
    o["input_sequence_length"] = stats([r["isl"] for r in rs], "tokens")
    want_s[sid] = o
got_s = gp.get("sessions")
if want_s:
    check(list(gp)[-1] == "sessions", "sessions is not the last key (GenAI-Perf adds it after input_config)")
    check(isinstance(got_s, dict) and list(got_s) == list(want_s),
          f"session ids {list(got_s or {})} != {list(want_s)} (first-appearance order)")
    for sid, o in want_s.items():
        g = (got_s or {}).get(sid)
        if g != o:
            check(False, f"session {sid}: ours {g} != recomputed {o}")
else:
    check(got_s is None, "a sessions block without any session_id in profile_export.json")
N_SESSIONS = len(want_s)

# ---- 3. the CSV, as GenAI-Perf's csv_exporter writes it from these stats ----
import csv
import io

LABEL = {"time_to_first_token": "Time To First Token (ms)", "time_to_second_token": "Time To Second Token (ms)",
         "request_latency": "Request Latency (ms)", "inter_token_latency": "Inter Token Latency (ms)",
         "output_token_throughput_per_user": "Output Token Throughput Per User (tokens/sec/user)",
         "output_sequence_length": "Output Sequence Length (tokens)",
         "input_sequence_length": "Input Sequence Length (tokens)",
         "output_token_throughput": "Output Token Throughput (tokens/sec)",
         "request_throughput": "Request Throughput (per sec)", "request_goodput": "Request Goodput (per sec)",
         "request_count": "Request Count (count)"}
cols = ["avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "p10", "p5", "p1"]
out = io.StringIO()
w = csv.writer(out)
w.writerow(["Metric"] + cols)
req_rows = (["time_to_first_token", "time_to_second_token", "request_latency", "inter_token_latency",
             "output_token_throughput_per_user", "output_sequence_length", "input_sequence_length"]
            if streaming else ["request_latency", "output_sequence_length", "input_sequence_length"])
for k in req_rows:
    w.writerow([LABEL[k]] + ([f"{gp[k][c]:,.2f}" for c in cols] if k in gp else ["N/A"] * 12))
w.writerow([])
w.writerow(["Metric", "Value"])
sys_rows = ["output_token_throughput", "request_throughput"] + (["request_goodput"] if "request_goodput" in gp else [])
for k in sys_rows + ["request_count"]:
    w.writerow([LABEL[k], f"{gp[k]['avg']:,.2f}" if k in gp else "N/A"])
csv_text = open(f"{run}/profile_export_genai_perf.csv", newline="").read()
if "telemetry_stats" in gp:
    csv_text = csv_text[:len(out.getvalue())]
check(csv_text == out.getvalue(), "CSV differs from csv.writer output:\n%r\n%r" % (csv_text, out.getvalue()))

print(f"{len(exp['requests'])} requests, {len(cnt)} counted, {N_SESSIONS} sessions, "
      f"{diverged} known GenAI-Perf parse divergences")
if fails:
    print("\n".join(fails[:20]))
    sys.exit(1)
