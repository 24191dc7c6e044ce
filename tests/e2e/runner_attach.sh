#!/usr/bin/env bash
# Attach mode: benchmark a genperf serve that is already running.
set -eu
cd "$TMPDIR"
"$GENPERF" serve --model sim --port 0 --port-file "$TMPDIR/url" --ttft-ms 1 --itl-ms 1 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$TMPDIR/url" ] && break; sleep 0.1; done
url=$(cat "$TMPDIR/url")
cat > a.yaml <<Y
model: sim
tokenizer: builtin
framework: attach
url: $url
concurrency: 2
isl: 16
osl: 4
requests: 6
artifact_dir: $TMPDIR/arts
Y
"$GENPERF" run a.yaml | tee out.txt
ls "$TMPDIR"/arts/a/c2_isl16_osl4/*/*_genai_perf.json
kill -0 $spid   # attach mode leaves the server alone
