#!/usr/bin/env bash
# dataset_isl_llama3: exact synthetic ISL with the llama3 tokenizer, checked by genperf's
# tokenizer and by HF tokenizers (skips when the tokenizer.json is absent).
exec bash "$GP_ROOT/tests/dataset/isl_family.sh" llama3
