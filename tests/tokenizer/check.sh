#!/usr/bin/env bash
# tests/tokenizer/check.sh FAMILY... — compares `genperf tokenize` with the
# reference (HF tokenizers via node, tests/tokenizer/ref.js) on the corpus:
# corpus.txt (text lines), corpus.jsonl (texts with newlines) and a generated
# code-point sweep; ids without and with special tokens, and decode.
# Expected files are generated on the fly into the cache (never committed).
# Needs: GENPERF, the data from scripts/fetch-tokenizers.sh. Exit 0 = all equal.
set -u
root=${GP_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cache=${GENPERF_CACHE:-$root/.cache}
gp=${GENPERF:-$root/build/genperf}
here=$root/tests/tokenizer
work=${TMPDIR:-/tmp}/gp-tokcheck.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
# jsonl input: corpus.jsonl plus the sweep, in one file (each genperf run loads the tokenizer once)
cp "$here/corpus.jsonl" "$work/jl.jsonl"
sweep=no
if command -v python3 >/dev/null && python3 -c 'import unicodedata,sys; sys.exit(not unicodedata.unidata_version.startswith("14."))'; then
  python3 "$here/gen_sweep.py" "$work/sweep.jsonl" && cat "$work/sweep.jsonl" >>"$work/jl.jsonl" && sweep=yes
else
  echo "note: no Python with Unicode 14 tables; code-point sweep skipped"
fi
inputs=("corpus=$here/corpus.txt" "jl=$work/jl.jsonl:jsonl")
key=$(cat "$here/corpus.txt" "$work/jl.jsonl" "$here/ref.js" | sha256sum | cut -c1-16)
status=0
for fam in "$@"; do
  dir=$cache/tokenizers/$fam
  [[ $fam == v_* ]] && dir=$cache/tokenizer-variants/$fam
  tj=$dir/tokenizer.json
  [ -f "$tj" ] || { echo "FAIL $fam: $tj missing (scripts/fetch-tokenizers.sh)"; status=1; continue; }
  # expected output depends on the inputs, the reference script and the file itself
  fkey=$( (echo "$key"; sha256sum <"$tj") | sha256sum | cut -c1-16)
  exp=$dir/expected-$fkey
  rm -rf $(ls -d "$dir"/expected-* 2>/dev/null | grep -v "expected-$fkey$")
  if [ ! -f "$exp/done" ]; then
    rm -rf "$exp"
    node "$here/ref.js" "$tj" "$exp" "${inputs[@]}" || { echo "FAIL $fam: reference failed"; status=1; continue; }
    touch "$exp/done"
  fi
  for spec in "${inputs[@]}"; do
    name=${spec%%=*}; file=${spec#*=}; mode=()
    [[ $file == *:jsonl ]] && { file=${file%:jsonl}; mode=(--jsonl); }
    [ -f "$exp/$name.ids" ] || continue
    "$gp" tokenize --tokenizer "$tj" "${mode[@]}" <"$file" >"$work/$fam.$name.ids" || { echo "FAIL $fam/$name: genperf failed"; status=1; continue; }
    "$gp" tokenize --tokenizer "$tj" "${mode[@]}" --add-special-tokens <"$file" >"$work/$fam.$name.ids_special"
    "$gp" tokenize --tokenizer "$tj" --decode <"$exp/$name.ids" >"$work/$fam.$name.dec"
    "$gp" tokenize --tokenizer "$tj" --decode --skip-special-tokens <"$exp/$name.ids_special" >"$work/$fam.$name.dec_skip"
    for kind in ids ids_special dec dec_skip; do
      total=$(wc -l <"$exp/$name.$kind")
      bad=$(paste -d'\n' "$exp/$name.$kind" "$work/$fam.$name.$kind" | paste - - -d'\t' | awk -F'\t' '$1!=$2' | wc -l)
      if [ "$bad" -ne 0 ] || [ "$(wc -l <"$work/$fam.$name.$kind")" -ne "$total" ]; then
        echo "FAIL $fam/$name.$kind: $bad of $total lines differ; first:"
        diff <(cat -n "$exp/$name.$kind") <(cat -n "$work/$fam.$name.$kind") | head -6 | cut -c1-300
        status=1
      else
        echo "ok   $fam/$name.$kind: $total/$total lines identical"
      fi
    done
  done
done
exit $status
