#!/usr/bin/env bash
# Bench — the cost of a fresh page on this host (bench/page_cost.c explains
# why it matters for the client, mpirun and post-processing profiles).
set -eu
out=${TMPDIR:-/tmp}/gp_page_cost.$$
cc -O2 -std=c11 -Wall -Wextra -Werror -o "$out" "$(dirname "$0")/page_cost.c"
"$out"
rm -f "$out"
