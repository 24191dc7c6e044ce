#!/usr/bin/env bash
# serve_engine_match: issue 39 item 6, each --flavor answers as its engine's own code does
# (engine versions in docs/serve.md): vLLM's include_usage default for "stream_options": {}
# and usage.prompt_tokens_details only with --enable-prompt-tokens-details; /v1/messages on
# vLLM and SGLang: no ping event, no required anthropic-version header.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null' EXIT
start() { # name, flags...
  local n=$1; shift
  "$GENPERF" serve --quiet --port 0 --port-file "$TMPDIR/url.$n" --zero-delay --seed 3 "$@" >/dev/null &
  pids+=($!)
}
start vllm --flavor vllm
start vllm_ptd --flavor vllm --prefix-cache --enable-prompt-tokens-details
start vllm_pc --flavor vllm --prefix-cache
start sglang --flavor sglang
start trtllm --flavor trtllm
start sglang_ctx --flavor sglang --max-model-len 64
for n in vllm vllm_ptd vllm_pc sglang trtllm sglang_ctx; do
  for _ in $(seq 100); do [ -s "$TMPDIR/url.$n" ] && break; sleep 0.05; done
done
PYTHONPATH="$GP_ROOT/tests/e2e" python3 - "$TMPDIR" <<'PY'
import json, sys
from serve_client import request, sse_events
tmp = sys.argv[1]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what); print("FAIL", what)
def url(n):
    return open("%s/url.%s" % (tmp, n)).read().strip()
def chat(n, **kw):
    body = {"model": "m", "messages": [{"role": "user", "content": "hello there"}], "max_tokens": 4}
    body.update(kw)
    r = request(url(n), "/v1/chat/completions", json.dumps(body))
    check(r["status"] == 200, "%s status %d" % (n, r["status"]))
    if not kw.get("stream"):
        return json.loads(r["body"])
    return [json.loads(e) for _, e in sse_events(r["chunks"]) if e != "[DONE]"]

# 1. stream_options {} -> vLLM (include_usage: Optional[bool] = True) sends the usage chunk;
#    SGLang defaults include_usage to false; explicit null is None (falsy) in vLLM
for n, want in (("vllm", True), ("sglang", False), ("trtllm", True)):
    objs = chat(n, stream=True, stream_options={})
    has = bool(objs) and objs[-1].get("choices") == [] and objs[-1].get("usage") is not None
    check(has == want, "%s stream_options {} usage chunk %s, want %s" % (n, has, want))
objs = chat("vllm", stream=True, stream_options={"include_usage": None})
check(not any(o.get("usage") for o in objs), "vllm include_usage null sends no usage")

# 1b. cached_tokens only with --enable-prompt-tokens-details in the vllm flavour, and only
#     for a hit (vLLM: "if self.enable_prompt_tokens_details and num_cached_tokens"); a body
#     without it says null (model_dump), a stream leaves it out (exclude_unset)
long = "the same long shared prefix for the cache, " * 3
for n in ("vllm", "vllm_pc", "vllm_ptd"):
    for turn in (0, 1):
        objs = chat(n, stream=True, stream_options={"include_usage": True},
                    messages=[{"role": "user", "content": long + str(turn)}])
        u = objs[-1]["usage"]
        want = n == "vllm_ptd" and turn == 1
        check(("prompt_tokens_details" in u) == want, "%s turn %d streamed usage %r" % (n, turn, u))
        if want:
            check(u["prompt_tokens_details"]["cached_tokens"] >= 16, "%s cached_tokens %r" % (n, u))
        u = chat(n, messages=[{"role": "user", "content": long + str(turn)}])["usage"]
        want = n == "vllm_ptd"  # the streamed request filled the cache
        ok = (u.get("prompt_tokens_details") or {}).get("cached_tokens", 0) >= 16 if want else \
            u.get("prompt_tokens_details") is None
        check(ok, "%s turn %d body usage %r" % (n, turn, u))
