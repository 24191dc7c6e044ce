#!/usr/bin/env bash
# tokenizer_corpus_qwen3: genperf tokenize == HF tokenizers (node binding) on every
# corpus line for the qwen3 tokenizer: ids with and without special tokens, decode.
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" qwen3
