# Model and LoRA mixes (issue 32): `genperf serve --lora lora-a,lora-b
# --strict-model` serves a base model and two adapters, answering a request
# for an adapter with its name (as vLLM does) and, with --lora-ttft-ms, its
# first token 20 ms later. A profile with -m genperf-sim lora-a and
# --model-weights genperf-sim:0.7,lora-a:0.3 over 200 requests sends about
# 70/30 (seeded: the same seed, the same mix), every response echoes the
# model asked for, *_genperf.json gets "models" (per model requests, share,
# throughput, TTFT/ITL/latency p50/p99; the adapter's TTFT is the slower),
# stderr prints the split; ingested, it becomes v_model_breakdown rows equal
# to the JSON, `genperf results --models` prints them and `genperf ui`'s
# /api/job carries them. A weight for a
# model not among -m is a one-line error; one -m writes no "models" key.
. "$GP_ROOT/tests/e2e/profile_common.inc"
# a serve without --lora would fall back to the stub and skip: fail instead
"$GENPERF" serve --help 2>&1 | grep -q -- "--lora A,B" || fail "genperf serve has no --lora"
start_serve --quiet --ttft-ms 1 --itl-ms 0 --lora lora-a,lora-b --lora-ttft-ms 20 --strict-model
[ "$SERVER" = serve ] || { echo "genperf serve not available"; exit 77; }
cd "$TMPDIR"
common=(--endpoint-type chat --streaming --tokenizer builtin -u "$URL" --isl 12 --osl 4 --concurrency 8)

"$GENPERF" profile -m genperf-sim lora-a --model-weights genperf-sim:0.7,lora-a:0.3 "${common[@]}" \
  --request-count 200 --num-dataset-entries 200 --artifact-dir mix >o1.txt 2>e1.txt ||
  { cat e1.txt; fail "weighted mix: exit $?"; }
RUN=$(find mix -mindepth 1 -maxdepth 1 -type d | head -n1)
[ -n "$RUN" ] || fail "no run directory under mix"
check_artifacts "$RUN" 200
grep -qF "genperf: 2 models (-m); measured requests per model:" e1.txt &&
  grep -q "^genperf:   genperf-sim: [0-9]* requests" e1.txt && grep -q "^genperf:   lora-a: [0-9]* requests" e1.txt ||
  fail "stderr does not print the per-model split: $(cat e1.txt)"
python3 - "$RUN" <<'PY' || fail "weighted mix artifacts"
import json, sys, glob
d = sys.argv[1]
g = json.load(open(glob.glob(d + "/*_genperf.json")[0]))
ms = g["models"]
assert [m["model"] for m in ms] == ["genperf-sim", "lora-a"], ms
assert [m["weight"] for m in ms] == [0.7, 0.3], ms
assert sum(m["requests"] for m in ms) == 200 and all(m["failed"] == 0 for m in ms), ms
# 200 draws at 0.7: the share is 0.7 +- 0.1 (more than 3 standard deviations)
assert abs(ms[0]["share"] - 0.7) <= 0.1 and abs(ms[0]["share"] + ms[1]["share"] - 1) < 1e-9, ms
for m in ms:
    assert m["request_throughput"] > 0 and m["output_token_throughput"] > 0, m
    for k in ("time_to_first_token_ms", "inter_token_latency_ms", "request_latency_ms"):
        assert m[k]["p50"] <= m[k]["p99"], (k, m)
# the adapter is 20 ms slower to its first token: the breakdown must show it
assert ms[1]["time_to_first_token_ms"]["p50"] > ms[0]["time_to_first_token_ms"]["p50"] + 10, ms
# the server echoed the model each request named (LoRA names included)
pe = json.load(open(d + "/profile_export.json"))
n = {"genperf-sim": 0, "lora-a": 0}
for r in pe["experiments"][0]["requests"]:
    asked = json.loads(r["request_inputs"]["payload"])["model"]
    for out in r["response_outputs"]:
        body = out["response"]
        if body.startswith("data: {"):
            assert json.loads(body[6:])["model"] == asked, (asked, body)
    n[asked] += 1
assert [n["genperf-sim"], n["lora-a"]] == [m["requests"] for m in ms], (n, ms)
PY

# the same seed gives the same mix
"$GENPERF" profile -m genperf-sim lora-a --model-weights genperf-sim:0.7,lora-a:0.3 "${common[@]}" \
  --request-count 200 --num-dataset-entries 200 --artifact-dir mix2 >o2.txt 2>e2.txt ||
  { cat e2.txt; fail "second weighted mix: exit $?"; }
