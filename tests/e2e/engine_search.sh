#!/usr/bin/env bash
# genperf search with a TTFT SLO against the reference engine (llama.cpp via
# node-llama-cpp with 4 sequences; docs/engine.md). Up to 4 requests in flight
# each gets a sequence at once (TTFT tens of ms); beyond 4, every new request
# waits for a sequence to free, so a 100 ms TTFT SLO met by 90 % of the requests
# finds the engine's sequence count: concurrency 4 (3 accepted on a loaded host;
# the value above the limit must miss). OSL 256 makes that wait long: a request
# takes ~600 ms (ITL ~2.5 ms), so even when the four completions drift apart the
# gap between them (~150 ms) is over the SLO. At OSL 48 (until 2026-12-06) the
# gap was ~25-50 ms on a quiet host, and concurrency 5 or 6 met the SLO (CI found
# limit 6: 18 of 20 within 100 ms). At OSL 160, 3 runs (one beside a parallel
# build) gave 5 at 75-80 % good; at OSL 256, 2 runs gave limit 4 with 5 at 75 %
# and 6 at 55 %, and 2 more passed.
# --search-start 3: the search tries 3, 6, then bisects 4, 5. Started at 1, its
# saturation stop (judged while doubling, on throughput) ended two runs out of
# four on this shared host before any cell missed the SLO.
# Skips (77) when the engine cannot be fetched or loaded.
. "$GP_ROOT/tests/e2e/engine_common.inc"
engine_setup
start_engine --sequences 4
cd "$TMPDIR"

"$GENPERF" search -m engine --url "$URL" --endpoint-type chat --streaming --tokenizer "$TOK" \
  --synthetic-input-tokens-mean 64 --output-tokens-mean 256 --request-count 20 --warmup-request-count 2 \
  -g time_to_first_token:100 --goodput-target 0.9 --search-start 3 --max-cells 8 --max-time 50 >search.out 2>search.err
rc=$?
sed -n '/concurrency search:/,$p' search.out
[ $rc -eq 0 ] || { tail -n 20 search.err; fail "search exit $rc"; }
csv=artifacts/search_export_genperf.csv
[ -f $csv ] || fail "no $csv"
python3 - $csv <<'PY' || fail "search limit"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
cells = [dict(zip(head, r)) for r in rows[1:] if r and r[0].isdigit()]
meta = {r[0]: r[1] for r in rows if len(r) >= 2 and not r[0].isdigit() and r[0] != head[0]}
limit = meta["Limit"]
print("limit %s, stopped %s (%s)" % (limit, meta["Stopped"], meta.get("Reason", "")))
assert limit in ("3", "4"), "limit %r, want 4 (the engine's sequences; 3 on a loaded host)" % limit
meets = {int(c["Value"]): c["Meets Target"] for c in cells}
above = [v for v in meets if v > int(limit)]
assert above and all(meets[v] in ("no", "False", "false", "0") for v in above), meets
PY
echo ok
