# dataset/module.mk — the prompt-generation benchmark driver and the fuzz target.
#   make $(BUILD)/bench/prompt_gen     (bench/prompt_gen_bench.sh builds and runs it)
#   make fuzz-dataset                  (clang -fsanitize=fuzzer, not part of `make`)

$(BUILD)/bench/prompt_gen: bench/prompt_gen.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGP) $(LDLIBS)

.PHONY: fuzz-dataset
# Only what the target needs (core, tokenizer, dataset, media), so other modules
# generated headers are not required.
DATASET_FUZZ_SRC := $(foreach f,$(wildcard src/core/*.c src/tokenizer/*.c src/dataset/*.c src/media/*.c),$(if $(filter test_% fuzz_% cmd_%,$(notdir $(f))),,$(f)))
fuzz-dataset:
	@mkdir -p $(BUILD)/fuzz
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Isrc $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
	  -o $(BUILD)/fuzz/dataset_jsonl src/dataset/fuzz_jsonl.c $(DATASET_FUZZ_SRC) $(PKG_LIBS) -ldl -lm -pthread

# The e2e tests use the driver as a small inputs.json generator.
TEST_DEPS += $(BUILD)/bench/prompt_gen
