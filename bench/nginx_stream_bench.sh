#!/usr/bin/env bash
# Bench — streaming client speed against a server nobody here wrote: nginx
# (nginx-light) serving a canned 256-token vLLM-style SSE stream from a file
# the bench generates, for POST too (error_page 405 =200). nginx sends the
# whole ~60 KB stream at once and costs little CPU, so the clients are the
# bottleneck. Side by side in one run, at concurrency 1, 64, 256, 1024:
#   genperf profile   --streaming, one event-loop thread, every byte recorded;
#   python-aiohttp    bench/py_client.py, written like vLLM's benchmark client;
#   wrk -t1           bytes only, no parsing: the read ceiling.
# Figures: tokens/s in each client's measured phase (genperf: its measured
# window; python: around its gather(); wrk: requests/s x 256), the ratios
# genperf/python and genperf/wrk (event rate), tokens per client CPU-second
# (whole process: start-up, metrics and artifacts included for genperf).
# Knobs: NGX_CONC (default "1 64 256 1024"), NGX_QUICK=1 (fewer requests, 1 s
# of wrk: a smoke run), NGX_WRK_S, NGX_MIN_REQUESTS (genperf),
# NGX_PY_MIN_REQUESTS, GENPERF_BASE=/path/to/older/genperf (adds a row per
# concurrency for that binary: before/after in the same run).
set -u
source "$(dirname "$0")/lib.sh"
command -v nginx >/dev/null || { echo "nginx not installed (apt-get install nginx-light)"; exit 77; }
command -v wrk >/dev/null || { echo "wrk not installed (scripts/deps.sh installs it)"; exit 77; }
/usr/bin/python3 -c 'import aiohttp' 2>/dev/null || { echo "python3-aiohttp not installed"; exit 77; }
ulimit -n 16384 2>/dev/null || true
OSL=256
if [ "${NGX_QUICK:-0}" = 1 ]; then
  : "${NGX_WRK_S:=1}" "${NGX_MIN_REQUESTS:=300}" "${NGX_PY_MIN_REQUESTS:=60}"
fi
WRK_S=${NGX_WRK_S:-3} GMIN=${NGX_MIN_REQUESTS:-6000} PMIN=${NGX_PY_MIN_REQUESTS:-400}

# ---- nginx serving the canned stream (bench/lib.sh) ------------------------
start_nginx_canned $OSL || exit $?
URL=$NGX_URL
cat > "$BENCH_TMP/post.lua" <<'L'
wrk.method = "POST"
wrk.body   = '{"model":"sim","messages":[{"role":"user","content":"hello"}],"stream":true}'
wrk.headers["Content-Type"] = "application/json"
L

nginx_cpu() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
wpids() { pgrep -P "$NGINX_PID" 2>/dev/null | head -1; }
# run_genperf LABEL BINARY C N: sets G_TOK G_TPS G_TPC G_BUSY G_FAIL G_CPU
run_genperf() {
  local label=$1 bin=$2 c=$3 n=$4 out="$BENCH_TMP/$1-c$3"
  G_TOK=0 G_TPS=0 G_TPC=0 G_BUSY=0 G_FAIL=-1 G_CPU=0
  if ! timed "$bin" profile -m sim --url "$URL" --endpoint-type chat --streaming --tokenizer builtin \
      --synthetic-input-tokens-mean 64 --output-tokens-mean $OSL --genperf-output-tokens-deterministic \
      --request-count "$n" --num-dataset-entries 16 --concurrency "$c" --artifact-dir "$out" >"$out.log" 2>&1; then
    echo "$label profile failed at concurrency $c:"; tail -5 "$out.log"; return 1
  fi
  G_CPU=$TIMED_CPU
  read -r G_TOK G_FAIL G_WIN G_BUSY < <(/usr/bin/python3 - "$out" <<'PY'
import glob, json, sys
d = sys.argv[1]
tok = fail = 0
for l in open(glob.glob(d + "/*/*_records.jsonl")[0]):
    r = json.loads(l)
    if r.get("warmup"): continue
    # the server's usage count (256 per canned stream): nginx sends a stream in a
    # few reads, so content_chunks (one per read, GenAI-Perf's "responses") is not it
    tok += r.get("server_completion_tokens") or 0; fail += r.get("status") != "ok"
g = json.load(open(glob.glob(d + "/*/*_genperf.json")[0]))
print(tok, fail, g["window"]["duration_s"], g["client"]["busy_fraction"])
PY
)
  G_TPS=$(calc %.0f 'w>0 ? t/w : 0' t="$G_TOK" w="$G_WIN")
  G_TPC=$(calc %.0f 'c>0 ? t/c : 0' t="$G_TOK" c="$G_CPU")
  printf '%-12s %5s %7s %9s %10s %8s %12s %6s  event loop %.0f%% busy\n' "$label" "$c" "$n" "$G_TOK" "$G_TPS" "$G_CPU" "$G_TPC" "$G_FAIL" \
    "$(calc %.1f 'b*100' b="$G_BUSY")"
}

