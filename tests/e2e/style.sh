#!/usr/bin/env bash
# scripts/check-style.py passes on the tree (no tab, trailing whitespace or CR
# line end in sources and scripts; C lines within 160 characters, 250 in unit
# tests; C files within 750 lines; library code does not print to stdout or
# stderr: only main.c, cmd_*.c and the check's COMMAND_FILES do, or a forked
# child after a failed exec), and it does catch each of those: a scratch tree
# with one violation of each rule must produce exactly those reports.
set -eu
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
root=${GP_ROOT:-$(pwd)}
cd "$TMPDIR"
python3 "$root/scripts/check-style.py" "$root"

# The checker itself: one scratch tree (not a git checkout: the walk fallback).
t="$TMPDIR/tree"
mkdir -p "$t/src/m" "$t/tests/e2e" "$t/src/m/testdata"
printf 'int a;\n' > "$t/src/m/ok.c"
printf 'int b; \n' > "$t/src/m/trail.c"
printf '\tint c;\n' > "$t/src/m/tab.h"
printf 'int d;\r\n' > "$t/src/m/crlf.c"
python3 -c "print('int e; /*' + 'x' * 160 + '*/')" > "$t/src/m/long.c"
python3 -c "print('int f; /*' + 'x' * 160 + '*/')" > "$t/src/m/test_long_ok.c"
python3 -c "print('int g;\n' * 751, end='')" > "$t/src/m/big.c"
printf 'echo hi\t\n' > "$t/tests/e2e/x.sh"
printf 'all:\n\techo ok\n' > "$t/src/m/module.mk"
printf 'anything goes \r\n' > "$t/src/m/testdata/fixture.txt"
printf 'x:\n\ttrue\n' > "$t/Makefile"
# who prints: a library file that does (3 ways), a command that may, a
# comment that only names printf, a forked child's message after exec, a
# FILE* given, and a unit test
printf 'void f(void) {\n    fprintf(stderr, "x\\n");\n}\n' > "$t/src/m/lib.c"
printf 'void g(void) { puts("x"); }\nvoid h(void) { dprintf(2, "x"); }\n' > "$t/src/m/lib2.c"
printf 'void f(void) { fprintf(stderr, "x"); printf("y"); }\n' > "$t/src/m/cmd_x.c"
printf '/* printf("x") in a comment */\nvoid f(FILE *fp) { fprintf(fp, "x"); gp_buf_printf(b, "y"); }\n' > "$t/src/m/quiet.c"
printf 'void f(void) {\n    execv(a, v);\n    fprintf(stderr, "cannot execute");\n}\n' > "$t/src/m/spawn.c"
printf 'int main(void) { printf("ok"); }\n' > "$t/src/m/test_p.c"
if python3 "$root/scripts/check-style.py" "$t" > out.txt 2>err.txt; then
  cat out.txt err.txt; echo "check-style.py passed a tree with violations"; exit 1
fi
cat out.txt
sort out.txt > got.txt
sort > want.txt <<'W'
src/m/big.c: 751 lines (at most 750: split the module)
src/m/crlf.c:1: CR line end (save with LF line ends)
src/m/long.c:1: line of 171 characters (at most 160)
src/m/tab.h:1: tab (indent with spaces)
src/m/trail.c:1: trailing whitespace
tests/e2e/x.sh:1: tab (indent with spaces)
tests/e2e/x.sh:1: trailing whitespace
src/m/lib.c:2: library code prints to stdout/stderr (return the text in a struct gp_error or to the caller, or print to a FILE* it is given; commands: main.c, cmd_*.c, COMMAND_FILES)
src/m/lib2.c:1: library code prints to stdout/stderr (return the text in a struct gp_error or to the caller, or print to a FILE* it is given; commands: main.c, cmd_*.c, COMMAND_FILES)
src/m/lib2.c:2: library code prints to stdout/stderr (return the text in a struct gp_error or to the caller, or print to a FILE* it is given; commands: main.c, cmd_*.c, COMMAND_FILES)
W
diff want.txt got.txt
grep -q '16 files, 10 problem' err.txt || { cat err.txt; exit 1; }
