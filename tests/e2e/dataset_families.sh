#!/usr/bin/env bash
# Exact synthetic ISL with every real tokenizer family that is available
# (.cache/tokenizers/<family>/tokenizer.json, from scripts/fetch-tokenizers.sh).
# Skips (77) visibly when no family could be tested, naming why.
set -u
bin="$GP_ROOT/${BUILD:-build}/tests/dataset_test_families"
[ -x "$bin" ] || { echo "dataset_test_families not built"; exit 1; }
out=$(cd "$GP_ROOT" && GP_DATASET_FAMILIES=1 timeout 300 "$bin" 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || exit 1
line=$(printf '%s\n' "$out" | grep '^families:' | tail -n1)
case "$line" in
  *"tested=0"*)
    why=$(printf '%s\n' "$out" | grep '^skip' | head -n1)
    echo "no tokenizer family testable (${line#families: }); first: ${why:-none found}"
    exit 77 ;;
esac
exit 0
