#!/usr/bin/env bash
# dataset_isl_gptoss: exact synthetic ISL with the gptoss tokenizer, checked by genperf's
# tokenizer and by HF tokenizers (skips when the tokenizer.json is absent).
exec bash "$GP_ROOT/tests/dataset/isl_family.sh" gptoss
