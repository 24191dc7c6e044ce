#!/usr/bin/env bash
# tokenizer_variant_metaspace_first: genperf == HF tokenizers on the corpus for a tokenizer.json
# derived from llama2 with other components swapped in (tests/tokenizer/make_variants.py).
exec bash "$GP_ROOT/tests/tokenizer/e2e_family.sh" llama2 metaspace_first
