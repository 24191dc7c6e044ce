# sched/module.mk — the trace-reader fuzz target and the schedule-floor bench driver.
#   make fuzz-sched                  (clang -fsanitize=fuzzer, not part of `make`)
#   make $(BUILD)/bench/sched_floor  (bench/schedule_bench.sh builds and runs it)

.PHONY: fuzz-sched
# Only what the reader needs (core, sched, dataset's rng/promptgen, tokenizer),
# so other modules' generated headers are not required.
SCHED_FUZZ_SRC := $(foreach f,$(wildcard src/core/*.c src/tokenizer/*.c src/dataset/*.c src/sched/*.c src/metrics/stats.c),$(if $(filter test_% fuzz_% cmd_%,$(notdir $(f))),,$(f)))
fuzz-sched:
	@mkdir -p $(BUILD)/fuzz
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Isrc $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
	  -o $(BUILD)/fuzz/sched_trace src/sched/fuzz_trace.c $(SCHED_FUZZ_SRC) $(PKG_LIBS) -ldl -lm -pthread

$(BUILD)/bench/sched_floor: bench/sched_floor.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGP) $(LDLIBS)