[ "$(grep '^genperf:   ' e1.txt | sed 's/, 0 failed//')" = "$(grep '^genperf:   ' e2.txt | sed 's/, 0 failed//')" ] ||
  fail "the same seed gave another mix: $(grep '^genperf:   ' e1.txt e2.txt)"

# the results store: one job_models row per -m, equal to the JSON's figures
"$GENPERF" ingest mix --db "sqlite://$TMPDIR/r.db" >ing.txt 2>&1 || { cat ing.txt; fail "ingest of mix"; }
"$GENPERF" query --db "sqlite://$TMPDIR/r.db" --format json \
  "SELECT * FROM v_model_breakdown ORDER BY model_index" >mods.json || fail "query of v_model_breakdown"
python3 - "$RUN" mods.json <<'PY' || fail "v_model_breakdown rows differ from the JSON"
import json, sys, glob
ms = json.load(open(glob.glob(sys.argv[1] + "/*_genperf.json")[0]))["models"]
rows = json.load(open(sys.argv[2]))
assert len(rows) == 2, rows
for i, (m, r) in enumerate(zip(ms, rows)):
    assert (r["model_index"], r["model"], r["requests"], r["failed"]) == (i, m["model"], m["requests"], m["failed"]), (m, r)
    for k, sub, col in (("weight", None, "weight"), ("share", None, "request_share"),
                        ("request_throughput", None, "request_throughput"),
                        ("output_token_throughput", None, "output_token_throughput"),
                        ("time_to_first_token_ms", "p50", "ttft_p50_ms"), ("time_to_first_token_ms", "p99", "ttft_p99_ms"),
                        ("inter_token_latency_ms", "p50", "itl_p50_ms"), ("inter_token_latency_ms", "p99", "itl_p99_ms"),
                        ("request_latency_ms", "p50", "latency_p50_ms"), ("request_latency_ms", "p99", "latency_p99_ms")):
        want = m[k][sub] if sub else m[k]
        assert abs(r[col] - want) <= 1e-9 * max(1.0, abs(want)), (col, want, r[col])
PY
"$GENPERF" results --db "sqlite://$TMPDIR/r.db" --models --format csv >res.csv || fail "results --models"
[ "$(wc -l <res.csv)" = 3 ] && head -n1 res.csv | grep -q '^job_id,model_index,model,weight,requests,failed,request_share,' &&
  grep -q "^1,1,lora-a,0.3," res.csv || fail "results --models: $(cat res.csv)"
"$GENPERF" results --db "sqlite://$TMPDIR/r.db" --models --endpoints >/dev/null 2>&1 && fail "--models --endpoints accepted"
# the UI's job API carries the same rows (the job page's "Models (N)" table)
"$GENPERF" ui --db "$TMPDIR/r.db" --port 0 --port-file ui.url >ui.log 2>&1 & PIDS+=($!)
wait_file ui.url 10 || fail "ui did not start: $(cat ui.log)"
curl -sf "$(cat ui.url)/api/job?id=1" >job.json || fail "/api/job?id=1"
python3 - job.json mods.json <<'PY' || fail "/api/job models differ from v_model_breakdown"
import json, sys
got, rows = json.load(open(sys.argv[1]))["models"], json.load(open(sys.argv[2]))
assert [(m["model"], m["requests"], m["weight"], m["latency_p99_ms"]) for m in got] == \
       [(r["model"], r["requests"], r["weight"], r["latency_p99_ms"]) for r in rows], (got, rows)
PY

# mistakes are one line naming the fix; one -m writes no breakdown
"$GENPERF" profile -m genperf-sim lora-a --model-weights genperf-sim:0.7,lora-b:0.3 "${common[@]}" >/dev/null 2>e3.txt
rc=$?
[ $rc = 1 ] && [ "$(wc -l <e3.txt)" = 1 ] && grep -qF "'lora-b' is not one of the -m models" e3.txt ||
  fail "weight for a model not among -m: exit $rc, $(cat e3.txt)"
"$GENPERF" profile -m lora-b "${common[@]}" --request-count 8 --artifact-dir one >o4.txt 2>e4.txt ||
  { cat e4.txt; fail "one model: exit $?"; }
grep -q '"models"' one/*/*_genperf.json && fail "one -m wrote a models block"
grep -q "models (-m)" e4.txt && fail "one -m printed a per-model split"
# --strict-model still refuses a name that is neither the model nor an adapter
"$GENPERF" profile -m nope "${common[@]}" --request-count 8 --artifact-dir bad >/dev/null 2>e5.txt
grep -qF "failures by kind: 8 HTTP 404" e5.txt || fail "an unknown model was served: $(cat e5.txt)"
exit 0
