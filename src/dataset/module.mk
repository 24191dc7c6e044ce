# dataset/module.mk — the prompt-generation benchmark driver.
#   make $(BUILD)/bench/prompt_gen     (bench/prompt_gen_bench.sh builds and runs it)
# The fuzz target (fuzz_jsonl.c) is built by the top Makefile's `make fuzz`.

$(BUILD)/bench/prompt_gen: bench/prompt_gen.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGP) $(LDLIBS)

# The e2e tests use the driver as a small inputs.json generator.
TEST_DEPS += $(BUILD)/bench/prompt_gen
