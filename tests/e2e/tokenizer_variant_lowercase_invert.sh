#!/usr/bin/env bash
# tokenizer_variant_lowercase_invert: genperf == HF tokenizers on the corpus for a tokenizer.json
# derived from qwen3 with other components swapped in (tests/tokenizer/make_variants.py).
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" qwen3 lowercase_invert