printf '%-12s %5s %7s %9s %10s %8s %12s %6s\n' client conc reqs tokens tok/s cpu_s tok/cpu_s failed
for c in ${NGX_CONC:-1 64 256 1024}; do
  n=$(( c * 8 )); [ $n -lt "$GMIN" ] && n=$GMIN
  pn=$c; [ $pn -lt "$PMIN" ] && pn=$PMIN
  ncpu0=$(nginx_cpu "$(wpids)")
  run_genperf genperf "$GENPERF" $c $n || continue
  gtok=$G_TOK gtps=$G_TPS gtpc=$G_TPC gfail=$G_FAIL gbusy=$G_BUSY
  ncpu1=$(nginx_cpu "$(wpids)")
  if [ -n "${GENPERF_BASE:-}" ]; then
    run_genperf genperf-base "$GENPERF_BASE" $c $n && {
      echo "             after/before: tokens/s $(calc %.2f 'b>0 ? a/b : 0' a="$gtps" b="$G_TPS")x," \
           "tokens per CPU-s $(calc %.2f 'b>0 ? a/b : 0' a="$gtpc" b="$G_TPC")x"
      result nginx_stream "genperf-base (GENPERF_BASE) tokens/s, c=$c" "$G_TPS" tok/s - -
      result nginx_stream "genperf / genperf-base tokens/s, c=$c" "$(calc %.2f 'b>0 ? a/b : 0' a="$gtps" b="$G_TPS")" x - -
    }
  fi
  # python: the whole process under timed(); tokens/s around its gather()
  timed /usr/bin/python3 "$GP_ROOT/bench/py_client.py" --url "$URL" --concurrency $c --requests $pn --osl $OSL \
    >"$BENCH_TMP/py$c.json" 2>"$BENCH_TMP/py$c.err"
  pout=$(cat "$BENCH_TMP/py$c.json")
  if [ -z "$pout" ]; then echo "python client failed at $c: $(tail -2 "$BENCH_TMP/py$c.err")"; continue; fi
  ptok=$(jget "$pout" tokens) pfail=$(jget "$pout" failed) pwall=$(jget "$pout" wall_s)
  ptps=$(calc %.0f 'w>0 ? t/w : 0' t="$ptok" w="$pwall")
  ptpc=$(calc %.0f 'c>0 ? t/c : 0' t="$ptok" c="$TIMED_CPU")
  printf '%-12s %5s %7s %9s %10s %8s %12s %6s\n' python $c $pn "$ptok" "$ptps" "$TIMED_CPU" "$ptpc" "$pfail"
  # wrk: bytes only
  timed wrk -t1 -c$c -d${WRK_S}s -s "$BENCH_TMP/post.lua" "$URL/v1/chat/completions" >"$BENCH_TMP/wrk$c.txt" 2>&1
  wrps=$(awk '/Requests\/sec/ {print $2}' "$BENCH_TMP/wrk$c.txt")
  wreq=$(awk '/requests in/ {print $1}' "$BENCH_TMP/wrk$c.txt")
  wtps=$(calc %.0f 'r*k' r="${wrps:-0}" k=$OSL)
  wtpc=$(calc %.0f 'c>0 ? n*k/c : 0' n="${wreq:-0}" k=$OSL c="$TIMED_CPU")
  werr=$(awk '/Non-2xx|Socket errors/' "$BENCH_TMP/wrk$c.txt" | tr -s ' ' | tr '\n' ' ')
  printf '%-12s %5s %7s %9s %10s %8s %12s %6s\n' wrk $c "${wreq:-0}" "$(calc %.0f 'n*k' n="${wreq:-0}" k=$OSL)" "$wtps" "$TIMED_CPU" "$wtpc" "${werr:-0}"
  gp=$(calc %.1f 'b>0 ? a/b : 0' a="$gtps" b="$ptps")
  gw=$(calc %.2f 'b>0 ? a/b : 0' a="$gtps" b="$wtps")
  echo "             genperf/python $gp x, genperf/wrk event rate $gw;" \
       "nginx worker CPU during genperf: $(calc %.2f '(b-a)/100' a="${ncpu0:-0}" b="${ncpu1:-0}") s"
  result nginx_stream "genperf tokens/s (measured window, 1 thread), c=$c" "$gtps" tok/s - -
  result nginx_stream "python-aiohttp tokens/s, c=$c" "$ptps" tok/s - -
  result nginx_stream "wrk events/s (req/s x $OSL, bytes only), c=$c" "$wtps" events/s - -
  result nginx_stream "genperf / python-aiohttp tokens/s, c=$c" "$gp" x ">= 20" "$(met 'r>=20' r="$gp")"
  result nginx_stream "genperf / wrk event rate, c=$c" "$gw" x ">= 0.3" "$(met 'r>=0.3' r="$gw")"
  # wrk reads bytes and parses nothing, so no client beats its rate: where
  # wrk itself is under 20x the Python client (c = 1: the round trip through
  # nginx bounds every client; 21-107 us a request on this VM depending on
  # whether the client and nginx share a core), the 20x goal is out of reach
  # for any client and genperf / wrk is the figure that says how close it is
  result nginx_stream "wrk / python-aiohttp event rate (the most any client could show), c=$c" \
    "$(calc %.1f 'b>0 ? a/b : 0' a="$wtps" b="$ptps")" x - -
  result nginx_stream "genperf tokens per client CPU-second (whole process), c=$c" "$gtpc" tok/CPU-s - -
  result nginx_stream "python-aiohttp tokens per client CPU-second, c=$c" "$ptpc" tok/CPU-s - -
  result nginx_stream "wrk events per client CPU-second, c=$c" "$wtpc" events/CPU-s - -
  result nginx_stream "genperf event loop busy, c=$c" "$(calc %.2f b b="$gbusy")" fraction - -
  result nginx_stream "failed requests genperf/python, c=$c" "$gfail/$pfail" requests 0 "$(met 'a+b==0' a="$gfail" b="$pfail")"
done
