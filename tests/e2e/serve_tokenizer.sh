#!/usr/bin/env bash
# serve_tokenizer: with a real tokenizer (one byte-level BPE and one SentencePiece family
# when cached), the emitted text re-tokenizes to exactly usage.completion_tokens, so a
# client counting output tokens agrees with the server.
set -u
command -v curl >/dev/null || { echo "curl not installed"; exit 77; }
cache=${GENPERF_CACHE:-$GP_ROOT/.cache}/tokenizers
fams=()
for f in llama3 qwen3 gpt4o; do [ -f "$cache/$f/tokenizer.json" ] && { fams+=($f); break; }; done
[ -f "$cache/llama2/tokenizer.json" ] && fams+=(llama2)
[ ${#fams[@]} -gt 0 ] || { echo "no cached tokenizer under $cache (scripts/fetch-tokenizers.sh fetches them)"; exit 77; }
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
for f in "${fams[@]}"; do
  tj="$cache/$f/tokenizer.json"
  rm -f "$TMPDIR/url"
  "$GENPERF" serve --quiet --port 0 --port-file "$TMPDIR/url" --zero-delay --tokenizer "$tj" \
      >/dev/null 2>"$TMPDIR/err" & pid=$!
  for _ in $(seq 600); do [ -s "$TMPDIR/url" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
  [ -s "$TMPDIR/url" ] || { echo "FAIL $f: server did not start"; cat "$TMPDIR/err"; exit 1; }
  grep -q warning "$TMPDIR/err" && { echo "FAIL $f: $(cat "$TMPDIR/err")"; exit 1; }
  url=$(cat "$TMPDIR/url")
  : >"$TMPDIR/text.jsonl"; : >"$TMPDIR/usage"
  printf '"%s"\n' "The quick brown fox jumps over the lazy dog." >>"$TMPDIR/text.jsonl"
  for stream in false true; do
    curl -sS -N "$url/v1/chat/completions" -H 'Content-Type: application/json' \
      -d '{"model":"m","messages":[{"role":"user","content":"The quick brown fox jumps over the lazy dog."}],"max_tokens":257,"stream":'$stream',"stream_options":'$([ $stream = true ] && echo '{"include_usage":true}' || echo null)'}' \
      >"$TMPDIR/resp"
    python3 - "$TMPDIR/resp" "$stream" >>"$TMPDIR/text.jsonl" 2>>"$TMPDIR/usage" <<'PY' || { echo "FAIL $f: bad response"; head -c 600 "$TMPDIR/resp"; exit 1; }
import json, sys
raw = open(sys.argv[1]).read()
if sys.argv[2] == "true":
    objs = [json.loads(l[6:]) for l in raw.split("\n") if l.startswith("data: {")]
    text = "".join((o["choices"][0]["delta"].get("content") or "") for o in objs if o["choices"])
    usage = objs[-1]["usage"]
else:
    d = json.loads(raw); text = d["choices"][0]["message"]["content"]; usage = d["usage"]
print(json.dumps(text)); print(usage["prompt_tokens"], usage["completion_tokens"], file=sys.stderr)
PY
  done
  # one tokenizer load: the prompt, then both outputs
  counts=$("$GENPERF" tokenize --tokenizer "$tj" --jsonl --count <"$TMPDIR/text.jsonl" | tr '\n' ' ')
  read -r p1 c1 <<<"$(sed -n 1p "$TMPDIR/usage")"; read -r p2 c2 <<<"$(sed -n 2p "$TMPDIR/usage")"
  want="$p1 257 257 "
  [ "$p1" = "$p2" ] && [ "$c1" = 257 ] && [ "$c2" = 257 ] && [ "$counts" = "$want" ] ||
    { echo "FAIL $f: usage prompt=$p1/$p2 completion=$c1/$c2, client counts '$counts' (want '$want')"; exit 1; }
  kill $pid; wait $pid; pid=
  echo "ok $f"
done
