#!/usr/bin/env python3
"""tests/engine/make_gguf.py TOKENIZER_JSON OUT.gguf [--layers N] [--embd N] [--ff N] [--heads N] [--seed N]

Writes the reference engine's model: a tiny llama-architecture GGUF (v3,
little-endian, every tensor f32) with seeded random weights and the real
vocabulary of TOKENIZER_JSON (hf-internal-testing/llama-tokenizer, GenAI-Perf's
default tokenizer, fetched by scripts/fetch-tokenizers.sh as llama_tok). No
weights can be downloaded here, so the suite makes its own: its output text is
gibberish, but llama.cpp runs the full forward pass per token, so timing and
token counts are real, and the engine tokenizes exactly as --tokenizer does.

The format is the one documented in ggml's docs/gguf.md: header (magic, version,
tensor count, KV count), KV metadata, tensor infos (name, dims innermost first,
type, offset into the data section), padding to general.alignment, tensor data
(each tensor's start aligned too). Python 3 standard library only.

Only whole-word tokens can come out. Random weights would otherwise emit byte
pieces and word fragments whose text re-tokenizes to another count, and the
client's OSL (a re-tokenization of the text, as in GenAI-Perf) could not be
checked against the engine's completion_tokens. A whole word is "▁" followed by
lowercase ASCII letters that the tokenizer's BPE gives back as this one token
(9,296 of llama_tok's 32,000), so any sequence of them re-tokenizes to the same
tokens. The restriction is built into the weights, so the engine's forward pass
and sampler are untouched: dimension 0 of the residual stream is a constant C
in every token's embedding, no projection reads it and none writes it, so after
the final RMS norm it is about sqrt(n_embd); the output row of every other token
weighs it by -PENALTY, which puts those logits ~60 below the words'.

The tokenizer is written as llama.cpp's "llama" (SentencePiece) model: tokens in
id order, token types (normal, unknown, control, byte) and scores. A SentencePiece
BPE merges the adjacent pair whose result has the highest score, where the HF
file ranks merges; a token's score is minus the rank of the first merge that
produces it, so both apply the same merges in the same order.
"""
import argparse
import json
import os
import random
import re
import struct
import sys

ALIGN = 32
# GGUF value types (ggml docs/gguf.md).
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY = 4, 5, 6, 7, 8, 9
# llama.cpp token types.
TT_NORMAL, TT_UNKNOWN, TT_CONTROL, TT_BYTE = 1, 2, 3, 6
GGML_F32 = 0
CONST, PENALTY = 1.0, 8.0


def gguf_str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, value):
    out = gguf_str(key) + struct.pack("<I", vtype)
    if vtype == T_STRING:
        return out + gguf_str(value)
    if vtype == T_UINT32:
        return out + struct.pack("<I", value)
    if vtype == T_INT32:
        return out + struct.pack("<i", value)
    if vtype == T_FLOAT32:
        return out + struct.pack("<f", value)
    if vtype == T_BOOL:
        return out + struct.pack("<B", 1 if value else 0)
    raise ValueError(vtype)


def kv_array(key, etype, values):
    out = [gguf_str(key), struct.pack("<IIQ", T_ARRAY, etype, len(values))]
    if etype == T_STRING:
        out.extend(gguf_str(v) for v in values)
    elif etype == T_FLOAT32:
        out.append(struct.pack("<%df" % len(values), *values))
    elif etype == T_INT32:
        out.append(struct.pack("<%di" % len(values), *values))
    else:
        raise ValueError(etype)
    return b"".join(out)


def vocabulary(path):
    tj = json.load(open(path, encoding="utf-8"))
    model = tj["model"]
    if model.get("type") != "BPE" or not model.get("byte_fallback"):
        sys.exit("make_gguf: %s is not a SentencePiece-style BPE tokenizer (byte_fallback): "
                 "give hf-internal-testing/llama-tokenizer's tokenizer.json" % path)
    vocab = model["vocab"]
    n = len(vocab)
    tokens = [None] * n
    for s, i in vocab.items():
        tokens[i] = s
    if any(t is None for t in tokens):
        sys.exit("make_gguf: %s: vocabulary ids are not 0..%d" % (path, n - 1))
    rank, made = {}, {}
    for r, m in enumerate(model["merges"]):
        a, b = m.split(" ", 1) if isinstance(m, str) else m
        rank.setdefault((a, b), r)
        made.setdefault(a + b, r)
    special = {t["content"]: t["id"] for t in tj.get("added_tokens", [])}
    scores, types = [], []
    for i, t in enumerate(tokens):
        if t == model.get("unk_token", "<unk>"):
            types.append(TT_UNKNOWN)
        elif t in special:
            types.append(TT_CONTROL)
        elif len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
            types.append(TT_BYTE)
        else:
            types.append(TT_NORMAL)
        # Tokens no merge produces (single characters) are never a merge
        # result, so their score only needs to rank below every merge's.
        scores.append(-float(made.get(t, len(model["merges"]) + i)))
    words = [i for i, t in enumerate(tokens) if WORD.match(t) and bpe(t, rank) == [t]]
    return tokens, scores, types, words, special.get("<s>", 1), special.get("</s>", 2), special.get("<unk>", 0)


