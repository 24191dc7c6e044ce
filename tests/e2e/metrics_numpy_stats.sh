#!/usr/bin/env bash
# metrics_numpy_stats: gp_stats_compute against the real NumPy (np.mean,
# np.percentile linear, np.std) on random int, float and TPS-like arrays from
# 1 to 70,001 values — every digit of repr() must agree. Needs a python3 with
# numpy (Debian: python3-numpy); skipped otherwise.
set -u
cli="$GP_ROOT/${BUILD:-build}/tools/metrics_statcli"
[ -x "$cli" ] || { echo "metrics_statcli not built (make test builds it)"; exit 77; }
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c "import numpy" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "numpy not installed (apt-get install python3-numpy)"; exit 77; }
"$py" - "$cli" <<'PY'
import random, subprocess, sys
import numpy as np
cli = sys.argv[1]
random.seed(7)
bad = cases = 0
for n in [1, 2, 3, 4, 7, 8, 9, 16, 17, 127, 128, 129, 257, 1000, 8192, 8193, 20000, 70001]:
    for kind in ("int", "float", "tps"):
        if kind == "int":
            x = [random.randint(1, 10**10) for _ in range(n)]
        elif kind == "float":
            x = [random.uniform(-1e3, 1e6) for _ in range(n)]
        else:
            x = [1 / (random.randint(1000000, 30000000) / 1e9) for _ in range(n)]
        txt = "\n".join(str(v) if kind == "int" else repr(v) for v in x)
        got = subprocess.run([cli, "stats"], input=txt, capture_output=True, text=True, check=True).stdout.split()
        a = np.array(x)
        exp = [float(np.mean(a))] + [float(np.percentile(a, p)) for p in (1, 5, 10, 25, 50, 75, 90, 95, 99)]
        exp += [float(np.min(a)), float(np.max(a)), float(np.std(a))]
        exp = [repr(v) for v in exp]
        cases += 1
        if got != exp:
            bad += 1
            print("MISMATCH n=%d %s:" % (n, kind), [(i, g, e) for i, (g, e) in enumerate(zip(got, exp)) if g != e][:3])
print("%d cases against numpy %s, %d mismatches" % (cases, np.__version__, bad))
sys.exit(1 if bad else 0)
PY
