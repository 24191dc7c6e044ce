#!/usr/bin/env bash
# Energy and cost (issue 32 item 4): a profile run against genperf serve with
# the fake NVML (2 GPUs) and --gpu-hour-cost. The fake's energy counter
# (1e6 + 500 k J at its k-th reading) is the ground truth: "energy" in
# *_genperf.json is last - first reading per GPU, source "counter"; without the
# counter (GENPERF_FAKE_NVML_NO_ENERGY) the power samples are integrated,
# source "power_integral". "cost" follows the documented formula. A run with
# neither GPU telemetry nor the flag has neither block.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
"$GENPERF" serve --help >/dev/null 2>&1 || { echo "genperf serve not available"; exit 77; }
lib="$GP_ROOT/${BUILD:-build}/tests-lib/libfake_nvml.so"
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
"$GENPERF" serve --port 0 --port-file "$TMPDIR/url" --ttft-ms 20 --itl-ms 5 >"$TMPDIR/serve.log" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true; wait $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/url") || { echo "no port file"; exit 1; }
prof() { # <art dir> [extra flags...]
  local art=$1; shift
  "$GENPERF" profile -m m --url "${url#http://}" --endpoint-type chat --streaming --concurrency 2 \
    --request-count 12 --synthetic-input-tokens-mean 20 --output-tokens-mean 30 --tokenizer builtin \
    --telemetry-interval 0.1 --artifact-dir "$TMPDIR/$art" "$@" >"$TMPDIR/$art.log" 2>&1 \
    || { echo "profile $art failed"; tail -20 "$TMPDIR/$art.log"; exit 1; }
}
check() { # <art dir> <expected source> <cost>
  python3 - "$TMPDIR/$1" "$2" "$3" <<'PY' || exit 1
import json, sys, glob, collections
art, source, cost = sys.argv[1], sys.argv[2], float(sys.argv[3])
g = json.load(open(glob.glob(art + "/**/*_genperf.json", recursive=True)[0]))
lines = [json.loads(l) for l in open(glob.glob(art + "/**/*_telemetry.jsonl", recursive=True)[0])]
recs = [json.loads(l) for l in open(glob.glob(art + "/**/*_records.jsonl", recursive=True)[0])]
by = collections.defaultdict(list)
for l in lines:
    if "value" in l and l["device"].startswith("gpu"):
        by[(l["device"], l["metric"])].append((l["t_ns"], l["value"]))
e = g["energy"]
assert e["source"] == source and e["gpu_count"] == 2, e
tot = 0
for d in (0, 1):
    ge = e["gpus"][d]
    p = by[("gpu%d" % d, "power_w")]
    if source == "counter":
        en = by[("gpu%d" % d, "energy_j")]
        assert not by[("gpu%d" % d, "energy_j")] or en[0][1] == 1e6, en[:2]
        want = 500.0 * (len(en) - 1)           # the fake's counter: +500 J a reading
        secs = (en[-1][0] - en[0][0]) / 1e9
    else:
        assert not by[("gpu%d" % d, "energy_j")], "the fake still answered the energy counter"
        want = sum((a[1] + b[1]) / 2 * (b[0] - a[0]) / 1e9 for a, b in zip(p, p[1:]))
        secs = (p[-1][0] - p[0][0]) / 1e9
    assert len(p) >= 3, p
    assert ge["gpu"] == d and ge["source"] == source, ge
    assert abs(ge["joules"] - want) < 1e-6 * max(1, want), (ge, want)
    assert abs(ge["seconds"] - secs) < 1e-9 and abs(ge["avg_watts"] - want / secs) < 1e-6, (ge, secs)
    assert ge["peak_watts"] == max(v for _, v in p) == 100 + 50 * d + 10 * (len(p) - 1), (ge, p[-1])
    tot += want
assert abs(e["joules"] - tot) < 1e-6 * tot, (e, tot)
out = g["energy"]["output_tokens"]
assert out > 0 and abs(e["joules_per_output_token"] - tot / out) < 1e-9 * tot / out, e
assert abs(e["output_tokens_per_joule"] - out / tot) < 1e-9, e
if cost:
    c = g["cost"]
    w = g["window"]["duration_s"]
    usd = w / 3600 * cost * 2
    assert c["gpu_count"] == 2 and not c["gpu_count_assumed"] and c["usd_per_gpu_hour"] == cost, c
    assert c["output_tokens"] == out and c["input_tokens"] > 0, c
    assert abs(c["usd_per_million_output_tokens"] - usd / out * 1e6) < 1e-9 * c["usd_per_million_output_tokens"], (c, usd)
    assert abs(c["usd_per_million_input_tokens"] - usd / c["input_tokens"] * 1e6) < 1e-9 * c["usd_per_million_input_tokens"], c
else:
    assert "cost" not in g, g["cost"]
print(source, "ok:", round(tot, 3), "J,", out, "output tokens")
PY
}
GENPERF_NVML_LIB="$lib" GENPERF_FAKE_NVML_DEVICES=2 prof counter --gpu-hour-cost 2.5
check counter counter 2.5
grep -q '^genperf: energy: .* J on 2 GPUs (counter), avg .* W, peak .* W per GPU; .* J per output token' "$TMPDIR/counter.log" \
  || { echo "no energy console line"; cat "$TMPDIR/counter.log"; exit 1; }
