#!/usr/bin/env bash
# tokenizer_variant_gpt2_regex_prefix: genperf == HF tokenizers on the corpus for a tokenizer.json
# derived from gpt4o with other components swapped in (tests/tokenizer/make_variants.py).
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" gpt4o gpt2_regex_prefix
