#!/usr/bin/env bash
# dataset_isl_llama2: exact synthetic ISL with the llama2 tokenizer, checked by genperf's
# tokenizer and by HF tokenizers (skips when the tokenizer.json is absent).
exec bash "$GP_ROOT/tests/dataset/isl_family.sh" llama2
