#!/usr/bin/env python3
"""tests/tokenizer/make_variants.py CACHE [NAME...] — derived tokenizer.json files that
exercise components no fetched family uses (Metaspace, Split behaviors and
invert, String patterns, NFC/Lowercase/Strip/Replace/Prepend normalizers, ByteLevel with
the GPT-2 regex and add_prefix_space, lstrip/rstrip/single_word added tokens,
Metaspace decoder). Each is built from a fetched file by swapping components
and written to CACHE/tokenizer-variants/v_<name>/tokenizer.json (not under
tokenizers/, which other tests glob as "the real families"); the corpus test then
compares genperf with HF on them like on the real families.
"""
import copy, json, os, sys

cache = sys.argv[1]
only = set(sys.argv[2:])  # variant names (without v_); default all
base = lambda fam: json.load(open(os.path.join(cache, "tokenizers", fam, "tokenizer.json"), encoding="utf-8"))
SP = "\u2581"
out = {}

t = base("llama2")  # SentencePiece-style, as transformers writes non-legacy Llama files
t["normalizer"] = None
t["pre_tokenizer"] = {"type": "Metaspace", "replacement": SP, "prepend_scheme": "first", "split": False}
t["decoder"] = {"type": "Metaspace", "replacement": SP, "prepend_scheme": "first", "split": False}
for a in t["added_tokens"]:
    if a["content"] == "</s>": a["rstrip"] = True
    if a["content"] == "<s>": a["lstrip"] = True
    if a["content"] == "<unk>": a["single_word"] = True
out["metaspace_first"] = t

t = copy.deepcopy(t)
t["pre_tokenizer"] = {"type": "Metaspace", "replacement": SP, "prepend_scheme": "always", "split": True}
t["decoder"] = {"type": "Metaspace", "replacement": SP, "prepend_scheme": "always", "split": True}
t["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Strip", "strip_left": True, "strip_right": True}]}
out["metaspace_always_split"] = t

t = base("gpt4o")
t["normalizer"] = {"type": "NFC"}
t["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
t["post_processor"] = {"type": "RobertaProcessing", "sep": ["<|endoftext|>", 199999], "cls": ["<|endoftext|>", 199999],
                       "trim_offsets": True, "add_prefix_space": True}
out["gpt2_regex_prefix"] = t

t = base("llama3")
t["normalizer"] = {"type": "Sequence", "normalizers": [
    {"type": "Replace", "pattern": {"String": "  "}, "content": " \u00b7 "}, {"type": "Prepend", "prepend": "\u00bb"}]}
t["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "MergedWithPrevious", "invert": False},
    {"type": "Split", "pattern": {"String": "e"}, "behavior": "Contiguous", "invert": False},
    {"type": "Split", "pattern": {"Regex": "\\p{N}|[\\p{P}\\p{S}]+"}, "behavior": "MergedWithNext", "invert": True},
    {"type": "Split", "pattern": {"Regex": "(?i:th)"}, "behavior": "Removed", "invert": False},
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}
for a in t["added_tokens"]:
    if a["content"] == "<|eot_id|>": a["lstrip"] = a["rstrip"] = True
    if a["content"] == "<|end_header_id|>": a["normalized"] = True
out["split_behaviors"] = t

t = base("qwen3")
t["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]}
t["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "MergedWithPrevious"
t["pre_tokenizer"]["pretokenizers"][0]["invert"] = True
for a in t["added_tokens"]:
    if a["content"] == "<think>": a["single_word"] = True
out["lowercase_invert"] = t

for name, tj in out.items():
    if only and name not in only:
        continue
    d = os.path.join(cache, "tokenizer-variants", "v_" + name)
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, "tokenizer.json.tmp")
    json.dump(tj, open(tmp, "w", encoding="utf-8"), ensure_ascii=False)
    os.replace(tmp, os.path.join(d, "tokenizer.json"))
    print("v_" + name)
