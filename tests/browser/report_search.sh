#!/usr/bin/env bash
# Browser test of a real search: genperf serve (batching model, limit known: --max-batch 4) ->
# genperf search --db (one job group) -> genperf ui --db and genperf report: the compare view of the
# search's label draws throughput vs concurrency, TTFT/ITL p50/p99 vs concurrency with the SLO
# lines, and the Pareto view, with the search's limit marked (read back from its
# search_export_genperf.csv); two jobs compared overlay their latency distributions; the list
# page fits a 1280x800 window (document.documentElement.scrollWidth <= 1280). About 10 s.
set -euo pipefail
. "$GP_ROOT/tests/browser/lib.sh"
gp_browser_setup
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing (scripts/deps.sh build)"; exit 77; }
SERVE_PID=
cleanup() { gp_stop_ui; [ -n "$SERVE_PID" ] && { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }; true; }
trap cleanup EXIT

# max-batch 4, 2 ms per decode step, OSL 40: up to concurrency 4 TTFT is a step or two; above it
# requests queue for a whole ~80 ms request, so a 30 ms TTFT SLO puts the limit at 4.
"$GENPERF" serve --quiet --port 0 --port-file "$TMPDIR/serve.url" --model 'org/<b>sim</b>' --decode-step-ms 2 \
  --decode-step-per-seq-us 0 --prefill-us-per-token 0 --max-batch 4 >"$TMPDIR/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do [ -s "$TMPDIR/serve.url" ] && break; sleep 0.05; done
url=$(cat "$TMPDIR/serve.url")
[ -n "$url" ] || { echo "genperf serve did not start"; cat "$TMPDIR/serve.log"; exit 1; }
db="$TMPDIR/search.db"
label='limit <search>'
(cd "$TMPDIR" && "$GENPERF" search -m 'org/<b>sim</b>' -u "$url" --tokenizer builtin --endpoint-type chat --streaming \
  --isl 16 --osl 40 -g time_to_first_token:30 inter_token_latency:10 --goodput-target 0.9 --max-cells 8 \
  --artifact-dir art --db "sqlite://$db" --label "$label" >search.out 2>search.err) ||
  { echo "genperf search failed:"; tail -20 "$TMPDIR/search.err"; exit 1; }
limit=$(tr -d '\r' < "$TMPDIR/art/search_export_genperf.csv" | awk -F, '$1 == "Limit" {print $2}')
cells=$(tr -d '\r' < "$TMPDIR/art/search_export_genperf.csv" | awk -F, '$1 == "Cells" {print $2}')
echo "search: limit $limit after $cells cells"
[ -n "$limit" ] || { echo "the search found no limit:"; cat "$TMPDIR/search.out"; exit 1; }
njobs=$(sqlite3 "$db" "SELECT COUNT(*) FROM jobs WHERE label = '$label'")
[ "$njobs" = "$cells" ] || { echo "want $cells jobs under the search's label, got $njobs"; exit 1; }
ids=$(sqlite3 "$db" "SELECT group_concat(id) FROM (SELECT id FROM jobs ORDER BY id)")
two=$(sqlite3 "$db" "SELECT group_concat(id) FROM (SELECT j.id FROM jobs j JOIN scenarios s ON s.id = j.scenario_id
  WHERE s.concurrency IN (1, $limit) ORDER BY j.id)")

gp_start_ui --db "sqlite://$db"
enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$label")
spec() { # $1 = base, $2 = offline, $3 = compare route of the search, $4 = tag
  cat <<JSON
{"base": "$1", "offline": $2, "search": "$3", "two": "#/compare/ids/$two", "limit": $limit, "jobs": $cells,
 "slo_ttft": 30, "slo_itl": 10, "shots": "$SHOTS", "tag": "$4"}
JSON
}
spec "$UI_URL/" false "#/compare/scenario/$enc" search-ui > "$TMPDIR/spec.json"
CHROMIUM="$CHROMIUM" NODE_PATH="$NODE_DIR/node_modules" timeout 120 node "$GP_ROOT/tests/browser/check_search.js" "$TMPDIR/spec.json"

# The same jobs as one self-contained report (its compare answer is /api/compare?ids=...).
"$GENPERF" report --db "sqlite://$db" --job "$ids" -o "$TMPDIR/search.html" >/dev/null
spec "file://$TMPDIR/search.html" true "#/compare/ids/$ids" search-report > "$TMPDIR/spec-report.json"
CHROMIUM="$CHROMIUM" NODE_PATH="$NODE_DIR/node_modules" timeout 120 node "$GP_ROOT/tests/browser/check_search.js" "$TMPDIR/spec-report.json"
