#!/usr/bin/env python3
"""Call-level circles between the .c files of one folder (tests and fuzz targets left out).

A function defined (not static) in a.c and called by name from b.c is an edge b.c -> a.c; a circle is a
set of files that reach each other (a strongly connected component of that graph). Inside a module,
files are layers: each calls only those below it, so that a file can be read knowing only what is under
it (docs/ARCHITECTURE.md). Usage: check-circles.py [FOLDER...] (default: every folder under src/ of the
current directory). Prints, per folder, its files, the functions called across files and the circles;
exits 1 when any folder has a circle. A text-level check: comments and strings are stripped, macros are
not expanded, and a call through a function pointer is not an edge (that is how a lower layer reaches
up, on purpose)."""
import glob
import os
import re
import sys


def defs_calls(path):
    src = open(path, encoding="utf-8", errors="replace").read()
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    defs, local = set(), set()
    for m in re.finditer(r"^(static\s+)?[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", src, re.M):
        (local if m.group(1) else defs).add(m.group(2))
    # a call to a name this file defines itself (a static helper that shares a
    # name with another file's function) is not a call across files
    calls = set(re.findall(r"\b(\w+)\s*\(", src)) - defs - local
    return defs, calls


def components(nodes, edges):
    """Tarjan's strongly connected components, iterative."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def check(folder):
    files = [f for f in sorted(glob.glob(os.path.join(folder, "*.c")))
             if not os.path.basename(f).startswith(("test_", "fuzz_"))]
    info = {f: defs_calls(f) for f in files}
    owner = {}
    for f, (ds, _) in info.items():
        for name in ds:
            owner[name] = f
    edges = {f: set(owner[x] for x in info[f][1] if x in owner and owner[x] != f) for f in files}
    shared = sum(1 for x in owner if any(g != owner[x] and x in info[g][1] for g in files))
    circles = [c for c in components(files, edges) if len(c) > 1]
    text = "; ".join(" ".join(sorted(os.path.basename(x) for x in c)) for c in circles) or "none"
    print(f"{folder.rstrip('/')}: {len(files)} files, {shared} functions called across files, circles: {text}")
    return len(circles)


def main(argv):
    folders = argv or sorted(d for d in glob.glob("src/*/") if os.path.isdir(d))
    if not folders:
        print("check-circles.py: no folder given and no src/*/ here (run it from the repository root)",
              file=sys.stderr)
        return 2
    bad = sum(check(f) for f in folders)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
