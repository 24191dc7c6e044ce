# The test-only genperf with a pause inside the ingest's write transaction
# (tests/store/ingest_sleep.c, used by tests/e2e/lib/store_suite.bash). Its
# source lives outside src/*/*.c so the library glob never picks it up, and
# it is built outside $(BUILD)/tests/ because tests/run.sh runs everything there.
STORE_SLEEP_BIN := $(BUILD)/tests-lib/genperf-ingest-sleep
TEST_DEPS += $(STORE_SLEEP_BIN)
$(STORE_SLEEP_BIN): tests/store/ingest_sleep.c $(MAIN_O) $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(LDFLAGS) -Wl,--wrap=ig_insert_records -o $@ $< $(MAIN_O) $(LIBGP) $(LDLIBS)