grep -q '^genperf: cost: \$.* per million output tokens, \$.* per million input tokens (2 GPUs at \$2.5 per GPU-hour' \
  "$TMPDIR/counter.log" || { echo "no cost console line"; cat "$TMPDIR/counter.log"; exit 1; }
GENPERF_NVML_LIB="$lib" GENPERF_FAKE_NVML_DEVICES=2 GENPERF_FAKE_NVML_NO_ENERGY=1 prof integral
check integral power_integral 0
# no GPU: no "energy"; the cost assumes one GPU and says so
GENPERF_NVML_LIB="$TMPDIR/none.so" prof nogpu --gpu-hour-cost 3
python3 - "$TMPDIR/nogpu" <<'PY' || exit 1
import json, sys, glob
g = json.load(open(glob.glob(sys.argv[1] + "/**/*_genperf.json", recursive=True)[0]))
assert "energy" not in g and g["cost"]["gpu_count"] == 1 and g["cost"]["gpu_count_assumed"] is True, g.get("cost")
PY
grep -q 'cost: .*(1 GPU, assumed: no GPU telemetry at \$3 per GPU-hour' "$TMPDIR/nogpu.log" || { cat "$TMPDIR/nogpu.log"; exit 1; }
GENPERF_NVML_LIB="$TMPDIR/none.so" prof plain
python3 - "$TMPDIR/plain" <<'PY' || exit 1
import json, sys, glob
g = json.load(open(glob.glob(sys.argv[1] + "/**/*_genperf.json", recursive=True)[0]))
assert "energy" not in g and "cost" not in g, list(g)
PY
if grep -q 'genperf: energy\|genperf: cost' "$TMPDIR/plain.log"; then echo "energy/cost line without telemetry"; exit 1; fi
# the store: metric rows, v_energy_cost (one row per job that has figures) and `genperf results --energy`
"$GENPERF" ingest "$TMPDIR/counter" "$TMPDIR/plain" --db "$TMPDIR/r.db" >"$TMPDIR/ingest.log" 2>&1 \
  || { echo "ingest failed"; cat "$TMPDIR/ingest.log"; exit 1; }
"$GENPERF" query --db "$TMPDIR/r.db" --format json "SELECT * FROM v_energy_cost" >"$TMPDIR/q.json" || exit 1
"$GENPERF" results --db "$TMPDIR/r.db" --energy --format json >"$TMPDIR/res.json" || exit 1
"$GENPERF" results --db "$TMPDIR/r.db" --energy >"$TMPDIR/res.txt" || exit 1
python3 - "$TMPDIR/counter" "$TMPDIR/q.json" "$TMPDIR/res.json" <<'PY' || exit 1
import json, sys, glob
g = json.load(open(glob.glob(sys.argv[1] + "/**/*_genperf.json", recursive=True)[0]))
rows = json.load(open(sys.argv[2]))
assert len(rows) == 1, rows            # the plain job has no figures
r = rows[0]
e, c = g["energy"], g["cost"]
close = lambda a, b: abs(float(a) - b) <= 1e-9 * abs(b)
assert close(r["energy_j"], e["joules"]) and close(r["power_avg_w"], e["avg_watts"]), (r, e)
assert close(r["power_peak_w"], max(x["peak_watts"] for x in e["gpus"])), r
assert close(r["joules_per_output_token"], e["joules_per_output_token"]), r
assert close(r["output_tokens_per_joule"], e["output_tokens_per_joule"]), r
assert close(r["usd_per_million_output_tokens"], c["usd_per_million_output_tokens"]), r
assert close(r["usd_per_million_input_tokens"], c["usd_per_million_input_tokens"]) and close(r["usd_per_gpu_hour"], 2.5), r
res = json.load(open(sys.argv[3]))
assert len(res) == 1 and close(res[0]["output_tokens_per_joule"], e["output_tokens_per_joule"]), res
print("store ok")
PY
grep -q 'usd_per_million_output_tokens' "$TMPDIR/res.txt" || { cat "$TMPDIR/res.txt"; exit 1; }
# a price that is no price is refused, naming the flag
if "$GENPERF" profile -m m --url "${url#http://}" --gpu-hour-cost -1 >/dev/null 2>"$TMPDIR/bad.txt"; then exit 1; fi
grep -q -- '--gpu-hour-cost -1: must be the positive price' "$TMPDIR/bad.txt" || { cat "$TMPDIR/bad.txt"; exit 1; }
echo ok
