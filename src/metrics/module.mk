# metrics/ and export/ extra rules (the fuzz target links the rest, e.g. the
# tokenizer, from the library): the SSE fuzz target and the
# post-processing benchmark driver.
#
#   make fuzz-sse                 build $(BUILD)/fuzz_sse (clang, libFuzzer+ASan)
#   make $(BUILD)/bench/postprocess   the 1M-record post-processing driver
FUZZ_CC ?= clang

.PHONY: fuzz-sse
fuzz-sse: $(BUILD)/fuzz_sse
$(BUILD)/fuzz_sse: src/metrics/fuzz_sse.c src/metrics/sse.c src/metrics/metrics.c src/metrics/stats.c \
                   src/client/record.c src/core/buf.c src/core/error.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc $(PKG_CFLAGS) \
	    src/metrics/fuzz_sse.c src/metrics/sse.c src/metrics/metrics.c src/metrics/stats.c \
	    src/client/record.c src/core/buf.c src/core/error.c \
	    -o $@ $(LIBGP) $(PKG_LIBS) -ldl -lm -pthread

$(BUILD)/bench/postprocess: bench/postprocess.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ bench/postprocess.c $(LIBGP) $(LDLIBS)

# helper for tests/e2e/metrics_numpy_stats.sh (not a unit test: lives outside $(BUILD)/tests)
$(BUILD)/tools/metrics_statcli: tests/metrics/statcli.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/metrics/statcli.c $(LIBGP) $(LDLIBS)
TEST_DEPS += $(BUILD)/tools/metrics_statcli
