# tokenizer/module.mk — the fuzz target (clang -fsanitize=fuzzer; not part of `make`).
#   make fuzz-tokenizer
#   GP_FUZZ_TOKENIZER=.cache/tokenizers/llama3 build/fuzz/tokenizer_encode -max_total_time=60

.PHONY: fuzz-tokenizer
fuzz-tokenizer: $(LIB_C)
	@mkdir -p $(BUILD)/fuzz
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Isrc $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
	  -o $(BUILD)/fuzz/tokenizer_encode src/tokenizer/fuzz_tokenize.c $(LIB_C) $(PKG_LIBS) -ldl -lm -pthread
