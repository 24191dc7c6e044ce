#!/usr/bin/env bash
# tokenizer_variant_split_behaviors: genperf == HF tokenizers on the corpus for a tokenizer.json
# derived from llama3 with other components swapped in (tests/tokenizer/make_variants.py).
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" llama3 split_behaviors