WORD = re.compile("^\u2581[a-z]+$")


def bpe(word, rank):
    """The HF BPE of one word: merge the adjacent pair of lowest rank until none is left."""
    sym = list(word)
    while len(sym) > 1:
        best = min(range(len(sym) - 1), key=lambda k: rank.get((sym[k], sym[k + 1]), 1 << 62))
        if (sym[best], sym[best + 1]) not in rank:
            break
        sym[best:best + 2] = [sym[best] + sym[best + 1]]
    return sym


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tokenizer_json")
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--embd", type=int, default=64)
    ap.add_argument("--ff", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ctx", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=29)
    a = ap.parse_args()
    if a.embd % a.heads:
        sys.exit("make_gguf: --embd %d is not a multiple of --heads %d" % (a.embd, a.heads))

    tokens, scores, types, words, bos, eos, unk = vocabulary(a.tokenizer_json)
    n_vocab, E, F = len(tokens), a.embd, a.ff
    meta = [
        kv("general.architecture", T_STRING, "llama"),
        kv("general.name", T_STRING, "genperf-engine-test-llama-%dL-%d" % (a.layers, E)),
        kv("general.alignment", T_UINT32, ALIGN),
        kv("llama.context_length", T_UINT32, a.ctx),
        kv("llama.embedding_length", T_UINT32, E),
        kv("llama.block_count", T_UINT32, a.layers),
        kv("llama.feed_forward_length", T_UINT32, F),
        kv("llama.attention.head_count", T_UINT32, a.heads),
        kv("llama.attention.head_count_kv", T_UINT32, a.heads),
        kv("llama.rope.dimension_count", T_UINT32, E // a.heads),
        kv("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, 1e-5),
        kv("llama.vocab_size", T_UINT32, n_vocab),
        kv("tokenizer.ggml.model", T_STRING, "llama"),
        kv_array("tokenizer.ggml.tokens", T_STRING, tokens),
        kv_array("tokenizer.ggml.scores", T_FLOAT32, scores),
        kv_array("tokenizer.ggml.token_type", T_INT32, types),
        kv("tokenizer.ggml.bos_token_id", T_UINT32, bos),
        kv("tokenizer.ggml.eos_token_id", T_UINT32, eos),
        kv("tokenizer.ggml.unknown_token_id", T_UINT32, unk),
        kv("tokenizer.ggml.add_bos_token", T_BOOL, True),
        kv("tokenizer.ggml.add_eos_token", T_BOOL, False),
    ]

    # (name, dims innermost first, init std; None = ones for RMS norms)
    specs = [("token_embd.weight", [E, n_vocab], 0.02)]
    for i in range(a.layers):
        p = "blk.%d." % i
        specs += [(p + "attn_norm.weight", [E], None),
                  (p + "attn_q.weight", [E, E], 0.02),
                  (p + "attn_k.weight", [E, E], 0.02),
                  (p + "attn_v.weight", [E, E], 0.02),
                  (p + "attn_output.weight", [E, E], 0.02),
                  (p + "ffn_norm.weight", [E], None),
                  (p + "ffn_gate.weight", [E, F], 0.02),
                  (p + "ffn_up.weight", [E, F], 0.02),
                  (p + "ffn_down.weight", [F, E], 0.02)]
    specs += [("output_norm.weight", [E], None), ("output.weight", [E, n_vocab], 0.02)]

    infos, offset = [], 0
    for name, dims, _ in specs:
        infos.append(gguf_str(name) + struct.pack("<I", len(dims)) +
                     struct.pack("<%dQ" % len(dims), *dims) + struct.pack("<IQ", GGML_F32, offset))
        size = 4
        for d in dims:
            size *= d
        offset += (size + ALIGN - 1) // ALIGN * ALIGN

    # Dimension 0 carries the constant (see the docstring): zero where a
    # projection would read it (column 0 of the input dim) or write it.
    ignore_in = {"attn_q", "attn_k", "attn_v", "ffn_gate", "ffn_up"}
    ignore_out = {"attn_output", "ffn_down"}
    is_word = bytearray(n_vocab)
    for i in words:
        is_word[i] = 1
    rng = random.Random(a.seed)
    with open(a.out + ".tmp", "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, len(specs), len(meta)))
        for m in meta:
            f.write(m)
        for t in infos:
            f.write(t)
        f.write(b"\0" * (-f.tell() % ALIGN))
        for name, dims, std in specs:
            n = 1
            for d in dims:
                n *= d
            if std is None:
                vals = [1.0] * n
            else:
                g = rng.gauss
                vals = [g(0.0, std) for _ in range(n)]
            kind = name.split(".")[-2]
            inner = dims[0]
            if kind in ignore_in:
                vals[0::inner] = [0.0] * (n // inner)
            elif kind in ignore_out:
                vals[0:inner] = [0.0] * inner
            elif kind == "token_embd":
                vals[0::inner] = [CONST] * (n // inner)
            elif kind == "output":
                vals[0::inner] = [0.0 if is_word[v] else -PENALTY for v in range(n_vocab)]
            f.write(struct.pack("<%df" % n, *vals))
            f.write(b"\0" * (-f.tell() % ALIGN))
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
