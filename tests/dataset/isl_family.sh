#!/usr/bin/env bash
# tests/dataset/isl_family.sh FAMILY — one e2e test: synthetic prompts built
# with the FAMILY tokenizer re-encode to exactly the asked token count
# (seeds x lengths 1..32k, both verify modes, prefixes, stddev; unit binary
# dataset_test_families), and then HF's own tokenizers (npm `tokenizers`, the
# reference that scripts/fetch-tokenizers.sh installs in .cache/node) count
# the same texts with add_special_tokens=False, which is GenAI-Perf's ISL.
# Skips (77) when the family's tokenizer.json is absent.
set -u
fam=$1
cache=${GENPERF_CACHE:-$GP_ROOT/.cache}
json="$cache/tokenizers/$fam/tokenizer.json"
bin="$GP_ROOT/${BUILD:-build}/tests/dataset_test_families"
[ -x "$bin" ] || { echo "dataset_test_families not built"; exit 1; }
[ -f "$json" ] || { echo "skipped: $json absent (run scripts/fetch-tokenizers.sh $fam)"; exit 77; }
dump="$TMPDIR/prompts.jsonl"
out=$(cd "$GP_ROOT" && GP_DATASET_FAMILIES=$fam GP_DATASET_DUMP=$dump timeout 120 "$bin" 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || exit 1
case "$out" in *"tested=1"*) ;; *) echo "$fam: not tested"; exit 1 ;; esac
ref="$cache/node/node_modules/tokenizers"
if ! command -v node >/dev/null || [ ! -d "$ref" ]; then
  echo "note: HF cross-check not run (node or $ref missing); the genperf tokenizer check passed"
  exit 0
fi
node - "$ref" "$json" "$dump" <<'JS' || exit 1
const [ref, json, dump] = process.argv.slice(2);
const { Tokenizer } = require(ref);
const lines = require('fs').readFileSync(dump, 'utf8').split('\n').filter(Boolean).map(JSON.parse);
(async () => {
  const tok = Tokenizer.fromFile(json);
  let bad = 0;
  for (const { text, tokens } of lines) {
    const n = (await tok.encode(text, null, { addSpecialTokens: false })).getIds().length;
    if (n !== tokens) { bad++; console.log(`HF counts ${n}, asked ${tokens}: ${JSON.stringify(text.slice(0, 60))}`); }
  }
  console.log(`HF tokenizers: ${lines.length} prompts, ${bad} with a different count`);
  process.exit(bad ? 1 : 0);
})();
JS
