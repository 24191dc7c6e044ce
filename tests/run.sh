#!/usr/bin/env bash
# tests/run.sh — runs the suite and prints one closing line "N passed, N failed, N skipped".
#
# Unit tests: every binary in $BUILD/tests/ (each prints "<name>: N passed, N failed").
# End-to-end tests: every tests/e2e/*.sh (and tests/browser/*.sh), one test each;
# exit 0 = pass, 77 = skipped (the script prints why), anything else = fail.
# lib.sh and _*.sh in those folders are sourced helpers and are not run.
# They get GENPERF (the binary), BUILD, and a private TMPDIR.
# Usage: tests/run.sh [pattern ...]   runs the tests whose name contains any
# pattern (all without one); ONLY=unit|e2e restricts the kind.
# `make test-loaded` runs this under scripts/busy-cores.sh (every core kept busy by
# another process): tests assert what the code guarantees, not quiet-host timings.
set -u
BUILD=${BUILD:-build}
patterns=("$@")
# wanted NAME: true when no pattern was given or NAME contains one of them.
wanted() {
  [ ${#patterns[@]} -eq 0 ] && return 0
  local p
  for p in "${patterns[@]}"; do [[ -z "$p" || "$1" == *"$p"* ]] && return 0; done
  return 1
}
root=$(cd "$(dirname "$0")/.." && pwd)
export GENPERF="$root/$BUILD/genperf" BUILD GP_ROOT="$root"
pass=0 fail=0 skip=0 failed_names=()
log_dir="$root/$BUILD/test-logs"
mkdir -p "$log_dir"

if [ "${ONLY:-}" != e2e ]; then
  for t in "$root/$BUILD"/tests/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    name=$(basename "$t")
    wanted "$name" || continue
    out=$(cd "$root" && timeout 600 "$t" 2>"$log_dir/$name.err"); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n1)
    p=$(sed -nE 's/.* ([0-9]+) passed.*/\1/p' <<<"$line"); f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    pass=$((pass + p)); fail=$((fail + f))
    if [ "$f" -ne 0 ]; then
      failed_names+=("$name"); echo "FAIL unit $name (rc=$rc)"; sed 's/^/    /' "$log_dir/$name.err" | tail -n 40
    else
      echo "ok   unit $name ($p)"
    fi
  done
fi

if [ "${ONLY:-}" != unit ]; then
  for t in "$root"/tests/e2e/*.sh "$root"/tests/browser/*.sh; do
    [ -f "$t" ] || continue
    case "$(basename "$t")" in lib.sh|_*) continue ;; esac   # sourced helpers, not tests
    name=$(basename "$(dirname "$t")")/$(basename "$t" .sh)
    wanted "$name" || continue
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gp-e2e.XXXXXX")
    start=$(date +%s)
    (cd "$root" && TMPDIR="$tmp" timeout 900 bash "$t") >"$log_dir/${name//\//_}.log" 2>&1; rc=$?
    secs=$(( $(date +%s) - start ))
    if [ "$rc" -eq 0 ]; then
      pass=$((pass + 1)); echo "ok   $name (${secs}s)"
    elif [ "$rc" -eq 77 ]; then
      skip=$((skip + 1)); echo "skip $name: $(tail -n1 "$log_dir/${name//\//_}.log")"
    else
      fail=$((fail + 1)); failed_names+=("$name"); echo "FAIL $name (rc=$rc, ${secs}s)"
      tail -n 40 "$log_dir/${name//\//_}.log" | sed 's/^/    /'
    fi
    rm -rf "$tmp"
  done
fi

[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