# 2. /v1/messages: vLLM's and SGLang's converters send no ping and read no anthropic-version;
#    the trtllm flavour keeps Anthropic's own API shape (ping, header required)
msg = json.dumps({"model": "m", "max_tokens": 4, "stream": True,
                  "messages": [{"role": "user", "content": "hello there"}]})
for n in ("vllm", "sglang", "trtllm"):
    r = request(url(n), "/v1/messages", msg)
    anthropic_api = n == "trtllm"
    check((r["status"] == 400) == anthropic_api, "%s /v1/messages without anthropic-version: %d" % (n, r["status"]))
    r = request(url(n), "/v1/messages", msg, {"anthropic-version": "2023-06-01"})
    check(r["status"] == 200, "%s /v1/messages status %d" % (n, r["status"]))
    text = "".join(c for _, c in r["chunks"])
    types = [json.loads(ln[6:]).get("type") for ev in text.split("\n\n") for ln in ev.split("\n")
             if ln.startswith("data: ") and ln != "data: [DONE]"]
    check(("ping" in types) == anthropic_api, "%s /v1/messages events %r" % (n, types))
# 3. TRT-LLM (postprocess_handlers.py at commit 01bf1923, openai_server.py at 00057725): every
#    chunk of a stream carries the same id, "chatcmpl-" + the executor's integer request id;
#    an error is ErrorResponse.model_dump(): object, message, type, param, code, in that order
objs = chat("trtllm", stream=True, stream_options={"include_usage": True})
ids = set(o["id"] for o in objs)
check(len(ids) == 1 and list(ids)[0].startswith("chatcmpl-") and list(ids)[0][9:].isdigit(),
      "trtllm chunk ids %r" % ids)
r = request(url("trtllm"), "/v1/chat/completions",
            json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 10 ** 9}))
j = json.loads(r["body"])
check(r["status"] == 400 and list(j) == ["object", "message", "type", "param", "code"] and j["code"] == 400,
      "trtllm error body %r" % j)
# 4. SGLang over the context (TokenizerManager._validate_one_request, both limits >=, raised
#    inside the stream generator): a stream is HTTP 200 with the error in it, then [DONE]; a
#    plain request 400 with SGLang's words
long = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 100}], "max_tokens": 4,
                   "stream": True})
r = request(url("sglang_ctx"), "/v1/chat/completions", long)
ev = [e for _, e in sse_events(r["chunks"])] if r["status"] == 200 else []
err = json.loads(ev[0]).get("error") if ev and ev[0] != "[DONE]" else None
check(r["status"] == 200 and err and err["code"] == 400 and ev[-1] == "[DONE]" and
      err["message"] == "The input (100 tokens) is longer than the model's context length (64 tokens).",
      "sglang in-stream over-length error: %d %r" % (r["status"], ev or r["body"]))
r = request(url("sglang_ctx"), "/v1/chat/completions",
            json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 62}))
j = json.loads(r["body"])
check(r["status"] == 400 and j.get("object") == "error" and
      j["message"].startswith("Requested token count exceeds the model's maximum context length of 64 tokens."),
      "sglang total over-length: %d %r" % (r["status"], j))
# 5. SGLang's metric names: sglang:num_requests_total, no request_success_total
import urllib.request
met = urllib.request.urlopen(url("sglang") + "/metrics").read().decode()
check("request_success_total" not in met and "\nsglang:num_requests_total{" in met, "sglang request counter names")
#    and SGLang's TokenizerMetricsCollector TTFT / ITL buckets
le = lambda n: [ln.split('le="')[1].split('"')[0] for ln in met.splitlines() if ln.startswith(n + "_bucket{")]
check(le("sglang:time_to_first_token_seconds")[:3] == ["0.1", "0.2", "0.4"] and
      le("sglang:inter_token_latency_seconds")[:2] == ["0.002", "0.004"], "sglang buckets %r" % le("sglang:time_to_first_token_seconds"))
sys.exit(1 if bad else 0)
PY
