#!/usr/bin/env bash
# genperf telemetry scraping `genperf serve` in each wire flavor (vLLM, SGLang,
# TRT-LLM at /prometheus/metrics) while one slow request is in flight.
set -u
command -v curl >/dev/null || { echo "curl not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
"$GENPERF" serve --help >/dev/null 2>&1 || { echo "genperf serve not available"; exit 77; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
export GENPERF_NVML_LIB=/nonexistent/libnvidia-ml.so.1
for fl in vllm sglang trtllm; do
  rm -f "$TMPDIR/url"
  "$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --flavor $fl --ttft-ms 10 --itl-ms 20 \
    >"$TMPDIR/serve_$fl.log" 2>&1 &
  spid=$!; pids+=($spid)
  for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
  url=$(cat "$TMPDIR/url") || { echo "serve $fl wrote no port file"; exit 1; }
  path=/metrics; [ $fl = trtllm ] && path=/prometheus/metrics
  body='{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":60,"stream":true}'
  curl -sS -N "$url/v1/chat/completions" -H 'Content-Type: application/json' -d "$body" >/dev/null &
  pids+=($!)
  sleep 0.1
  "$GENPERF" telemetry --duration 0.6 --interval 0.2 --server-metrics-url "$url$path" \
    --output "$TMPDIR/t_$fl.jsonl" --json >"$TMPDIR/s_$fl.json" || { echo "telemetry failed ($fl)"; exit 1; }
  python3 - "$TMPDIR/t_$fl.jsonl" "$TMPDIR/s_$fl.json" "$fl" <<'PY' || exit 1
import json, sys, collections
lines = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2])); fl = sys.argv[3]
assert s["server"]["status"] == "available", (fl, s["server"])
by = collections.defaultdict(list)
for l in lines:
    if l.get("device") == "server" and "value" in l:
        by[l["metric"]].append(l["value"])
for m in ("num_requests_running", "num_requests_waiting", "kv_cache_usage_pct"):
    assert len(by[m]) == 4, (fl, m, by)
assert max(by["num_requests_running"]) >= 1, (fl, by["num_requests_running"])
assert all(0 <= v <= 100 for v in by["kv_cache_usage_pct"]), (fl, by)
print(fl, "ok", dict(by))
PY
  kill $spid 2>/dev/null || true
done
echo ok
