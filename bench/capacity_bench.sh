#!/usr/bin/env bash
# Bench 1 — streaming capacity of ONE client thread: genperf profile vs a Python
# asyncio/aiohttp client (bench/py_client.py, written like vLLM's benchmark
# client), both against `genperf serve --zero-delay`, OSL 256, concurrency
# 1, 64, 256, 1024, in the same run, same requests. Tokens per client
# CPU-second (user+sys of the whole client process, start-up and artifact
# writing included, for both clients) is the figure that does not depend on how much of the two
# shared cores the server takes; wall-clock figures are printed beside it.
set -u
source "$(dirname "$0")/lib.sh"
ulimit -n 16384 2>/dev/null || true
OSL=256
# idle timeout well above any gap the slow Python client leaves between requests
start_serve cap --zero-delay --tokenizer builtin --idle-timeout-s 120 --quiet
echo "server: $SERVE_URL (zero-delay), OSL $OSL, ISL 64"
printf '%-8s %-5s %8s %9s %8s %8s %12s %12s %12s\n' client conc requests tokens wall_s cpu_s tok/cpu_s cpu_s/Mtok tok/wall_s
sum_records() { # tokens events failed, over one run's records
  cat "$1"/*/*_records.jsonl | /usr/bin/python3 -c '
import sys, json
t = e = f = 0
for l in sys.stdin:
    r = json.loads(l)
    if r.get("warmup"): continue
    t += r.get("osl") or 0; e += r.get("events") or 0; f += r.get("status") != "ok"
print(t, e, f)'
}
for c in ${CAP_CONC:-1 64 256 1024}; do
  n=$(( c * 4 )); min=${CAP_MIN_REQUESTS:-400}; [ $n -lt $min ] && n=$min
  out="$BENCH_TMP/c$c"
  if ! timed "$GENPERF" profile -m sim --url "$SERVE_URL" --endpoint-type chat --streaming --tokenizer builtin \
      --synthetic-input-tokens-mean 64 --output-tokens-mean $OSL --genperf-output-tokens-deterministic \
      --request-count $n --num-dataset-entries 16 --concurrency $c --artifact-dir "$out" >"$out.log" 2>&1; then
    echo "genperf profile failed at concurrency $c:"; tail -5 "$out.log"; continue
  fi
  gcpu=$TIMED_CPU gwall=$TIMED_WALL
  read -r tok ev gfail < <(sum_records "$out")
  # steady phase: CPU time of the event-loop thread during the measured phase
  # (the client reports busy_fraction = CLOCK_THREAD_CPUTIME_ID / phase wall;
  # the window duration stands in for the phase wall); Python: getrusage
  # around its gather()
  gbusy=$(/usr/bin/python3 -c 'import json,glob,sys; d=json.load(open(glob.glob(sys.argv[1]+"/*/*_genperf.json")[0])); print(round(d["client"]["busy_fraction"]*d["window"]["duration_s"],4))' "$out")
  g_tpb=$(calc %.0f 'b>0 ? t/b : 0' t="$tok" b="$gbusy")
  g_tpc=$(calc %.0f 'c>0 ? t/c : 0' t="$tok" c="$gcpu")
  g_tpw=$(calc %.0f 'w>0 ? t/w : 0' t="$tok" w="$gwall")
  g_epw=$(calc %.0f 'w>0 ? t/w : 0' t="$ev" w="$gwall")
  g_epc=$(calc %.0f 'c>0 ? t/c : 0' t="$ev" c="$gcpu")
  printf '%-8s %-5s %8s %9s %8s %8s %12s %12s %12s\n' genperf $c $n "$tok" "$gwall" "$gcpu" "$g_tpc" \
    "$(calc %.3f 't>0 ? c/t*1e6 : 0' t="$tok" c="$gcpu")" "$g_tpw"
  echo "         genperf: $ev SSE events, $g_epc events/CPU-s, $g_epw events/s wall; $gfail failed;" \
       "steady phase: event-loop thread $gbusy CPU-s -> $g_tpb tok/CPU-s"
  # measured the same way: the whole process under /usr/bin/time
  timed /usr/bin/python3 "$GP_ROOT/bench/py_client.py" --url "$SERVE_URL" --concurrency $c --requests $n --osl $OSL \
    >"$out.py.json" 2>"$out.py.err"
  pout=$(cat "$out.py.json")
  if [ -z "$pout" ]; then echo "python client failed at $c: $(tail -2 "$out.py.err")"; continue; fi
  pcpu=$TIMED_CPU pwall=$TIMED_WALL
  ptok=$(jget "$pout" tokens) pev=$(jget "$pout" events) pfail=$(jget "$pout" failed) pphase=$(jget "$pout" cpu_s)
  p_tpp=$(calc %.0f 'c>0 ? t/c : 0' t="$ptok" c="$pphase")
  p_tpc=$(calc %.0f 'c>0 ? t/c : 0' t="$ptok" c="$pcpu")
  p_tpw=$(calc %.0f 'w>0 ? t/w : 0' t="$ptok" w="$pwall")
  printf '%-8s %-5s %8s %9s %8s %8s %12s %12s %12s\n' python $c $n "$ptok" "$pwall" "$pcpu" "$p_tpc" \
    "$(calc %.3f 't>0 ? c/t*1e6 : 0' t="$ptok" c="$pcpu")" "$p_tpw"
  echo "         python:  $pev SSE events; $pfail failed; steady phase: $pphase CPU-s -> $p_tpp tok/CPU-s"
  ratio=$(calc %.1f 'b>0 ? a/b : 0' a="$g_tpc" b="$p_tpc")
  sratio=$(calc %.1f 'b>0 ? a/b : 0' a="$g_tpb" b="$p_tpp")
  wratio=$(calc %.1f 'b>0 ? a/b : 0' a="$g_tpw" b="$p_tpw")
  result capacity "genperf tokens per client CPU-second, c=$c" "$g_tpc" tok/CPU-s ">= 500000" "$(met 'a>=500000' a="$g_tpc")"
  result capacity "python-aiohttp tokens per client CPU-second, c=$c" "$p_tpc" tok/CPU-s - -
  result capacity "genperf / python-aiohttp per CPU-second, c=$c" "$ratio" x ">= 20" "$(met 'r>=20' r="$ratio")"
  result capacity "genperf tokens per event-loop CPU-second (steady phase), c=$c" "$g_tpb" tok/CPU-s - -
  result capacity "genperf / python-aiohttp, steady phase only, c=$c" "$sratio" x - -
  result capacity "genperf / python-aiohttp wall-clock (shared cores), c=$c" "$wratio" x - -
  result capacity "genperf wall-clock tokens/s (this machine, server on the same 2 cores), c=$c" "$g_tpw" tok/s - -
  result capacity "genperf SSE events per client CPU-second, c=$c" "$g_epc" events/CPU-s - -
  result capacity "genperf CPU-s per million tokens, c=$c" "$(calc %.3f 't>0 ? c/t*1e6 : 0' t="$tok" c="$gcpu")" CPU-s - -
  result capacity "failed requests genperf/python, c=$c" "$gfail/$pfail" requests 0 "$(met 'a+b==0' a="$gfail" b="$pfail")"
done
