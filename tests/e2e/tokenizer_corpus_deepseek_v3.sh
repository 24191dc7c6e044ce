#!/usr/bin/env bash
# tokenizer_corpus_deepseek_v3: genperf tokenize == HF tokenizers (node binding) on every
# corpus line for the deepseek_v3 tokenizer: ids with and without special tokens, decode.
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" deepseek_v3
