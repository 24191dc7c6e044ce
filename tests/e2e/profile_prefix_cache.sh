# profile_prefix_cache: prefix-cache workloads against `genperf serve --prefix-cache` (the ground
# truth: 16-token blocks, a hit shortens the fixed --ttft-ms in proportion). ISL 512:
#  - --shared-prefix-ratio 0.5: every prompt's first 256 tokens (+ the joining space) are one
#    global prefix, so every request but the first finds 256 of its 512 tokens cached: the hit
#    rate is (N-1)/N x 0.5 by both sources (the server's /metrics counters over the measured
#    window and usage.cached_tokens), written as "prefix_cache" in *_genperf.json and a console
#    line naming each figure's source and window;
#  - --cache-bust: a unique salt first, so nothing is cached (0 %) and the TTFT is the whole
#    --ttft-ms, well above the shared-prefix run's;
#  - issue 38 item 7, the sglang flavour (sglang:cached_tokens_total / prompt_tokens_total
#    counters beside the lifetime sglang:cache_hit_rate gauge): a shared-prefix run after a
#    2-request warmup counts exactly the measured requests' tokens, as usage does (the window
#    starts after the warmup), and a --cache-bust run after it prints the counters'
#    0.0 % over its own window, not the gauge's lifetime figure (which the summary keeps, > 0);
#    TRT-LLM's gauge, its only figure, is printed as a gauge with its scrape window;
#  - both keep the ISL exact; the session pool runs; conflicting flags are refused.
. "$GP_ROOT/tests/e2e/profile_common.inc"
start_serve --quiet --prefix-cache --enable-prompt-tokens-details --ttft-ms 40 --itl-ms 1
[ "$SERVER" = serve ] || { echo "genperf serve did not start"; exit 77; }

run() { # name args...
  local name=$1; shift
  "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$URL" --endpoint-type chat --streaming \
      --synthetic-input-tokens-mean 512 --output-tokens-mean 4 --genperf-output-tokens-deterministic \
      --server-usage --warmup-request-count 0 --artifact-dir "$TMPDIR/art.$name" "$@" >"$TMPDIR/$name.out" 2>&1
  check_rc $? 0
  GPJ=$(find "$TMPDIR/art.$name" -name '*_genperf.json' | head -n1)
  GAJ=$(find "$TMPDIR/art.$name" -name '*_genai_perf.json' | head -n1)
  [ -n "$GPJ" ] && [ -n "$GAJ" ] || { cat "$TMPDIR/$name.out"; fail "$name: no artifacts"; }
}

N=24
run shared --concurrency 2 --request-count $N --shared-prefix-ratio 0.5
python3 - "$GPJ" "$GAJ" $N <<'PY' || exit 1
import json, sys
g, a, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
pc = g.get("prefix_cache")
want = (n - 1) / n * 0.5
bad = []
if not pc: bad.append("no prefix_cache block")
else:
    if pc["hit_rate_source"] != "server_counters": bad.append("source %r" % pc["hit_rate_source"])
    if pc["hit_rate_window"] != "measured": bad.append("window %r" % pc["hit_rate_window"])
    if pc["server_metrics"]["window"] != "measured": bad.append("server window %r" % pc["server_metrics"]["window"])
    for what, v in (("block", pc["hit_rate"]), ("server", pc["server_metrics"]["hit_rate"]),
                    ("usage", pc["usage"]["hit_rate"])):
        if v is None or abs(v - want) > 0.02: bad.append("%s hit rate %r, want %.4f" % (what, v, want))
    if pc["usage"]["requests"] != n: bad.append("usage requests %r" % pc["usage"]["requests"])
    if pc["server_metrics"]["queries"] != 512 * n: bad.append("server queries %r" % pc["server_metrics"]["queries"])
