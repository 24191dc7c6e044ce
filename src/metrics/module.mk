# metrics/ and export/ extra rules: the post-processing benchmark driver and
# the NumPy comparison helper. The SSE fuzz target (fuzz_sse.c) is built by the
# top Makefile's `make fuzz`.
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
