#!/usr/bin/env bash
# The reference engine tokenizes as genperf's --tokenizer does (issue 29 item 1):
# llama.cpp loading tests/engine/make_gguf.py's model (vocabulary of llama_tok,
# written as a SentencePiece model with merge-rank scores) gives the same ids as
# `genperf tokenize --tokenizer llama_tok` on every line of the tokenizer corpus
# (tests/tokenizer/corpus.txt and corpus.jsonl), but the lines holding the text
# of a special token (<s>, </s>, <unk>): the HF tokenizer matches those as the
# special tokens, the engine keeps prompt text as text. Skips (77) when the
# engine cannot be fetched or loaded.
. "$GP_ROOT/tests/e2e/engine_common.inc"
engine_setup
cd "$TMPDIR"
corpus=$GP_ROOT/tests/tokenizer
for c in txt jsonl; do
  mode=(); [ $c = jsonl ] && mode=(--jsonl)
  node "$GP_ROOT/tests/engine/tokenize.mjs" "$MODULES" "$MODEL" "${mode[@]}" <"$corpus/corpus.$c" >engine.$c.ids 2>engine.$c.err ||
    { cat engine.$c.err; echo "skip: the reference engine does not load its model here (see above)"; exit 77; }
  "$GENPERF" tokenize --tokenizer "$TOK" "${mode[@]}" <"$corpus/corpus.$c" >genperf.$c.ids || fail "genperf tokenize"
done
python3 - "$corpus" <<'PY' || fail "the engine and genperf tokenize differently"
import json, sys
same = special = 0
bad = []
for c in ("txt", "jsonl"):
    texts = open(sys.argv[1] + "/corpus." + c, encoding="utf-8", errors="surrogateescape").read().split("\n")[:-1]
    if c == "jsonl":
        texts = [json.loads(t) for t in texts]
    eng = [json.loads(l) for l in open("engine.%s.ids" % c)]
    gp = [json.loads(l) for l in open("genperf.%s.ids" % c)]
    assert len(eng) == len(gp) == len(texts), (c, len(eng), len(gp), len(texts))
    for t, e, g in zip(texts, eng, gp):
        if any(s in t for s in ("<s>", "</s>", "<unk>")):
            special += 1
        elif e == g:
            same += 1
        else:
            bad.append((t, e, g))
print("%d corpus texts tokenized alike by the engine and genperf, %d with special-token text left out" % (same, special))
for t, e, g in bad[:5]:
    print("differ: %r\n  engine  %s\n  genperf %s" % (t, e, g))
assert not bad and same >= 120, "%d differ" % len(bad)
PY
echo ok
