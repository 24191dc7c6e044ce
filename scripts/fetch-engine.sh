#!/usr/bin/env bash
# Fetches the suite's reference inference engine (llama.cpp's prebuilt CPU
# binding, node-llama-cpp) and writes its model, into .cache/engine/:
#   npm-<lock hash>/node_modules   tests/engine/package-lock.json installed (pinned
#                                  versions, each checked against its sha512)
#   model-<hash>.gguf              tests/engine/make_gguf.py over llama_tok's
#                                  tokenizer.json (scripts/fetch-tokenizers.sh)
# Both names carry a hash of what made them, so worktrees sharing .cache never
# see another version's files. Idempotent; a lock dir serializes concurrent runs.
# Prints "MODULES=<dir>" and "MODEL=<file>" on success (the e2e tests read them).
# Usage: scripts/fetch-engine.sh [CACHE_DIR]   (default: .cache/engine)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.cache/engine}
tok=$root/.cache/tokenizers/llama_tok/tokenizer.json
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

lock_hash=$(cat "$root/tests/engine/package.json" "$root/tests/engine/package-lock.json" | sha256sum | cut -c1-16)
npm_dir=$dest/npm-$lock_hash
if [ ! -f "$tok" ]; then
  echo "fetch-engine: $tok is missing; run scripts/fetch-tokenizers.sh (make fetch-test-data) first" >&2
  exit 1
fi
model_hash=$(cat "$root/tests/engine/make_gguf.py" "$tok" | sha256sum | cut -c1-16)
model=$dest/model-$model_hash.gguf

i=0
until mkdir "$dest/.lock" 2>/dev/null; do
  i=$((i + 1))
  if [ $i -gt 1500 ]; then echo "fetch-engine: $dest/.lock held for 5 minutes; remove it if no fetch is running" >&2; exit 1; fi
  sleep 0.2
done
trap 'rmdir "$dest/.lock" 2>/dev/null || true' EXIT

if [ ! -f "$npm_dir/node_modules/node-llama-cpp/package.json" ]; then
  for c in node npm; do
    command -v $c >/dev/null 2>&1 || { echo "fetch-engine: $c not found; install nodejs and npm (scripts/deps.sh test)" >&2; exit 1; }
  done
  rm -rf "$npm_dir.tmp"
  mkdir -p "$npm_dir.tmp"
  cp "$root/tests/engine/package.json" "$root/tests/engine/package-lock.json" "$npm_dir.tmp/"
  # --omit=optional: node-llama-cpp lists every platform's prebuilt binary as
  # optional (the CUDA ones are hundreds of MB); the CPU one for linux-x64 is our
  # own direct dependency. --ignore-scripts: its postinstall would download and
  # build llama.cpp from source when no prebuilt binary fits; we want to know.
  # `npm install` over the lock, not `npm ci`: npm 11 leaves the other OSes'
  # optional binaries out of the lock it writes and `npm ci` then refuses it as
  # out of sync. Any other change npm would make to the lock fails below.
  if ! (cd "$npm_dir.tmp" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true timeout 300 \
        npm install --omit=optional --ignore-scripts --no-audit --no-fund) >"$dest/npm-ci.log" 2>&1; then
    echo "fetch-engine: npm install of tests/engine/package-lock.json failed (see $dest/npm-ci.log); the npm registry must be reachable" >&2
    exit 1
  fi
  if ! cmp -s "$npm_dir.tmp/package-lock.json" "$root/tests/engine/package-lock.json"; then
    echo "fetch-engine: npm resolved other versions than tests/engine/package-lock.json pins (diff $npm_dir.tmp/package-lock.json); refusing them" >&2
    exit 1
  fi
  rm -rf "$npm_dir"
  mv "$npm_dir.tmp" "$npm_dir"
fi

if [ ! -f "$model" ]; then
  # make_gguf.py writes M.tmp and renames it, so a killed run leaves no model.
  python3 "$root/tests/engine/make_gguf.py" "$tok" "$model"
fi
echo "MODULES=$npm_dir/node_modules"
echo "MODEL=$model"
