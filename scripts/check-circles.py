#!/usr/bin/env python3
"""Call-level circles between the .c files of one folder (tests and fuzz targets left out).

A function defined (not static) in a.c and called from b.c is an edge b.c -> a.c; a circle is a set of
files that reach each other (a strongly connected component). Prints, per folder: files, functions called
across files, and the circles. Used to check issue 25 item 2 (layers, not a circle of files)."""
import re, sys, os, glob, itertools
def defs_calls(path):
    src = open(path).read()
    src = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\])*"', '""', src)
    defs = set(m.group(1) for m in re.finditer(r'^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{', src, re.M))
    calls = set(re.findall(r'\b(\w+)\s*\(', src))
    return defs, calls
def scc(nodes, edges):
    idx = {}; low = {}; st = []; on = set(); out = []; c = [0]
    def sc(v):
        idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in idx: sc(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            out.append(comp)
    for v in nodes:
        if v not in idx: sc(v)
    return out
for d in sys.argv[1:]:
    files = [f for f in sorted(glob.glob(d + '/*.c')) if not os.path.basename(f).startswith(('test_', 'fuzz_'))]
    info = {f: defs_calls(f) for f in files}
    owner = {}
    for f, (ds, _) in info.items():
        for x in ds: owner[x] = f
    edges = {f: set(owner[x] for x in info[f][1] if x in owner and owner[x] != f) for f in files}
    shared = sum(1 for x in owner if sum(1 for g in files if g != owner[x] and x in info[g][1]))
    comps = [c for c in scc(files, edges) if len(c) > 1]
    print(f"{d}: {len(files)} files, {shared} functions called across files, circles: " +
          ("; ".join(" ".join(sorted(os.path.basename(x) for x in c)) for c in comps) or "none"))
