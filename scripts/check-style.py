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
    - who prints (README "Where to look", docs/ARCHITECTURE.md): library code
      returns errors (struct gp_error) and notes, or prints to a FILE* it is
      given; only commands write to stdout/stderr themselves (printf, puts,
      putchar, perror, fprintf/fputs/fputc/fwrite/vfprintf on stdout or
      stderr, write/dprintf on fd 1 or 2). Commands are src/main.c,
      src/*/cmd_*.c and the files in COMMAND_FILES below (a command's own
      driver split off by length, each with its reason); a forked child's
      message after a failed exec*() (the line right after the call) is
      allowed anywhere, having no caller to return to. Unit tests and fuzz
      targets are not library code.
  Scripts and build files (*.sh, *.py, *.inc, *.mk, Makefile, .ci/run, *.js, *.css)
    - no trailing whitespace, no CR; no tab except in Makefile and *.mk,
      whose recipes need them
Test data (fixtures, fuzz corpora, testdata/) is whatever the protocol under
test sends and is not checked.
"""
import os
import re
import subprocess
import sys

LINE_MAX = 160
LINE_MAX_TESTS = 250
FILE_MAX_LINES = 750

# Files that are part of a command (called by that command only) and print
# its console lines; everything else under src/ is library code. A new entry
# says which command's and why it cannot return the text instead.
COMMAND_FILES = {
    'src/core/argv.c': 'gp_argv_error: the usage error of every table-driven command (cmd_*.c), exit status 2',
    'src/profile/profile_report.c': "genperf profile's driver after the run: the run's console lines and exit status",
    'src/profile/profile_checks.c': "genperf profile's warnings on the measured run (OSL, usage, reasoning, failures)",
    'src/profile/profile_runs.c': "genperf profile --num-runs: one line per run and the aggregate's path",
    'src/profile/profile_memory.c': "genperf profile's --max-memory note before the run",
    'src/profile/profile_dist.c': "genperf profile under mpirun: a rank's setup error (its MPI job cannot return it)",
    'src/profile/profile_dist_report.c': "genperf profile under mpirun: the clock-offset warning",
    'src/runner/runner.c': "genperf run's cell loop: each cell's failure as it happens, the sweep goes on",
    'src/serve/server.c': "genperf serve's loop, the command's own process: listening line, start and shutdown summary",
    'src/serve/server_conn.c': "genperf serve's loop: the once-only notice that accepting paused (no fds)",
}

PRINT_RE = re.compile(r'\b(v?fprintf|fputs|fputc|fwrite)\s*\([^;]*\b(stderr|stdout)\b'
                      r'|(^|[^\w])(printf|vprintf|puts|putchar|perror)\s*\('
                      r'|\b(write|dprintf)\s*\(\s*(1|2|STDERR_FILENO|STDOUT_FILENO)\s*,')
EXEC_RE = re.compile(r'\bexec[lv]p?e?\s*\(')

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


def prints_checked(path):
    """Library C files: not a command, a unit test or a fuzz target."""
    base = os.path.basename(path)
    if not path.endswith('.c') or path == 'src/main.c' or base.startswith(('cmd_', 'test_', 'fuzz_')):
        return False
    return path not in COMMAND_FILES


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
    if k == 'c' and prints_checked(path):
        prev = ''
        for i, line in enumerate(lines, 1):
            code = line.strip()
            if code and not code.startswith(('*', '/*', '//')):
                if PRINT_RE.search(code) and not EXEC_RE.search(prev):
                    out.append(f'{path}:{i}: library code prints to stdout/stderr (return the text in a '
                               f'struct gp_error or to the caller, or print to a FILE* it is given; '
                               f'commands: main.c, cmd_*.c, COMMAND_FILES)')
                prev = code
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
    if os.path.isfile(os.path.join(root, 'src/main.c')):  # the real tree: no stale allowlist entry
        out += [f'{p}: named in COMMAND_FILES but not there (update check-style.py)'
                for p in sorted(COMMAND_FILES) if not os.path.isfile(os.path.join(root, p))]
    for line in out:
        print(line)
    print(f'check-style: {n} files, {len(out)} problem(s)', file=sys.stderr)
    return 1 if out else 0


if __name__ == '__main__':
    sys.exit(main())
