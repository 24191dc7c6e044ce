#!/usr/bin/env bash
# Inside every module the files are layers: no call circle between the .c
# files of one folder (scripts/check-circles.py; issue 25 item 2 took apart
# the client's four-file and serve's nine-file circles, and the small ones in
# core, dataset, export, report and store). And the checker does catch one:
# a scratch folder whose two files call each other must fail, naming both,
# while a call through a function pointer and a static function of the same
# name do not count.
set -eu
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
root=${GP_ROOT:-$(pwd)}
cd "$root"
python3 scripts/check-circles.py

t="$TMPDIR/tree"
mkdir -p "$t/src/m" "$t/src/n"
printf 'int b(void);\nint a(void) { return b(); }\n' > "$t/src/m/a.c"
printf 'int a(void);\nint b(void) { return 0; }\nint c(void) { return a() + 1; }\n' > "$t/src/m/b.c"
printf 'int low(int (*f)(void));\nint up(void) { return low(up); }\n' > "$t/src/n/top.c"
printf 'static int up(void) { return 2; }\nint low(int (*f)(void)) { return f() + up(); }\n' > "$t/src/n/low.c"
printf 'int low(int (*f)(void));\nint use(void) { return low(0); }\n' > "$t/src/n/test_x.c"
cd "$t"
if python3 "$root/scripts/check-circles.py" > out.txt 2>&1; then
  cat out.txt; echo "check-circles.py passed a folder with a circle"; exit 1
fi
cat out.txt
grep -q '^src/m: 2 files, 2 functions called across files, circles: a.c b.c$' out.txt
grep -q '^src/n: 2 files, 1 functions called across files, circles: none$' out.txt
