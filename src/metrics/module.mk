# metrics/ and export/ extra rules: the post-processing benchmark driver and
# the NumPy comparison helper. The library sources (jscan.c, event.c,
# responses.c, anthropic.c, ...) need no list: the top Makefile takes every
# src/metrics/*.c. The fuzz targets (fuzz_sse.c, fuzz_responses.c,
# fuzz_anthropic.c, which share fuzz_wire.inc) are built by `make fuzz`.
#
#   make $(BUILD)/bench/postprocess   the 1M-record post-processing driver
$(BUILD)/bench/postprocess: bench/postprocess.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ bench/postprocess.c $(LIBGP) $(LDLIBS)

# helper for tests/e2e/metrics_numpy_stats.sh (not a unit test: lives outside $(BUILD)/tests)
$(BUILD)/tools/metrics_statcli: tests/metrics/statcli.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/metrics/statcli.c $(LIBGP) $(LDLIBS)
TEST_DEPS += $(BUILD)/tools/metrics_statcli
