#!/usr/bin/env bash
# inputs.json is byte-identical to Python's json.dumps(json.load(f), indent=2)
# (GenAI-Perf's writer), for synthetic prompts and a JSONL file with
# non-ASCII text, floats and nested extra inputs; two runs give the same bytes.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
gen="$GP_ROOT/${BUILD:-build}/bench/prompt_gen"
[ -x "$gen" ] || { echo "prompt_gen not built"; exit 1; }
cd "$TMPDIR"
extra='{"temperature":0.7,"top_p":1.0,"eps":1e-05,"big":1e16,"n":3,"ignore_eos":true,"stream_options":{"include_usage":true},"stop":["\n","é"],"x":null}'
"$gen" -n 5 --isl 40 --osl 16 --stream --extra "$extra" --inputs a.json >/dev/null || exit 1
"$gen" -n 5 --isl 40 --osl 16 --stream --extra "$extra" --inputs b.json >/dev/null || exit 1
cmp a.json b.json || { echo "two runs differ"; exit 1; }
printf '%s\n' '{"text": "  caf\u00e9 \ud83d\ude00 \"quoted\" back\\slash / tab\t end  "}' \
  '{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "日本語"}], "max_tokens": 3}' \
  '' \
  '{"payload": {"model": "raw", "messages": [{"role": "user", "content": "x"}], "temperature": 0.1, "logit_bias": {"50256": -100}}}' \
  > p.jsonl
"$gen" --input-file p.jsonl --osl 8 --extra "$extra" --inputs c.json >/dev/null || exit 1
for f in a.json c.json; do
  python3 - "$f" <<'PY' || exit 1
import json, sys
raw = open(sys.argv[1], encoding="utf-8").read()
again = json.dumps(json.loads(raw), indent=2)
if raw != again:
    import difflib
    sys.stdout.writelines(difflib.unified_diff(again.splitlines(True), raw.splitlines(True), "python", "genperf"))
    sys.exit(1)
d = json.loads(raw)
assert all(len(e["payload"]) == 1 for e in d["data"]), "payload must be a 1-element list"
print(sys.argv[1], "matches json.dumps(indent=2):", len(d["data"]), "entries")
PY
done
exit 0
