#!/usr/bin/env bash
# tokenizer_corpus_llama_tok: genperf tokenize == HF tokenizers (node binding) on every
# corpus line for hf-internal-testing/llama-tokenizer (GenAI-Perf's default; rebuilt
# from llama-tokenizer-js): ids with and without special tokens, decode.
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" llama_tok