isl = a["input_sequence_length"]
if isl["min"] != 512 or isl["max"] != 512: bad.append("ISL %r..%r, want 512" % (isl["min"], isl["max"]))
print("shared: hit rate %r, ttft avg %.1f ms" % (pc and pc["hit_rate"], a["time_to_first_token"]["avg"]))
if bad: print("FAIL " + "; ".join(bad)); sys.exit(1)
PY
grep -q '^Prefix cache hit rate: 47\.9% (server counters, measured window); 47\.9% (usage.cached_tokens, 24 measured requests)$' \
    "$TMPDIR/shared.out" || { cat "$TMPDIR/shared.out"; fail "shared: no console hit-rate line"; }
TTFT_SHARED=$(json_get "$GAJ" 'd["time_to_first_token"]["avg"]')

run bust --concurrency 2 --request-count $N --cache-bust
python3 - "$GPJ" "$GAJ" "$TTFT_SHARED" <<'PY' || exit 1
import json, sys
g, a, shared = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
pc, bad = g.get("prefix_cache"), []
# vLLM (serving_chat.py at commit 99c5632f) leaves prompt_tokens_details out on a miss: no request says anything, so no usage rate
if not pc or pc["hit_rate"] != 0 or pc["usage"] is not None: bad.append("hit rate not 0: %r" % pc)
isl = a["input_sequence_length"]
if isl["min"] != 512 or isl["max"] != 512: bad.append("ISL %r..%r, want 512" % (isl["min"], isl["max"]))
ttft = a["time_to_first_token"]["avg"]
print("bust: ttft avg %.1f ms (shared prefix: %.1f ms)" % (ttft, shared))
# ground truth: 40 ms cold, 40 x (512 - 256) / 512 = 20 ms for a hit
if not (ttft >= 38 and ttft > shared * 1.4): bad.append("TTFT %.1f ms not above the shared run's %.1f ms" % (ttft, shared))
if bad: print("FAIL " + "; ".join(bad)); sys.exit(1)
PY

# the sglang flavour: counters over the measured window, the gauge only kept as a gauge
stop_serve
start_serve --quiet --prefix-cache --ttft-ms 40 --itl-ms 1 --flavor sglang
run warm --concurrency 2 --request-count $N --shared-prefix-ratio 0.5 --warmup-request-count 2
python3 - "$GPJ" $N <<'PY' || exit 1
import json, sys
g, n = json.load(open(sys.argv[1])), int(sys.argv[2])
pc, bad = g.get("prefix_cache"), []
sm = pc and pc["server_metrics"]
# the window starts after the warmup: exactly the measured requests' tokens. Each finds the shared
# 256 cached; the first two repeat the warmup's two prompts (the measured phase restarts at entry 0),
# cached whole but the last token (511). The server's counters and usage count the same tokens.
want = 256 * (n - 2) + 2 * 511
if not sm or sm["kind"] != "counters" or sm["window"] != "measured": bad.append("server part %r" % sm)
elif (sm["queries"], sm["hits"]) != (512 * n, want): bad.append("queries/hits %r/%r, want %r/%r" % (sm["queries"], sm["hits"], 512 * n, want))
elif (pc["usage"]["prompt_tokens"], pc["usage"]["cached_tokens"]) != (512 * n, want): bad.append("usage %r" % pc["usage"])
elif pc["hit_rate"] != want / (512 * n) or pc["hit_rate_source"] != "server_counters": bad.append("block %r" % pc)
if bad: print("FAIL warm: " + "; ".join(bad)); sys.exit(1)
PY
grep -q '^Prefix cache hit rate: 54\.2% (server counters, measured window); 54\.2% (usage.cached_tokens, 24 measured requests)$' \
    "$TMPDIR/warm.out" || { cat "$TMPDIR/warm.out"; fail "warm: console hit-rate line"; }
