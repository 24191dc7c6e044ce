#!/usr/bin/env bash
# docs_flags: every flag spelling `genperf profile --help` prints (the
# parser's own table, src/profile/profile_table.c) has a row in one of
# docs/profile.md's flag tables, named in the row's first cell, so a flag
# added to the parser without its docs row fails here (issue 28 item 6).
# A first cell may shorten siblings: `--image-width-mean/-stddev` names
# --image-width-stddev too. The help's usage line is checked as well: it
# must not claim fewer endpoint types than the table accepts.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
help=$("$GENPERF" profile --help) || fail "genperf profile --help: exit $?"
case "$help" in
  *"{chat,completions}"*) fail "the usage line says {chat,completions}; the parser accepts more types" ;;
esac
GP_HELP=$help python3 - "$GP_ROOT/docs/profile.md" <<'PY' || exit 1
import os, re, sys
flags = []
for line in os.environ["GP_HELP"].splitlines():
    if line.startswith("  -"):
        flags += line.split()[0].split(",")
if len(flags) < 50:
    print("FAIL: only %d flags read from --help" % len(flags)); sys.exit(1)
named = set()
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.startswith("|"):
        continue
    cell = re.split(r"(?<!\\)\|", line)[1]  # `a\|b` is one cell
    for tok in re.findall(r"`([^`]*)`", cell):
        for m in re.finditer(r"(?<![\w-])(--?[A-Za-z][\w-]*)((?:/-[\w-]+)*)", tok):
            named.add(m.group(1))
            stem = m.group(1).rsplit("-", 1)[0]
            for suf in m.group(2).split("/-")[1:]:
                named.add(stem + "-" + suf)
missing = [f for f in flags if f not in named]
if missing:
    print("FAIL: docs/profile.md has no flag-table row naming: " + " ".join(missing)); sys.exit(1)
print("ok: %d flag spellings, each named by a docs/profile.md table row" % len(flags))
PY
