#!/usr/bin/env bash
# bench/tokenizer_bench.sh [family...] — encode throughput, one thread,
# genperf vs HF tokenizers (Rust core via the node binding) on the same text,
# per family; prints MB/s, tokens/s and the ratio genperf/HF. Goal: >= 1.5x.
#
# The text: bench/out/tokenizer_text.txt, built once from the test corpus
# (valid UTF-8 lines, many scripts) shuffled into ~1 KB prompt-like lines, 1 MB
# in all. Both sides encode line by line with add_special_tokens=false and
# must produce the same number of tokens (checked). Needs
# scripts/fetch-tokenizers.sh to have run. Env: BENCH_SECONDS (default 3).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
cache=${GENPERF_CACHE:-$root/.cache}
secs=${BENCH_SECONDS:-3}
cd "$root"
make -s -j2 "$BUILD/genperf" >/dev/null
bash scripts/fetch-tokenizers.sh "$@" >/dev/null
mkdir -p bench/out
text=bench/out/tokenizer_text.txt
if [ ! -s "$text" ]; then
  # deterministic: awk's srand(1); invalid-UTF-8 lines are left out
  python3 - "$text" <<'PY'
import random, sys
random.seed(1)
lines = []
for raw in open("tests/tokenizer/corpus.txt", "rb").read().split(b"\n"):
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        continue
    if s.strip():
        lines.append(s)
words = " ".join(lines).split(" ")
out, size = [], 0
while size < 1_000_000:
    n = random.randint(100, 250)
    start = random.randrange(len(words))
    line = " ".join(words[(start + i) % len(words)] for i in range(n))
    out.append(line)
    size += len(line.encode())
open(sys.argv[1], "w", encoding="utf-8").write("\n".join(out) + "\n")
PY
fi
# the same text with every 64 lines joined into one (~100 KB): per-call overhead (large in
# the node binding) then matters little, which shows the Rust core's own speed
text64=bench/out/tokenizer_text_64k.txt
[ -s "$text64" ] || awk '{ printf "%s%s", (NR % 64 == 1 ? "" : " "), $0; if (NR % 64 == 0) printf "\n" } END { if (NR % 64) printf "\n" }' "$text" >"$text64"
fams=("$@")
[ ${#fams[@]} -eq 0 ] && fams=(llama3 qwen3 llama2 gpt4o deepseek_v3 gptoss llama_tok)
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)
rc=0
for t in "$text" "$text64"; do
echo "text: $t ($(wc -c <"$t") bytes, $(wc -l <"$t") lines, one encode call per line)"
printf '%-12s %10s %12s %10s %12s %7s\n' family gp_MB/s gp_tok/s hf_MB/s hf_tok/s ratio
for f in "${fams[@]}"; do
  tj=$cache/tokenizers/$f/tokenizer.json
  g=$("${pin[@]}" "$BUILD/genperf" tokenize --tokenizer "$tj" --bench "$t" --bench-seconds "$secs")
  h=$(RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false "${pin[@]}" node bench/tokenizer_bench.js "$tj" "$t" "$secs")
  python3 - "$f" "$g" "$h" <<'PY' || rc=1
import json, sys
f, g, h = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
gt, ht = g["tokens"] / g["iters"], h["tokens"] / h["iters"]
r = g["mb_per_s"] / h["mb_per_s"]
print("%-12s %10.2f %12.0f %10.2f %12.0f %6.2fx%s" % (f, g["mb_per_s"], g["tokens_per_s"], h["mb_per_s"],
      h["tokens_per_s"], r, "" if gt == ht else "  TOKEN COUNT MISMATCH %d vs %d" % (gt, ht)))
sys.exit(0 if gt == ht else 1)
PY
done
done
exit $rc
