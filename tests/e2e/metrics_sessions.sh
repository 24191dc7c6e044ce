#!/usr/bin/env bash
# metrics_sessions: a --num-sessions run against `genperf serve` writes GenAI-Perf's
# "sessions" block into *_genai_perf.json (llm_profile_data_parser.py groups requests by
# their request_inputs session_id, json_exporter.py adds the block after input_config):
# one entry per session, each with GenAI-Perf's metric keys, every value what
# tests/e2e/metrics_parity.py recomputes from profile_export.json + records.jsonl
# (which also checks that a plain run has no such block), and the session flags in
# input_config.input.sessions (create_config.py).
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
fail() { echo "FAIL: $*"; exit 1; }
rm -f "$TMPDIR/url"
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 8 --itl-ms 2 --seed 7 --quiet >"$TMPDIR/serve.out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url") || fail "no port file"
timeout 60 "$GENPERF" profile -m sess/model --url "$url" --endpoint-type chat --streaming --tokenizer builtin \
    --num-sessions 3 --session-concurrency 2 --session-turns-mean 4 --session-turn-delay-mean 20 \
    --synthetic-input-tokens-mean 20 --output-tokens-mean 6 --artifact-dir "$TMPDIR/art" \
    >"$TMPDIR/out" 2>"$TMPDIR/err" || { cat "$TMPDIR/err"; fail "profile exit status"; }
run=$(ls -d "$TMPDIR"/art/*session_concurrency2 2>/dev/null | head -n1)
[ -d "$run" ] || { ls -R "$TMPDIR/art"; fail "run dir"; }
python3 "$GP_ROOT/tests/e2e/metrics_parity.py" "$run" || fail "parity"
python3 - "$run/profile_export_genai_perf.json" <<'PY' || fail "sessions block"
import json, sys
gp = json.load(open(sys.argv[1]))
s = gp.get("sessions")
assert isinstance(s, dict) and len(s) == 3, f"3 sessions expected, got {s and list(s)}"
keys = ["request_throughput", "request_latency", "request_count", "time_to_first_token", "time_to_second_token",
        "inter_token_latency", "output_token_throughput", "output_token_throughput_per_user",
        "output_sequence_length", "input_sequence_length"]
for sid, st in s.items():
    assert list(st) == keys, (sid, list(st))
    assert st["request_count"] == {"unit": "count", "avg": 4.0}, (sid, st["request_count"])
    assert list(st["request_latency"]) == ["unit", "avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95",
                                           "p99", "min", "max", "std"], list(st["request_latency"])
assert sum(v["request_count"]["avg"] for v in s.values()) == gp["request_count"]["avg"] == 12
ses = gp["input_config"]["input"]["sessions"]
assert ses == {"num": 3, "turns": {"mean": 4, "stddev": 0}, "turn_delay": {"mean": 20, "ratio": 1.0, "stddev": 0}}, ses
print("sessions:", list(s))
PY
