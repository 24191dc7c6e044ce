#!/usr/bin/env bash
# docs_flags: every flag spelling `genperf profile --help` prints (the
# parser's own table, src/profile/profile_table.c) has a row in one of
# docs/profile.md's flag tables, named in the row's first cell, so a flag
# added to the parser without its docs row fails here (issue 28 item 6).
# A first cell may shorten siblings: `--image-width-mean/-stddev` names
# --image-width-stddev too. The help's usage line is checked as well: it
# must not claim fewer endpoint types than the table accepts.
# Issue 43 item 3: the row must be in one of the two flag tables ("| Flag |
# Default |": --fixed-schedule was only named in the AIPerf table), its
# choices (`--x a\|b` or {a,b}) must be --help's (which come from the
# table's choices, as do the usage line's endpoint types, listed in full),
# and its Default cell must agree with --help's "(default X)" (the first
# word; a row naming several flags gives one default each, in order):
# --session-concurrency said 0 in the docs and 1 in --help.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
help=$("$GENPERF" profile --help) || fail "genperf profile --help: exit $?"
GP_HELP=$help python3 - "$GP_ROOT/docs/profile.md" <<'PY' || exit 1
import os, re, sys
help_text = os.environ["GP_HELP"]
lines = help_text.splitlines()
# --help rows: "  -a,--bb METAVAR   help" (a long left part wraps: its help is on the next line)
rows = []
for i, line in enumerate(lines):
    if not line.startswith("  -"):
        continue
    # gp_profile_usage prints "  %-36s %s", or a longer left part alone with its help on the next line
    wrapped = i + 1 < len(lines) and lines[i + 1].startswith(" " * 39)
    left, text = (line[2:], lines[i + 1].strip()) if wrapped else (line[2:38], line[39:])
    name, _, metavar = left.strip().partition(" ")
    flags = name.split(",")
    rows.append((flags, metavar, text or ""))
if len(rows) < 50:
    print("FAIL: only %d flags read from --help" % len(rows)); sys.exit(1)
usage = help_text.split("\n\n", 1)[0]
def norm(v):  # the first word: "64 MiB" or "(64 MiB)" may follow it
    v = (v.replace("`", " ").split() or [""])[0].lower()
    try:
        return repr(float(v))
    except ValueError:
        return v
# docs rows of the two flag tables ("| Flag | Default | ..."): flag items of the first cell, defaults of the second
doc = {}
in_flags = False
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.startswith("|"):
        in_flags = False
        continue
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
    if cells[:2] == ["Flag", "Default"]:
        in_flags = True
        continue
    if not in_flags or set(cells[0]) <= set("-|: "):
        continue
    items = []  # (flag names, choices or None)
    for tok in re.findall(r"`([^`]*)`", cells[0]):
        names, choices = [], None
        for m in re.finditer(r"(?<![\w-])(--?[A-Za-z][\w-]*)((?:/-[\w-]+)*)", tok):
            names.append([m.group(1)] + [m.group(1).rsplit("-", 1)[0] + "-" + s for s in m.group(2).split("/-")[1:]])
        c = re.search(r"\s\{?([\w.]+(?:(?:\\\||,)[\w.]+)+)\}?\s*$", tok)
        if c:
            choices = set(re.split(r"\\\||,", c.group(1)))
        if names:
            flat = [n for group in names for n in group]
            # "-u, --url" is one flag with two spellings; "--a-mean/-stddev" two flags
            per = [[n] for n in names[-1]] if len(names[-1]) > 1 else [flat]
            for spellings in per:
                items.append((spellings, choices))
    defaults = [d.strip() for d in cells[1].split(",")] if len(cells) > 1 else []
    for k, (spellings, choices) in enumerate(items):
        d = defaults[k] if len(defaults) == len(items) else None
        for s in spellings:
            doc[s] = (d, choices, line[:80])
bad = []
for flags, metavar, text in rows:
    key = next((f for f in flags if f in doc), None)
    if key is None:
        bad.append("no flag-table row names " + "/".join(flags))
        continue
    d, choices, where = doc[key]
    if metavar.startswith("{"):
        want = set(metavar.strip("{}").split(","))
        if choices is not None and choices != want:
            bad.append("%s: --help lists %s, docs/profile.md %s" % (key, sorted(want), sorted(choices)))
        elif choices is None:
            bad.append("%s: docs/profile.md's row does not list its choices %s" % (key, metavar))
    m = re.search(r"\(default ([^);]+?)(?:[);]|: | \()", text)
    if m and d is not None and norm(m.group(1)) != norm(d) and d not in ("", "see below"):
        bad.append("%s: default %r in --help, %r in docs/profile.md" % (key, m.group(1), d))
if bad:
    print("FAIL: --help (the parser's table) and docs/profile.md disagree:\n  " + "\n  ".join(bad)); sys.exit(1)
# the usage line's endpoint types are --endpoint-type's, in full
ut = re.search(r"--endpoint-type \{([^}]*)\}", usage)
et = next((m for f, m, t in rows if "--endpoint-type" in f), "")
if not ut or "..." in ut.group(1) or "{" + ut.group(1) + "}" != et:
    print("FAIL: the usage line's --endpoint-type choices %r differ from --help's %r" % (ut and ut.group(1), et)); sys.exit(1)
print("ok: %d flags: each has a flag-table row in docs/profile.md with the same choices and default as --help"
      % len(rows))
PY
