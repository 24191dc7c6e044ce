#!/usr/bin/env bash
# genperf profile against a real engine (llama.cpp via node-llama-cpp, the tiny
# model of tests/engine/make_gguf.py with llama_tok's vocabulary; docs/engine.md):
# chat and completions, streaming and not. For every request genperf's ISL is the
# engine's prompt_tokens minus one constant (BOS for completions; BOS plus the
# Llama 2 chat template for chat), its OSL equals the engine's completion_tokens
# and max_tokens, and its TTFT minus the engine's own (first token out - request
# in) is printed (median/p99) and small. Skips (77) when the engine cannot be
# fetched or loaded.
. "$GP_ROOT/tests/e2e/engine_common.inc"
engine_setup
start_engine --sequences 4
cd "$TMPDIR"

# profile_cell NAME ENDPOINT STREAM: 24 requests at concurrency 2, ISL 96, OSL 24.
profile_cell() {
  local name=$1 ep=$2 stream=$3 flags=()
  [ "$stream" = 1 ] && flags=(--streaming --server-usage)
  : >"$ENGINE_LOG"
  "$GENPERF" profile -m engine --url "$URL" --endpoint-type "$ep" "${flags[@]}" --tokenizer "$TOK" \
    --synthetic-input-tokens-mean 96 --synthetic-input-tokens-stddev 16 --output-tokens-mean 24 \
    --concurrency 2 --request-count 24 --warmup-request-count 2 --random-seed 7 \
    --artifact-dir "$TMPDIR/$name" >"$name.out" 2>"$name.err"
  local rc=$?
  [ $rc -eq 0 ] || { cat "$name.err"; fail "$name: profile exit $rc"; }
  D=$(ls -d "$TMPDIR/$name"/*/)
}

# check_counts DIR WANT_OVERHEAD: every measured request ok, prompt_tokens - ISL
# the same for all (WANT_OVERHEAD when given), OSL == completion_tokens == max_tokens.
check_counts() {
  python3 - "$1" "${2:-}" <<'PY' || fail "token counts of $1"
import glob, json, sys
d, want = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(glob.glob(d + "/*_records.jsonl")[0])]
meas = [r for r in recs if not r["warmup"]]
assert len(meas) == 24 and all(r["status"] == "ok" for r in meas), [r["error"] for r in meas if r["status"] != "ok"][:3]
over = {r["server_prompt_tokens"] - r["isl"] for r in meas}
assert len(over) == 1, "prompt_tokens - ISL differs between requests: %s" % sorted(over)
if want:
    assert over == {int(want)}, "overhead %s, want %s" % (over, want)
bad = [(r["request_index"], r["osl"], r["server_completion_tokens"], r["osl_asked"]) for r in meas
       if not r["osl"] == r["server_completion_tokens"] == r["osl_asked"]]
assert not bad, "OSL != completion_tokens != max_tokens (index, osl, completion, asked): %s" % bad[:5]
assert len({r["isl"] for r in meas}) > 1, "ISL stddev 16 gave one length only"
g = json.load(open(glob.glob(d + "/*_genperf.json")[0]))
ta = g["token_accounting"]
assert ta["isl_vs_prompt_tokens"]["disagree"] == 0 and ta["osl_vs_completion_tokens"]["disagree"] == 0, ta
print("%s: %d requests, ISL %d..%d, prompt_tokens - ISL = %d for every one, OSL = completion_tokens = %d"
      % (d.rstrip("/").split("/")[-1], len(meas), min(r["isl"] for r in meas), max(r["isl"] for r in meas),
         over.pop(), meas[0]["osl"]))
PY
}

# check_gap: genperf's TTFT is the engine's plus the loopback and HTTP handling;
# small means under 50 ms at the median on a loaded 2-core host (measured: ~1-5 ms).
check_gap() {
  local line
  line=$(ttft_vs_engine "$1") || fail "ttft_vs_engine $1"
  echo "$line"
  python3 - "$line" <<'PY' || fail "genperf's TTFT is far from the engine's: $line"
import sys
f = sys.argv[1].split()
med, lag = float(f[2]), float(f[f.index("delivery_lag_ms") + 2])
assert 0 <= med < 50 and -1 < lag < 50, (med, lag)
PY
}

profile_cell chat_stream chat 1
check_counts "$D"
check_gap "$D"
profile_cell chat_nostream chat 0
check_counts "$D"
# /v1/completions: the engine adds BOS, the client counts without special tokens.
profile_cell cmpl_stream completions 1
check_counts "$D" 1
check_gap "$D"
profile_cell cmpl_nostream completions 0
check_counts "$D" 1

# The engine's own counters saw every request (4 cells x (24 + 2 warmup)).
n=$(engine_metric vllm:request_success_total)
[ "$n" = 104 ] || fail "engine counted $n successful requests, want 104"
echo ok
