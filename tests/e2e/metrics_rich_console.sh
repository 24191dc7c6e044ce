#!/usr/bin/env bash
# metrics_rich_console: our console table against the real rich library,
# rendered the way GenAI-Perf's console exporter does (Table with the title,
# right-justified columns, labels textwrap.fill(36), f"{v:,.2f}", N/A), at
# widths 60..200 (squeezed and wide), streaming or not, with values that need
# cropping. Needs a python3 with rich (Debian: python3-rich); skipped otherwise.
set -u
cli="$GP_ROOT/${BUILD:-build}/tools/metrics_statcli"
[ -x "$cli" ] || { echo "metrics_statcli not built (make test builds it)"; exit 77; }
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c "import rich" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "rich not installed (apt-get install python3-rich)"; exit 77; }
"$py" - "$cli" <<'PY'
import io, math, subprocess, sys, textwrap
from rich.console import Console
from rich.table import Table
cli = sys.argv[1]

def pct(s, p):  # numpy linear
    vi = (len(s) - 1) * (p / 100)
    lo = math.floor(vi)
    if lo >= len(s) - 1:
        return s[-1]
    a, b, g = s[lo], s[lo + 1], vi - lo
    return b - (b - a) * (1 - g) if g >= 0.5 else a + (b - a) * g

def st(x):
    s = sorted(float(v) for v in x)
    return [sum(s) / len(s), s[0], s[-1], pct(s, 99), pct(s, 90), pct(s, 75)]

def render(width, sc, streaming, noisl):
    m = {"Time To First Token (ms)": st([7 * sc, 8 * sc, 9 * sc]), "Time To Second Token (ms)": st([1, 2, 3]),
         "Request Latency (ms)": st([4 * sc, 5 * sc, 6 * sc]), "Inter Token Latency (ms)": st([10, 11, 12]),
         "Output Token Throughput Per User (tokens/sec/user)": st([4 * sc, 5 * sc, 6 * sc]),
         "Output Sequence Length (tokens)": st([1, 2, 3]),
         "Input Sequence Length (tokens)": None if noisl else st([5, 6, 7])}
    rows = list(m) if streaming else ["Request Latency (ms)", "Output Sequence Length (tokens)",
                                      "Input Sequence Length (tokens)"]
    t = Table(title="NVIDIA GenAI-Perf | LLM Metrics")
    t.add_column("Statistic", justify="right", style="cyan")
    for c in ("avg", "min", "max", "p99", "p90", "p75"):
        t.add_column(c, justify="right", style="green")
    for k in rows:
        v = m[k]
        t.add_row(textwrap.fill(k, 36), *([f"{x:,.2f}" for x in v] if v else ["N/A"] * 6))
    for k, v in (("Output Token Throughput (tokens/sec)", 456 * sc), ("Request Throughput (per sec)", 123.0),
                 ("Request Count (count)", 3.0)):
        t.add_row(textwrap.fill(k, 36), f"{v:,.2f}", *["N/A"] * 5)
    f = io.StringIO()
    Console(file=f, width=width, color_system=None, force_terminal=False).print(t)
    return f.getvalue()

bad = n = 0
for width in (60, 70, 80, 89, 100, 120, 200):
    for sc in (1, 1000, 123456.789):
        for streaming in (1, 0):
            for noisl in (0, 1):
                exp = render(width, sc, streaming, noisl)
                args = [cli, "console", str(width), repr(sc), str(streaming)] + (["noisl"] if noisl else [])
                got = subprocess.run(args, capture_output=True, text=True, check=True).stdout
                n += 1
                if got != exp:
                    bad += 1
                    if bad <= 2:
                        print("MISMATCH width=%d scale=%r streaming=%d noisl=%d" % (width, sc, streaming, noisl))
                        print(exp + "--- ours:\n" + got)
print("%d tables compared with rich, %d mismatches" % (n, bad))
sys.exit(1 if bad else 0)
PY
