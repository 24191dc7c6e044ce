# sched/module.mk — the schedule-floor bench driver.
#   make $(BUILD)/bench/sched_floor  (bench/schedule_bench.sh builds and runs it)
# The fuzz target (fuzz_trace.c) is built and run by the top Makefile's `make fuzz`.

$(BUILD)/bench/sched_floor: bench/sched_floor.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGP) $(LDLIBS)
