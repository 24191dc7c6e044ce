# bench/lib.sh — helpers shared by the bench scripts (sourced, not run).
# Every bench prints human-readable lines plus machine lines of the form
#   RESULT|<bench>|<figure>|<value>|<unit>|<goal>|<met: yes/no/->
# which bench/run_all.sh collects into BENCHMARKS.md.
: "${BUILD:=build}"
GP_ROOT=${GP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
GENPERF=${GENPERF:-$GP_ROOT/$BUILD/genperf}
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gp-bench.XXXXXX")
bench_pids=()
bench_cleanup() { for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$BENCH_TMP"; }
trap bench_cleanup EXIT

# PRIO: prefix for latency-sensitive runs. The host is shared (load average
# well above the core count while others build and test), so the timing and
# scale benches run client and server at nice -10 when allowed (root);
# BENCH_NICE=0 turns it off. CPU-second figures do not depend on it.
# With autogroup scheduling nice only ranks tasks inside one session, so
# bench_boost_session (called first by those benches) re-runs the script in a
# session of its own and lowers that session's autogroup nice as well.
PRIO=()
if [ "${BENCH_NICE:-1}" != 0 ] && nice -n -10 true 2>/dev/null; then PRIO=(nice -n -10); fi
bench_boost_session() {
  [ ${#PRIO[@]} -gt 0 ] || return 0
  if [ -z "${GP_BENCH_SESSION:-}" ] && command -v setsid >/dev/null; then
    bench_cleanup
    GP_BENCH_SESSION=1 exec setsid -w bash "$0" "$@"
  fi
  [ -w /proc/self/autogroup ] && echo -10 > /proc/self/autogroup 2>/dev/null
  BOOST="nice -10, own session, autogroup $(cat /proc/self/autogroup 2>/dev/null)"
}
BOOST=none

result() { echo "RESULT|$1|$2|$3|$4|$5|$6"; }

# start_serve NAME ARGS... -> sets SERVE_URL (SERVE_PREFIX=(...) runs it under a prefix)
SERVE_PREFIX=()
start_serve() {
  local name=$1; shift
  rm -f "$BENCH_TMP/$name.url"
  "${SERVE_PREFIX[@]}" "$GENPERF" serve --port 0 --port-file "$BENCH_TMP/$name.url" "$@" >"$BENCH_TMP/$name.log" 2>&1 &
  bench_pids+=($!)
  for _ in $(seq 200); do [ -s "$BENCH_TMP/$name.url" ] && break; sleep 0.05; done
  SERVE_URL=$(cat "$BENCH_TMP/$name.url")
  SERVE_PID=$!
}

# timed CMD...: runs CMD; sets TIMED_CPU (user+sys s of CMD and its children,
# from getrusage: microseconds, where /usr/bin/time rounds to 10 ms) and
# TIMED_WALL (s). CMD keeps this shell's stdin/stdout/stderr.
timed() {
  /usr/bin/python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
try:
    rc = subprocess.call(sys.argv[2:])
except OSError as e:
    print("timed: %s: %s" % (sys.argv[2], e), file=sys.stderr); rc = 127
w = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.6f %.6f %.3f\n" % (r.ru_utime, r.ru_stime, w))
sys.exit(rc if rc >= 0 else 128 - rc)' "$BENCH_TMP/time.txt" "$@"
  local rc=$?
  local u s e
  read -r u s e < "$BENCH_TMP/time.txt"
  TIMED_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.4f", u+s}')
  TIMED_WALL=$e
  return $rc
}

# calc FMT EXPR [name=value ...]: prints EXPR (awk syntax) with FMT. The
# expression is parenthesised so that a comparison is never read as awk's
# output redirection (`print a>b` writes to a file named b).
calc() {
  local fmt=$1 expr=$2; shift 2
  local args=() kv
  for kv in "$@"; do args+=(-v "$kv"); done
  awk "${args[@]}" "BEGIN{ printf \"$fmt\", ($expr) }"
}
# met COND [name=value ...]: prints yes when the awk condition holds, else no.
met() {
  local cond=$1; shift
  local args=() kv
  for kv in "$@"; do args+=(-v "$kv"); done
  awk "${args[@]}" "BEGIN{ print (($cond) ? \"yes\" : \"no\") }"
}
# jget JSON KEY: one field of a JSON object ('-' when null or absent).
jget() { /usr/bin/python3 -c 'import json,sys; v=json.loads(sys.argv[1]).get(sys.argv[2]); print("-" if v is None else (round(v,3) if isinstance(v,float) else v))' "$1" "$2"; }

# start_nginx_canned OSL: nginx (nginx-light) on a free loopback port serving,
# for POST too (error_page 405 =200), a canned vLLM-style chat stream of OSL
# tokens at $NGX_URL/v1/chat/completions (role chunk, one content chunk per
# token, finish_reason on the last, usage chunk, [DONE]) and the matching
# non-streamed chat completion at $NGX_URL/ns/v1/chat/completions. Sets
# NGX_URL, NGINX_PID, NGX_STREAM_BYTES; nginx is stopped by bench_cleanup.
# nginx sends a whole response at once and costs little CPU: the clients
# are the bottleneck.
start_nginx_canned() {
  local osl=$1 www="$BENCH_TMP/www"
  command -v nginx >/dev/null || { echo "nginx not installed (apt-get install nginx-light)"; return 77; }
  mkdir -p "$www/v1/chat" "$www/ns/v1/chat" "$BENCH_TMP/ngx"
  /usr/bin/python3 - "$www" "$osl" <<'PY'
import json, sys
www, osl = sys.argv[1], int(sys.argv[2])
head = {"id": "chatcmpl-0123456789abcdef0123456789abcdef", "object": "chat.completion.chunk",
        "created": 1760000000, "model": "sim"}
words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "and", "runs"]
def ev(o): return "data: " + json.dumps(o, separators=(",", ":")) + "\n\n"
out = [ev(dict(head, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""},
                               "logprobs": None, "finish_reason": None}]))]
for i in range(osl):
    last = i == osl - 1
    ch = {"index": 0, "delta": {"content": " " + words[i % len(words)]}, "logprobs": None,
          "finish_reason": "length" if last else None}
    if last: ch["stop_reason"] = None
    out.append(ev(dict(head, choices=[ch])))
usage = {"prompt_tokens": 64, "total_tokens": 64 + osl, "completion_tokens": osl}
out.append(ev(dict(head, choices=[], usage=usage)))
out.append("data: [DONE]\n\n")
open(www + "/v1/chat/completions", "w").write("".join(out))
text = "".join(" " + words[i % len(words)] for i in range(osl))
one = dict(head, object="chat.completion", usage=usage,
           choices=[{"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                     "finish_reason": "length", "stop_reason": None}])
open(www + "/ns/v1/chat/completions", "w").write(json.dumps(one, separators=(",", ":")))
PY
  NGX_STREAM_BYTES=$(stat -c %s "$www/v1/chat/completions")
  # nginx workers run as the invoking user (the user directive below: started
  # by root they would otherwise drop to nobody, who may not reach $BENCH_TMP)
  chmod a+rx "$BENCH_TMP" "$www" "$www/v1" "$www/v1/chat" "$www/ns" "$www/ns/v1" "$www/ns/v1/chat"
  chmod a+r "$www/v1/chat/completions" "$www/ns/v1/chat/completions"
  local port
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat > "$BENCH_TMP/ngx/nginx.conf" <<NGX
daemon off;
user $(id -un) $(id -gn);
worker_processes ${NGX_WORKERS:-1};
worker_rlimit_nofile 16384;
pid $BENCH_TMP/ngx/nginx.pid;
error_log $BENCH_TMP/ngx/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $BENCH_TMP/ngx/body;
  proxy_temp_path $BENCH_TMP/ngx/proxy;
  fastcgi_temp_path $BENCH_TMP/ngx/fastcgi;
  uwsgi_temp_path $BENCH_TMP/ngx/uwsgi;
  scgi_temp_path $BENCH_TMP/ngx/scgi;
  keepalive_requests 10000000;
  keepalive_timeout 300s;
  sendfile on;
  tcp_nodelay on;
  server {
    listen 127.0.0.1:$port backlog=4096;
    root $www;
    location /v1/ {
      types { }
      default_type "text/event-stream; charset=utf-8";
      # a static file answers POST with 405; serve it anyway
      error_page 405 =200 \$uri;
    }
    location /ns/ {
      types { }
      default_type "application/json";
      error_page 405 =200 \$uri;
    }
  }
}
NGX
  nginx -c "$BENCH_TMP/ngx/nginx.conf" -p "$BENCH_TMP/ngx" >"$BENCH_TMP/ngx/stdout" 2>&1 &
  NGINX_PID=$!
  bench_pids+=($NGINX_PID)
  NGX_URL="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -s -o /dev/null -X POST "$NGX_URL/v1/chat/completions" && break; sleep 0.05; done
  local got
  got=$(curl -s -X POST -H 'Content-Type: application/json' -d '{}' "$NGX_URL/v1/chat/completions" | wc -c)
  [ "$got" = "$NGX_STREAM_BYTES" ] || { echo "nginx did not serve the canned stream for POST ($got of $NGX_STREAM_BYTES bytes):"; cat "$BENCH_TMP/ngx/error.log"; return 1; }
  echo "nginx $(nginx -v 2>&1 | sed 's/.*\///') on $NGX_URL (pid $NGINX_PID), canned stream: $osl tokens, $NGX_STREAM_BYTES bytes"
}
