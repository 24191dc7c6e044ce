#!/usr/bin/env bash
# dataset_isl_gpt4o: exact synthetic ISL with the gpt4o tokenizer, checked by genperf's
# tokenizer and by HF tokenizers (skips when the tokenizer.json is absent).
exec bash "$GP_ROOT/tests/dataset/isl_family.sh" gpt4o
