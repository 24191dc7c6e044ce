# telemetry/module.mk — the fake NVML library used only by the telemetry tests.
# Its source lives outside src/*/*.c so the library glob never picks it up,
# and it is built outside $(BUILD)/tests/ because tests/run.sh executes
# everything there.
FAKE_NVML := $(BUILD)/tests-lib/libfake_nvml.so
TEST_DEPS += $(FAKE_NVML)

$(FAKE_NVML): tests/fake_nvml/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fPIC -shared -o $@ $<

# Fuzz target for the Prometheus parser (clang only): make fuzz-telemetry
.PHONY: fuzz-telemetry
fuzz-telemetry:
	@mkdir -p $(BUILD)/fuzz
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
	    -o $(BUILD)/fuzz/telemetry_fuzz_prom src/telemetry/fuzz_prom.c src/telemetry/prom.c
