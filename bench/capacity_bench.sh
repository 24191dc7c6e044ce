#!/usr/bin/env bash
# Bench 1 — streaming capacity of ONE client thread: genperf profile vs a Python
# asyncio/aiohttp client (bench/py_client.py, written like vLLM's benchmark
# client), both against `genperf serve --zero-delay`, OSL 256, concurrency
# 1, 64, 256, 1024, in the same run. Tokens/s per client CPU-second is the
# figure that does not depend on how fast the server is on this shared host.
set -u
source "$(dirname "$0")/lib.sh"
ulimit -n 65536 2>/dev/null || true
OSL=256
start_serve cap --zero-delay --tokenizer builtin
echo "server: $SERVE_URL (zero-delay)"
printf '%-6s %-8s %10s %12s %12s %14s %12s\n' client conc requests wall_s cpu_s tokens/cpu_s cpu_s/Mtok
for c in 1 64 256 1024; do
  n=$(( c * 8 )); [ $n -lt 200 ] && n=200
  out="$BENCH_TMP/c$c"
  timed "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --streaming --tokenizer builtin \
      --synthetic-input-tokens-mean 64 --output-tokens-mean $OSL --output-tokens-mean-deterministic \
      --request-count $n --num-dataset-entries 16 --concurrency $c --artifact-dir "$out" >"$out.log" 2>&1 \
    || { echo "genperf profile failed at concurrency $c:"; tail -5 "$out.log"; continue; }
  gcpu=$TIMED_CPU gwall=$TIMED_WALL
  tok=$(cat "$out"/*/*_records.jsonl | /usr/bin/python3 -c 'import sys,json; print(sum((json.loads(l).get("osl") or 0) for l in sys.stdin))')
  ev=$(cat "$out"/*/*_records.jsonl | /usr/bin/python3 -c 'import sys,json; print(sum((json.loads(l).get("content_chunks") or 0) for l in sys.stdin))')
  g_tps_cpu=$(awk -v t="$tok" -v c="$gcpu" 'BEGIN{printf "%.0f", c>0 ? t/c : 0}')
  g_tps=$(awk -v t="$tok" -v w="$gwall" 'BEGIN{printf "%.0f", w>0 ? t/w : 0}')
  g_eps=$(awk -v t="$ev" -v w="$gwall" 'BEGIN{printf "%.0f", w>0 ? t/w : 0}')
  printf '%-6s %-8s %10s %12s %12s %14s %12.3f\n' genperf $c $n $gwall $gcpu $g_tps_cpu "$(awk -v t="$tok" -v c="$gcpu" 'BEGIN{print t>0 ? c/t*1e6 : 0}')"
  echo "       genperf wall-clock: $g_tps tokens/s, $g_eps SSE events/s (server shares the 2 cores)"
  pout=$(/usr/bin/python3 "$GP_ROOT/bench/py_client.py" --url "$SERVE_URL" --concurrency $c --requests $n --osl $OSL 2>"$out.py.err")
  if [ -z "$pout" ]; then echo "python client failed at $c: $(tail -2 "$out.py.err")"; continue; fi
  ptok=$(/usr/bin/python3 -c "import json;print(json.loads('$pout')['tokens'])")
  pcpu=$(/usr/bin/python3 -c "import json;print(round(json.loads('$pout')['cpu_s'],3))")
  pwall=$(/usr/bin/python3 -c "import json;print(round(json.loads('$pout')['wall_s'],3))")
  p_tps_cpu=$(awk -v t="$ptok" -v c="$pcpu" 'BEGIN{printf "%.0f", c>0 ? t/c : 0}')
  printf '%-6s %-8s %10s %12s %12s %14s %12.3f\n' python $c $n $pwall $pcpu $p_tps_cpu "$(awk -v t="$ptok" -v c="$pcpu" 'BEGIN{print t>0 ? c/t*1e6 : 0}')"
  ratio=$(awk -v a="$g_tps_cpu" -v b="$p_tps_cpu" 'BEGIN{printf "%.1f", b>0 ? a/b : 0}')
  met1=$(awk -v a="$g_tps_cpu" 'BEGIN{print a>=500000 ? "yes" : "no"}')
  met2=$(awk -v r="$ratio" 'BEGIN{print r>=20 ? "yes" : "no"}')
  result capacity "tokens per client CPU-second, concurrency $c" "$g_tps_cpu" tokens/s ">= 500000" "$met1"
  result capacity "genperf / python-aiohttp, concurrency $c" "$ratio" x ">= 20" "$met2"
  result capacity "wall-clock tokens/s incl. shared server, concurrency $c" "$g_tps" tokens/s "-" "-"
  result capacity "SSE events/s wall-clock, concurrency $c" "$g_eps" events/s "-" "-"
done
