#!/usr/bin/env bash
# tokenizer_corpus_llama2: genperf tokenize == HF tokenizers (node binding) on every
# corpus line for the llama2 tokenizer: ids with and without special tokens, decode.
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" llama2
