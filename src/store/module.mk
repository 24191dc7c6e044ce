# store/module.mk — the ingest fuzz target (not part of `make`).
#   make fuzz-store    build $(BUILD)/fuzz/store_ingest (clang, libFuzzer + ASan + UBSan)
#   $(BUILD)/fuzz/store_ingest -max_total_time=60 CORPUS_DIR
STORE_FUZZ_SRC := $(filter src/store/% src/core/%,$(LIB_C))
.PHONY: fuzz-store
fuzz-store: $(BUILD)/fuzz/store_ingest
$(BUILD)/fuzz/store_ingest: src/store/fuzz_ingest.c $(STORE_FUZZ_SRC)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Isrc $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
	  -o $@ src/store/fuzz_ingest.c $(STORE_FUZZ_SRC) $(PKG_LIBS) -ldl -lm -pthread

# The test-only genperf with a pause inside the ingest's write transaction
# (tests/store/ingest_sleep.c, used by tests/e2e/lib/store_suite.bash). Its
# source lives outside src/*/*.c so the library glob never picks it up, and
# it is built outside $(BUILD)/tests/ because tests/run.sh runs everything there.
STORE_SLEEP_BIN := $(BUILD)/tests-lib/genperf-ingest-sleep
TEST_DEPS += $(STORE_SLEEP_BIN)
$(STORE_SLEEP_BIN): tests/store/ingest_sleep.c $(MAIN_O) $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(LDFLAGS) -Wl,--wrap=ig_insert_records -o $@ $< $(MAIN_O) $(LIBGP) $(LDLIBS)
