#!/usr/bin/env bash
# tests/golden/make_golden.sh OUTDIR — profiles fixed seeds against `genperf serve --zero-delay` and
# writes the normalized artifacts (tests/golden/normalize.py) of each case under OUTDIR/<case>/.
# Used by tests/e2e/golden_artifacts.sh (compare) and, once, to write tests/golden/<case>/ (the set
# committed before the code-health refactor: regenerate only for an intended output change).
set -u
out=$1
: "${GENPERF:?GENPERF must name the genperf binary}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX")
spid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
"$GENPERF" serve --quiet --zero-delay --port 0 --port-file "$tmp/url" >/dev/null 2>&1 &
spid=$!
for _ in $(seq 200); do [ -s "$tmp/url" ] && break; sleep 0.05; done
[ -s "$tmp/url" ] || { echo "genperf serve did not start"; exit 1; }
url=$(cat "$tmp/url")
run_case() { # name args...
  local name=$1; shift
  (cd "$tmp" && COLUMNS=200 "$GENPERF" profile -m genperf-sim --tokenizer builtin -u "$url" --random-seed 0 \
    --concurrency 1 --artifact-dir "art.$name" "$@" >"$tmp/$name.console" 2>&1) ||
    { echo "profile $name failed:"; cat "$tmp/$name.console"; exit 1; }
  local d; d=$(ls -d "$tmp/art.$name"/*/)
  cp "$tmp/$name.console" "$d/console.txt"
  python3 "$here/normalize.py" "$d" "$out/$name"
}
run_case chat_stream --endpoint-type chat --streaming --synthetic-input-tokens-mean 32 \
  --synthetic-input-tokens-stddev 4 --output-tokens-mean 8 --genperf-output-tokens-deterministic --request-count 8
run_case completions --endpoint-type completions --synthetic-input-tokens-mean 24 \
  --output-tokens-mean 6 --request-count 5 --extra-inputs temperature:0.5 --warmup-request-count 2
