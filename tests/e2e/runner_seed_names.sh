#!/usr/bin/env bash
# A scenario written with the seed's field names (input_sequence_length, output_sequence_length,
# num_requests, random_seed, concurrency, streaming, model) dry-runs to exactly the command of the
# same scenario in short names; giving both spellings of one setting is refused.
set -eu
cd "$TMPDIR"
cat > seed.yaml <<'Y'
name: t
model: Org/M-8B
framework: attach
url: http://127.0.0.1:9
concurrency: [1, 4]
input_sequence_length: 64
output_sequence_length: 16
num_requests: 40
random_seed: 7
streaming: true
artifact_dir: arts
Y
cat > short.yaml <<'Y'
name: t
model: Org/M-8B
framework: attach
url: http://127.0.0.1:9
concurrency: [1, 4]
isl: 64
osl: 16
requests: 40
seed: 7
streaming: true
artifact_dir: arts
Y
a=$("$GENPERF" run seed.yaml --dry-run)
b=$("$GENPERF" run short.yaml --dry-run)
echo "$a"
[ "$a" = "$b" ] || { echo "seed names dry-run differs from short names"; diff <(echo "$a") <(echo "$b"); exit 1; }
grep -q -- "--synthetic-input-tokens-mean 64 --synthetic-input-tokens-stddev 0 --output-tokens-mean 16 --output-tokens-stddev 0 --request-count 40 --num-dataset-entries 40 --concurrency 4 --random-seed 7" <<<"$a"
printf 'isl: 8\n' >> seed.yaml
if "$GENPERF" run seed.yaml --dry-run 2>err.txt; then echo "both spellings accepted"; exit 1; fi
grep -q "'input_sequence_length' and 'isl' are the same setting" err.txt
echo PASS
