#!/usr/bin/env bash
# A scenario's search: block: `genperf run` runs `genperf search` for each (ISL, OSL) cell against the
# attached server (genperf serve's batching model, --max-batch 4: TTFT stays ~2 steps up to concurrency
# 4 and jumps to a whole request above it, so a 30 ms TTFT SLO puts the limit at 4, 3 on a loaded
# machine), with the cell's profile flags; the cells land in the store under the scenario's name.
set -eu
cd "$TMPDIR"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 CLI missing"; exit 77; }
"$GENPERF" serve --model sim --quiet --port 0 --port-file url --decode-step-ms 2 --decode-step-per-seq-us 0 \
  --prefill-us-per-token 0 --max-batch 4 >serve.log 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s url ] && break; sleep 0.05; done
cat > s.yaml <<Y
name: slo-limit
model: sim
tokenizer: builtin
framework: attach
url: $(cat url)
concurrency: 1
isl: 16
osl: 40
requests: 12
artifact_dir: arts
db: $TMPDIR/s.db
search: {slo: {time_to_first_token: 30}, goodput_target: 0.9, max_cells: 8}
Y
"$GENPERF" run s.yaml --dry-run > dry
cat dry
grep -q "^# search 1/1: ISL 16, OSL 40 -> arts/slo-limit/search_isl16_osl40/search_export_genperf.csv" dry
grep -q "^$GENPERF search -m sim .* --synthetic-input-tokens-mean 16 .* --output-tokens-mean 40 .* --request-count 12 .* --artifact-dir arts/slo-limit/search_isl16_osl40 -g time_to_first_token:30 --goodput-target 0.9 --max-cells 8 --db $TMPDIR/s.db --label slo-limit\$" dry
"$GENPERF" run s.yaml > out 2>err || { cat out err; exit 1; }
csv=arts/slo-limit/search_isl16_osl40/search_export_genperf.csv
limit=$(tr -d '\r' < "$csv" | awk -F, '$1 == "Limit" {print $2}')
cells=$(tr -d '\r' < "$csv" | awk -F, '$1 == "Cells" {print $2}')
echo "limit $limit after $cells cells"
[ "$limit" = 4 ] || [ "$limit" = 3 ] || { echo "want the model's limit 4 (3 on a loaded machine)"; cat out; exit 1; }
n=$(sqlite3 s.db "SELECT COUNT(*) FROM jobs WHERE label = 'slo-limit'")
[ "$n" = "$cells" ] || { echo "want $cells jobs labelled slo-limit, got $n"; exit 1; }
grep -q 'results store: .*(label "slo-limit")' out
# search: with another tool is refused
printf 'model: m\nframework: attach\nurl: http://x\nconcurrency: 1\nisl: 1\nosl: 1\ntool: genai-perf\nsearch: {slo: {time_to_first_token: 1}}\n' > bad.yaml
! "$GENPERF" run bad.yaml --dry-run > bad.out 2>&1 && grep -q "only genperf does" bad.out
printf 'model: m\nframework: attach\nurl: http://x\nconcurrency: 1\nisl: 1\nosl: 1\nsearch: {type: tokens}\n' > bad2.yaml
! "$GENPERF" run bad2.yaml --dry-run > bad2.out 2>&1 && grep -q "search.type" bad2.out
echo "runner_search ok"
