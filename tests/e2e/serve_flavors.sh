#!/usr/bin/env bash
# serve_flavors: each --flavor's wire shapes (role chunk, finish placement, usage chunk,
# reasoning field, TRT-LLM's trailing space, error shapes), exact token counts
# (chunks == usage == re-tokenized text with the builtin tokenizer), completions,
# continuous usage, non-streamed bodies, per-flavour metrics names.
set -u
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null' EXIT
for fl in vllm sglang trtllm; do
  "$GENPERF" serve --quiet --port 0 --port-file "$TMPDIR/url.$fl" --flavor $fl --zero-delay \
      --reasoning 2 --seed 3 >/dev/null &
  pids+=($!)
done
for fl in vllm sglang trtllm; do
  for _ in $(seq 100); do [ -s "$TMPDIR/url.$fl" ] && break; sleep 0.05; done
done
PYTHONPATH="$GP_ROOT/tests/e2e" python3 - "$TMPDIR" <<'PY'
import json, sys, urllib.request
from serve_client import request, sse_events
tmp = sys.argv[1]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what); print("FAIL", what)

for fl in ("vllm", "sglang", "trtllm"):
    url = open("%s/url.%s" % (tmp, fl)).read().strip()
    body = {"model": "req-model", "messages": [{"role": "user", "content": "count me please"}],
            "max_tokens": 9, "stream": True, "stream_options": {"include_usage": True}}
    r = request(url, "/v1/chat/completions", json.dumps(body))
    check(r["status"] == 200 and r["terminated"], fl + " stream status/terminator")
    check(r["headers"].get("content-type") == "text/event-stream; charset=utf-8", fl + " content-type")
    ev = [e for _, e in sse_events(r["chunks"])]
    check(ev[-1] == "[DONE]", fl + " [DONE] last")
    objs = [json.loads(e) for e in ev[:-1]]
    usage = objs[-1]["usage"]
    check(objs[-1]["choices"] == [], fl + " usage chunk has choices []")
    check(usage["completion_tokens"] == 9 and usage["prompt_tokens"] == 15 and usage["total_tokens"] == 24,
          fl + " usage numbers %r" % usage)
    rfield = "reasoning" if fl == "vllm" else "reasoning_content"
    content = reasoning = ""
    ntok = 0
    for o in objs[:-1]:
        d = o["choices"][0]["delta"]
        c, rs = d.get("content") or "", d.get(rfield) or ""
        if c or rs:
            ntok += 1
        content += c; reasoning += rs
        check(o["object"] == "chat.completion.chunk", fl + " object")
    check(ntok == 9, fl + " token chunks %d" % ntok)
    # builtin tokenizer: one byte per token, so the client's count equals usage
    check(len(content) + len(reasoning) == 9 and len(reasoning) == 2, fl + " text lengths")
    first = objs[0]["choices"][0]
    if fl == "vllm":
        check(first["delta"] == {"role": "assistant", "content": ""} and first["finish_reason"] is None, "vllm role")
        check(objs[0]["model"] == "genperf-sim", "vllm answers with the served name")
        last = objs[-2]["choices"][0]
        check(last["finish_reason"] == "length" and "stop_reason" in last and last["delta"].get("content"),
              "vllm finish on last content chunk")
        check(usage.get("completion_tokens_details") == {"reasoning_tokens": 2}, "vllm reasoning_tokens")
    elif fl == "sglang":
        check(first["delta"] == {"role": "assistant", "content": ""} and "matched_stop" in first, "sglang role")
        check(objs[0]["model"] == "req-model", "sglang echoes the model")
        fin = objs[-2]["choices"][0]
        check(fin["delta"] == {} and fin["finish_reason"] == "length", "sglang separate finish chunk")
        check(usage.get("reasoning_tokens") == 2 and usage.get("prompt_tokens_details", 1) is None, "sglang usage")
    else:
        check(ev[0].endswith("} ") and first["delta"] == {"role": "assistant"}, "trtllm role chunk + trailing space")
        check(all(not e.endswith(" ") for e in ev[1:]), "trtllm: only the first event has the space")
        last = objs[-2]["choices"][0]
        check(last["finish_reason"] == "length" and last["delta"].get("reasoning_content") == "", "trtllm last")
        check(usage.get("prompt_tokens_details") == {"cached_tokens": 0}, "trtllm cached_tokens")

    # continuous usage stats: cumulative per chunk
    body2 = dict(body, stream_options={"include_usage": True, "continuous_usage_stats": True})
    r = request(url, "/v1/chat/completions", json.dumps(body2))
    objs = [json.loads(e) for _, e in sse_events(r["chunks"]) if e != "[DONE]"]
    counts = [o["usage"]["completion_tokens"] for o in objs if o.get("choices")]
    check(counts[0] == 0 and counts[-1] == 9 and counts == sorted(counts), fl + " continuous usage %r" % counts)

    # completions, streamed and not
    cb = {"model": "req-model", "prompt": "abc", "max_tokens": 5, "stream": True}
    r = request(url, "/v1/completions", json.dumps(cb))
    objs = [json.loads(e) for _, e in sse_events(r["chunks"]) if e != "[DONE]"]
    txt = "".join(o["choices"][0]["text"] for o in objs if o["choices"])
    check(len(txt) == 5 and all(o["object"] == "text_completion" for o in objs), fl + " completions stream")
    check(objs[-1]["choices"][0]["finish_reason"] == "length", fl + " completions finish")
    cb["stream"] = False
    r = request(url, "/v1/completions", json.dumps(cb))
    j = json.loads(r["body"])
    check(len(j["choices"][0]["text"]) == 5 and j["usage"]["completion_tokens"] == 5, fl + " completions body")
    r = request(url, "/v1/chat/completions", json.dumps(dict(body, stream=False, stream_options=None)))
    j = json.loads(r["body"]) if r["status"] == 200 else None
    if j:
        m = j["choices"][0]["message"]
        check(len(m["content"]) + len(m.get(rfield) or "") == 9 and j["usage"]["completion_tokens"] == 9,
              fl + " chat body")
    else:
        check(False, fl + " chat body status %d" % r["status"])

    # errors in the flavour's shape
    r = request(url, "/v1/chat/completions", '{"model":"m","messages":"nope"}')
    j = json.loads(r["body"])
    check(r["status"] == 400, fl + " 400 on bad messages")
    if fl == "vllm":
        check(isinstance(j.get("error"), dict) and j["error"]["code"] == 400, "vllm error shape")
    elif fl == "sglang":
        check(j.get("object") == "error" and j.get("code") == 400, "sglang error shape")
    r = request(url, "/v1/chat/completions", json.dumps(dict(body, stream=False, stream_options=None, foo=1)))
    if fl == "trtllm":
        check(r["status"] == 400 and isinstance(json.loads(r["body"])["error"], str), "trtllm rejects unknown fields")
        r = request(url, "/v1/chat/completions", json.dumps({"messages": body["messages"]}))
        check(r["status"] == 400, "trtllm requires model")
    else:
        check(r["status"] == 200, fl + " ignores unknown fields")

    met = urllib.request.urlopen(url + ("/prometheus/metrics" if fl == "trtllm" else "/metrics")).read().decode()
    prefix = {"vllm": "vllm:", "sglang": "sglang:", "trtllm": "trtllm_"}[fl]
    check(prefix + "generation_tokens_total" in met and prefix + "time_to_first_token_seconds_bucket" in met,
          fl + " metrics names")
    if fl == "sglang":
        check(urllib.request.urlopen(url + "/health_generate").status == 200, "sglang /health_generate")
sys.exit(1 if bad else 0)
PY
