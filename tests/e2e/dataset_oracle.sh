#!/usr/bin/env bash
# Exact ISL as HuggingFace itself counts it: prompts generated with each real
# tokenizer family are re-counted by HF's tokenizers (npm `tokenizers`, the
# reference that scripts/fetch-tokenizers.sh installs into .cache/node) with
# add_special_tokens=False, which is how GenAI-Perf computes ISL.
# Skips (77) when node, the reference or every tokenizer family is missing.
set -u
cache=${GENPERF_CACHE:-$GP_ROOT/.cache}
gen="$GP_ROOT/${BUILD:-build}/bench/prompt_gen"
ref="$cache/node/node_modules/tokenizers"
[ -x "$gen" ] || { echo "prompt_gen not built"; exit 1; }
command -v node >/dev/null || { echo "node not installed"; exit 77; }
[ -d "$ref" ] || { echo "HF reference not installed at $ref (run scripts/fetch-tokenizers.sh)"; exit 77; }
cd "$TMPDIR"
cat > count.js <<'JS'
const { Tokenizer } = require(process.argv[2]);
const fs = require('fs');
(async () => {
  const tok = Tokenizer.fromFile(process.argv[3]);
  const want = Number(process.argv[5]);
  const data = JSON.parse(fs.readFileSync(process.argv[4], 'utf8')).data;
  let bad = 0;
  for (const e of data) {
    const text = e.payload[0].messages.map(m => m.content).join(' ');
    const n = (await tok.encode(text, null, { addSpecialTokens: false })).getIds().length;
    if (n !== want) { bad++; console.log(`count ${n} != ${want}: ${JSON.stringify(text.slice(0, 80))}`); }
  }
  console.log(`${process.argv[3]}: ${data.length} prompts of ${want} tokens, ${bad} off`);
  process.exit(bad ? 1 : 0);
})();
JS
tested=0 why=""
for f in "$cache"/tokenizers/*/tokenizer.json; do
  [ -f "$f" ] || continue
  fam=$(basename "$(dirname "$f")")
  for spec in "1 0" "7 1" "550 2" "4096 3"; do
    set -- $spec
    if ! out=$("$gen" --tokenizer "$f" -n 8 --isl "$1" --seed "$2" --inputs "$fam.json" 2>&1); then
      case "$out" in
        *"only --tokenizer builtin"*|*"not supported"*) why="$fam: $out"; continue 2 ;;
      esac
      echo "$out"; exit 1
    fi
    node count.js "$ref" "$f" "$fam.json" "$1" || exit 1
  done
  tested=$((tested + 1))
done
[ $tested -gt 0 ] || { echo "no tokenizer family testable: ${why:-no .cache/tokenizers/*/tokenizer.json}"; exit 77; }
exit 0
