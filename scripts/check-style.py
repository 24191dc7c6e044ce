#!/usr/bin/env python3
"""check-style.py — the mechanical style rules genperf's sources already follow.

Run by `make test` (tests/e2e/style.sh) and by hand: scripts/check-style.py [ROOT].
Prints one line per violation, "path:line: rule", and exits 1 when there is any.

Rules (measured on the tree when the check was added, so none of them needed a
reformat; .clang-format describes the layout itself, which is not enforced):
  C sources (src/**/*.c, *.h, *.inc)
    - no tab, no trailing whitespace, no CR (CRLF line ends)
    - lines of at most 160 characters (the layout aims at 120, see
      .clang-format; a handful of lines go to 160, none beyond); unit tests
      and fuzz targets (test_*.c, fuzz_*.c) keep protocol fixtures on one
      line and get 250
    - files of at most 750 lines (the rule is "no file over ~700 lines")
  Scripts and build files (*.sh, *.py, *.inc, *.mk, Makefile, .ci/run, *.js, *.css)
    - no trailing whitespace, no CR; no tab except in Makefile and *.mk,
      whose recipes need them
Test data (fixtures, fuzz corpora, testdata/) is whatever the protocol under
test sends and is not checked.
"""
import os
import subprocess
import sys

LINE_MAX = 160
LINE_MAX_TESTS = 250
FILE_MAX_LINES = 750

SCRIPT_EXT = ('.sh', '.py', '.inc', '.mk', '.js', '.css')
SKIP_PARTS = ('testdata', 'fixtures', 'fuzz', 'node_modules')


def files(root):
    """Tracked plus new (not ignored) files; a plain walk outside a git checkout."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
                             check=True, capture_output=True).stdout
        names = [n for n in out.decode('utf-8', 'replace').split('\0') if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for d in ('src', 'tests', 'scripts', 'bench', '.ci'):
            for dp, _dn, fn in os.walk(os.path.join(root, d)):
                names += [os.path.relpath(os.path.join(dp, f), root) for f in fn]
        names.append('Makefile')
    return sorted(set(n for n in names if os.path.isfile(os.path.join(root, n))))


def kind(path):
    base = os.path.basename(path)
    parts = path.split('/')
    if path.startswith('src/') and base.endswith(('.c', '.h', '.inc')) and 'testdata' not in parts:
        return 'c'
    if any(p in SKIP_PARTS for p in parts[:-1]) and not base.endswith(('.sh', '.py')):
        return None
    if base == 'Makefile' or base.endswith('.mk'):
        return 'make'
    if base.endswith(SCRIPT_EXT) or path == '.ci/run':
        return 'script'
    return None


def check(root, path, k, out):
    with open(os.path.join(root, path), 'rb') as f:
        data = f.read()
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        out.append(f'{path}: not UTF-8 (byte {e.start})')
        return
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    base = os.path.basename(path)
    limit = LINE_MAX_TESTS if base.startswith(('test_', 'fuzz_')) else LINE_MAX
    for i, line in enumerate(lines, 1):
        if line.endswith('\r'):
            out.append(f'{path}:{i}: CR line end (save with LF line ends)')
            line = line[:-1]
        if line != line.rstrip():
            out.append(f'{path}:{i}: trailing whitespace')
        if '\t' in line and k != 'make':
            out.append(f'{path}:{i}: tab (indent with spaces)')
        if k == 'c' and len(line) > limit:
            out.append(f'{path}:{i}: line of {len(line)} characters (at most {limit})')
    if k == 'c' and len(lines) > FILE_MAX_LINES:
        out.append(f'{path}: {len(lines)} lines (at most {FILE_MAX_LINES}: split the module)')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    root = os.path.abspath(root)
    out = []
    n = 0
    for path in files(root):
        k = kind(path)
        if k:
            n += 1
            check(root, path, k, out)
    for line in out:
        print(line)
    print(f'check-style: {n} files, {len(out)} problem(s)', file=sys.stderr)
    return 1 if out else 0


if __name__ == '__main__':
    sys.exit(main())
