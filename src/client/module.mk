# client/module.mk — the client-side timing floor bench driver.
#   make $(BUILD)/bench/timing_floor  (bench/timing_bench.sh and bench/ttft_start_bench.sh build and run it)

$(BUILD)/bench/timing_floor: bench/timing_floor.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGP) $(LDLIBS)