run bust2 --concurrency 2 --request-count $N --cache-bust
python3 - "$GPJ" $N <<'PY' || exit 1
import json, sys
g, n = json.load(open(sys.argv[1])), int(sys.argv[2])
pc, bad = g.get("prefix_cache"), []
sm = pc and pc["server_metrics"]
if not sm or sm["kind"] != "counters" or (sm["queries"], sm["hits"], sm["hit_rate"]) != (512 * n, 0, 0):
    bad.append("server part %r" % sm)
elif pc["hit_rate"] != 0 or pc["hit_rate_source"] != "server_counters" or pc["usage"]["hit_rate"] != 0:
    bad.append("block %r" % pc)
# the lifetime gauge still says the earlier run's hits: kept, as a gauge, never as this run's rate
gauge = g["telemetry"]["server"]["sources"][0].get("prefix_cache_gauge")
if not gauge or gauge["gauge"] != "sglang:cache_hit_rate" or not gauge["mean"] > 0: bad.append("gauge %r" % gauge)
if bad: print("FAIL bust2: " + "; ".join(bad)); sys.exit(1)
PY
grep -q '^Prefix cache hit rate: 0\.0% (server counters, measured window); 0\.0% (usage.cached_tokens, 24 measured requests)$' \
    "$TMPDIR/bust2.out" || { cat "$TMPDIR/bust2.out"; fail "bust2: console hit-rate line"; }

# TRT-LLM has only a gauge (its Prometheus text at /prometheus/metrics): kept, said to be a gauge
# with its scrape window, never the block's figure while usage has one
stop_serve
start_serve --quiet --prefix-cache --ttft-ms 40 --itl-ms 1 --flavor trtllm
run trt --concurrency 2 --request-count $N --shared-prefix-ratio 0.5 --server-metrics-urls "$URL/prometheus/metrics"
python3 - "$GPJ" <<'PY' || exit 1
import json, sys
pc = json.load(open(sys.argv[1]))["prefix_cache"]
sm = pc["server_metrics"]
assert sm["kind"] == "gauge" and sm["gauge"] == "trtllm_kv_cache_hit_rate" and sm["scrape_window"] == "measured", sm
assert (pc["hit_rate_source"], pc["hit_rate_window"]) == ("usage", "requests"), pc
assert pc["hit_rate"] == pc["usage"]["hit_rate"] == 23 / 24 * 0.5, pc
PY
grep -q '^Prefix cache hit rate: [0-9.]*% (server gauge trtllm_kv_cache_hit_rate over the server.s own span, mean of [0-9]* scrapes in the measured window: not this run.s rate); 47\.9% (usage.cached_tokens, 24 measured requests)$' \
    "$TMPDIR/trt.out" || { cat "$TMPDIR/trt.out"; fail "trt: console hit-rate line"; }

# session pool: one prefix per session (and the history on top): some hits, exact first turns
run session --session-concurrency 2 --num-sessions 3 --session-turns-mean 2 --shared-prefix-ratio 0.25 \
    --shared-prefix-pool session
H=$(json_get "$GPJ" 'd["prefix_cache"]["usage"]["hit_rate"]')
python3 -c "import sys; sys.exit(0 if float('$H') > 0.2 else 1)" || fail "session pool: hit rate $H"

# refused combinations name the flag and the fix
for args in "--shared-prefix-pool session --shared-prefix-ratio 0.5" "--shared-prefix-ratio 1.5" \
            "--shared-prefix-ratio 0.5 --num-prefix-prompts 2" "--cache-bust --input-file payload:x.jsonl"; do
  # shellcheck disable=SC2086
  "$GENPERF" profile -m m --tokenizer builtin -u "$URL" $args --artifact-dir "$TMPDIR/art.bad" \
      >"$TMPDIR/bad.out" 2>&1 && fail "accepted: $args"
  grep -q -- "--shared-prefix\|--cache-bust" "$TMPDIR/bad.out" || { cat "$TMPDIR/bad.out"; fail "no reason for: $args"; }
done
echo "ok"
