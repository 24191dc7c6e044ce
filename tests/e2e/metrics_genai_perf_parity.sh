#!/usr/bin/env bash
# metrics_genai_perf_parity: a real profile against `genperf serve`, then the run
# directory is checked by tests/e2e/metrics_parity.py: GenAI-Perf's own parsing
# of profile_export.json agrees with our per-request records, and every
# statistic in *_genai_perf.json is what NumPy computes from them — for the
# vLLM, SGLang and TensorRT-LLM wire formats. Also checks the CSV layout and
# the records/genperf files of the vLLM run, which has injected faults.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
if "$GENPERF" profile --help 2>&1 | grep -q "not implemented"; then echo "genperf profile not on this branch yet"; exit 77; fi
USAGE='--extra-inputs {"stream_options":{"include_usage":true}}'
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# profile FLAVOR SERVE-ARGS...: one run against a fresh server; sets $run.
# $PARGS (default: streaming chat) shapes the profile command line.
profile() {
  local flavor=$1; shift
  rm -f "$TMPDIR/url"
  "$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --flavor "$flavor" --ttft-ms 15 --itl-ms 3 --seed 5 \
      --quiet "$@" >"$TMPDIR/serve.out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
  local url; url=$(cat "$TMPDIR/url") || fail "no port file ($flavor)"
  # shellcheck disable=SC2086
  "$GENPERF" profile -m parity/model --url "$url" ${PARGS:---endpoint-type chat --streaming $USAGE} --concurrency 4 \
      --request-count 40 --synthetic-input-tokens-mean 30 --output-tokens-mean 12 --tokenizer builtin \
      --artifact-dir "$TMPDIR/art-$flavor" \
      >"$TMPDIR/out" 2>"$TMPDIR/err" || { cat "$TMPDIR/err"; fail "profile exit status ($flavor)"; }
  kill $pid; wait $pid 2>/dev/null; pid=
  run=$(ls -d "$TMPDIR/art-$flavor"/parity_model-openai-*-concurrency4 2>/dev/null | head -n1)
  [ -d "$run" ] || { ls -R "$TMPDIR/art-$flavor"; fail "run dir ($flavor)"; }
  python3 "$GP_ROOT/tests/e2e/metrics_parity.py" "$run" || fail "parity ($flavor)"
}
PARGS="--endpoint-type chat" profile vllm                       # not streamed: one response per request
PARGS="--endpoint-type completions --streaming $USAGE" profile vllm   # text_completion chunks
rm -rf "$TMPDIR"/art-vllm
profile sglang
profile trtllm --fault-rate-stream-error 0.2
# TRT-LLM drops the connection on a mid-stream error: those requests are
# "truncated" failures with their partial timings, the rest are counted
python3 - "$run" <<'PY' || fail "trtllm dropped streams"
import json, sys
recs = [json.loads(l) for l in open(f"{sys.argv[1]}/profile_export_records.jsonl")]
cut = [r for r in recs if r["status"] == "failed"]
assert cut, "expected injected stream drops"
for r in cut:
    assert r["fail_kind"] in ("truncated", "transport") and r["http_status"] == 200 and r["error"], r
    assert r["done"] is False or r["fail_kind"] == "transport", r
PY
profile vllm --reasoning 2 --fault-rate-503 0.1 --fault-rate-stream-error 0.1
for f in inputs.json profile_export.json profile_export_genai_perf.json profile_export_genai_perf.csv \
         profile_export_records.jsonl profile_export_genperf.json; do
  [ -s "$run/$f" ] || fail "missing $f"
done
grep -q "NVIDIA GenAI-Perf | LLM Metrics" "$TMPDIR/out" || fail "console table"

# CSV: CRLF everywhere, GenAI-Perf's row labels in order
python3 - "$run/profile_export_genai_perf.csv" <<'PY' || fail "csv layout"
import sys
b = open(sys.argv[1], "rb").read()
assert b.endswith(b"\r\n") and b.count(b"\n") == b.count(b"\r\n"), "CRLF"
rows = [l.split(",")[0] for l in b.decode().split("\r\n")]
assert rows[:8] == ["Metric", "Time To First Token (ms)", "Time To Second Token (ms)", "Request Latency (ms)",
                    "Inter Token Latency (ms)", "Output Token Throughput Per User (tokens/sec/user)",
                    "Output Sequence Length (tokens)", "Input Sequence Length (tokens)"], rows
assert rows[8:14] == ["", "Metric", "Output Token Throughput (tokens/sec)", "Request Throughput (per sec)",
                      "Request Count (count)", ""], rows
PY
# failures are counted, with their text, and never reach the statistics
python3 - "$run" <<'PY' || fail "failure accounting"
import json, sys
run = sys.argv[1]
g = json.load(open(f"{run}/profile_export_genperf.json"))
recs = [json.loads(l) for l in open(f"{run}/profile_export_records.jsonl")]
failed = [r for r in recs if r["status"] == "failed"]
assert g["requests"]["measured"] == 40 == len(recs), g["requests"]
assert g["requests"]["failed"] == len(failed) and g["requests"]["ok"] + len(failed) == 40
assert sum(g["failures"].values()) == len(failed), g["failures"]
assert all(r["error"] for r in failed), "failed without error text"
for r in failed:
    if r["fail_kind"] == "http":
        assert r["http_status"] == 503 and r["error"].startswith("OpenAI response returns HTTP code 503: {"), r
    else:
        assert r["fail_kind"] == "stream_error" and r["http_status"] == 200, r
ok = [r for r in recs if r["status"] == "ok"]
assert all(r["reasoning_tokens"] == 2 and r["server_completion_tokens"] == 12 for r in ok), ok[0]
pe = json.load(open(f"{run}/profile_export.json"))
assert len(pe["experiments"][0]["requests"]) == len(ok)
gp = json.load(open(f"{run}/profile_export_genai_perf.json"))
assert gp["request_count"]["avg"] == float(len(ok)), (gp["request_count"], len(ok))
print(f"{len(failed)} failed requests accounted: {g['failures']}")
PY
exit 0
