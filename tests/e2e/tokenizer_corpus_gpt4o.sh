#!/usr/bin/env bash
# tokenizer_corpus_gpt4o: genperf tokenize == HF tokenizers (node binding) on every
# corpus line for the gpt4o tokenizer: ids with and without special tokens, decode.
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" gpt4o
