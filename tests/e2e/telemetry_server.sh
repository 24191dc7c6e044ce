#!/usr/bin/env bash
# Scrape of a server's Prometheus /metrics (vLLM names from a python stub on
# 127.0.0.1), sampled on the same clock; an unreachable URL is reported.
set -eu
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
cat >"$TMPDIR/stub.py" <<'PY'
import http.server, sys, itertools
n = itertools.count()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/metrics":
            self.send_response(404); self.end_headers(); return
        k = next(n)
        body = ("# TYPE vllm:num_requests_running gauge\n"
                f'vllm:num_requests_running{{model_name="m"}} {k}\n'
                'vllm:num_requests_waiting{model_name="m"} 3.0\n'
                'vllm:kv_cache_usage_perc{model_name="m"} 0.5\n'
                f'vllm:prefix_cache_queries_total{{model_name="m"}} {4*k}.0\n'
                f'vllm:prefix_cache_hits_total{{model_name="m"}} {k}.0\n'
                'vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} 1.0\n').encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_address[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
python3 "$TMPDIR/stub.py" "$TMPDIR/port" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/port" ] && break; sleep 0.05; done
port=$(cat "$TMPDIR/port")
export GENPERF_NVML_LIB=/nonexistent/libnvidia-ml.so.1
"$GENPERF" telemetry --duration 0.6 --interval 0.2 --server-metrics-url "http://127.0.0.1:$port/metrics" \
  --output "$TMPDIR/t.jsonl" --json >"$TMPDIR/s.json"
python3 - "$TMPDIR/t.jsonl" "$TMPDIR/s.json" <<'PY'
import json, sys, collections
lines = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
assert s["server"]["status"] == "available", s["server"]
by = collections.defaultdict(list); t = collections.defaultdict(list)
for l in lines:
    if "value" in l:
        by[(l["device"], l["metric"])].append(l["value"]); t[l["device"]].append(l["t_ns"])
assert by[("server", "num_requests_running")] == [1, 2, 3, 4], by
assert by[("server", "num_requests_waiting")] == [3, 3, 3, 3]
assert by[("server", "kv_cache_usage_pct")] == [50, 50, 50, 50]
assert by[("server", "prefix_cache_hit_rate")] == [0.25, 0.25, 0.25]
assert {m for (d, m) in by if d == "server"} == {"num_requests_running", "num_requests_waiting",
                                                 "kv_cache_usage_pct", "prefix_cache_hit_rate"}
# same clock: every server sample shares a tick timestamp with the host samples
assert set(t["server"]) <= set(t["host"])
print("ok")
PY
kill $pid || true; wait $pid 2>/dev/null || true
# unreachable URL: reported, sampling still works
"$GENPERF" telemetry --duration 0.2 --interval 0.1 --server-metrics-url "http://127.0.0.1:$port/metrics" >"$TMPDIR/u.txt"
grep -q '^server telemetry: GET http://127.0.0.1:.* failed' "$TMPDIR/u.txt"
grep -q 'host.load1' "$TMPDIR/u.txt"
echo ok
