#!/usr/bin/env bash
# bench_smoke: the bench scripts still work against the current genperf
# (flags, artifact names, record fields): lib.sh's arithmetic helpers, a tiny
# capacity run (genperf + the Python client, 20 requests) that must produce
# numeric RESULT lines with no failed request, and run_all.sh listing a
# skipped script (exit 77) in the table it writes; with nginx and wrk
# installed, a tiny nginx_stream run (numeric figures, 0 failed, nginx gone).
set -u
fail() { echo "FAIL: $*"; exit 1; }
# lib.sh installs its own EXIT trap (removes its temp dir)
source "$GP_ROOT/bench/lib.sh"
[ "$(calc %.1f 'a/b' a=3 b=2)" = 1.5 ] || fail "calc"
[ "$(met 'a>=b' a=2 b=1)" = yes ] && [ "$(met 'a>=b' a=1 b=2)" = no ] || fail "met"
[ ! -e 1 ] && [ ! -e 2 ] || fail "met wrote a file (awk redirection)"
[ "$(jget '{"x":1.23456,"y":null}' x)" = 1.235 ] && [ "$(jget '{"y":null}' y)" = - ] || fail "jget"

/usr/bin/python3 -c 'import aiohttp' 2>/dev/null || { echo "python3-aiohttp not installed"; exit 77; }
out=$(cd "$TMPDIR" && CAP_CONC=1 CAP_MIN_REQUESTS=20 timeout 60 bash "$GP_ROOT/bench/capacity_bench.sh" 2>&1) \
  || fail "capacity_bench exit $?: $(tail -5 <<<"$out")"
r=$(grep '^RESULT|capacity|genperf tokens per client CPU-second' <<<"$out") || fail "no capacity RESULT: $(tail -5 <<<"$out")"
v=$(cut -d'|' -f4 <<<"$r")
[[ "$v" =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ] || fail "capacity figure not a positive number: $r"
grep -q '^RESULT|capacity|python-aiohttp tokens per client CPU-second, c=1|[1-9]' <<<"$out" || fail "no python figure: $out"
grep -q '^RESULT|capacity|failed requests genperf/python, c=1|0/0|' <<<"$out" || fail "failed requests: $out"

# TTFT start: genperf and the C floor client (bench/timing_floor.c) side by side, numeric ratios
out=$(cd "$TMPDIR" && TTFT_CONC=8 TTFT_N=16 timeout 60 bash "$GP_ROOT/bench/ttft_start_bench.sh" 2>&1) \
  || fail "ttft_start_bench exit $?: $(tail -5 <<<"$out")"
grep -q '^RESULT|ttft_start|floor (C epoll client) TTFT excess median / p90 / max, c=8|[0-9]' <<<"$out" || fail "no floor figure: $out"
grep -q '^RESULT|ttft_start|genperf / floor TTFT excess, median, c=8|[0-9.]*|x|' <<<"$out" || fail "no ratio: $out"

# the nginx canned-stream bench: nginx started and stopped by the script, all three clients
if command -v nginx >/dev/null && command -v wrk >/dev/null; then
  out=$(cd "$TMPDIR" && NGX_QUICK=1 NGX_CONC=1 NGX_MIN_REQUESTS=50 NGX_PY_MIN_REQUESTS=10 timeout 90 \
        bash "$GP_ROOT/bench/nginx_stream_bench.sh" 2>&1) || fail "nginx_stream_bench exit $?: $(tail -5 <<<"$out")"
  grep -q '^RESULT|nginx_stream|genperf tokens/s (measured window, 1 thread), c=1|[1-9]' <<<"$out" || fail "no nginx genperf figure: $out"
  grep -q '^RESULT|nginx_stream|wrk events/s (req/s x 256, bytes only), c=1|[1-9]' <<<"$out" || fail "no wrk figure: $out"
  grep -q '^RESULT|nginx_stream|failed requests genperf/python, c=1|0/0|' <<<"$out" || fail "nginx failed requests: $out"
  for _ in $(seq 30); do pgrep -f "$TMPDIR/gp-bench" >/dev/null || break; sleep 0.1; done
  ! pgrep -f "$TMPDIR/gp-bench" >/dev/null || fail "nginx left running"
fi

mkdir -p "$TMPDIR/fake/bench"
cp "$GP_ROOT/bench/run_all.sh" "$GP_ROOT/bench/lib.sh" "$TMPDIR/fake/bench/"
printf '#!/usr/bin/env bash\necho "needs a unicorn"\nexit 77\n' > "$TMPDIR/fake/bench/unicorn_bench.sh"
printf '#!/usr/bin/env bash\necho "RESULT|answer|the answer|42|x|>= 42|yes"\n' > "$TMPDIR/fake/bench/answer_bench.sh"
BENCH_OUT="$TMPDIR/B.md" bash "$TMPDIR/fake/bench/run_all.sh" 2>/dev/null || fail "run_all exit $?"
grep -q '^| unicorn_bench | skipped: needs a unicorn |' "$TMPDIR/B.md" || fail "skipped row missing: $(cat "$TMPDIR/B.md")"
grep -q '^| answer | the answer | 42 | x | >= 42 | yes | `bash bench/answer_bench.sh` |' "$TMPDIR/B.md" || fail "result row missing"
echo "ok"
