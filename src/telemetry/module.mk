# telemetry/module.mk — the fake NVML library used only by the telemetry tests.
# Its source lives outside src/*/*.c so the library glob never picks it up,
# and it is built outside $(BUILD)/tests/ because tests/run.sh executes
# everything there.
FAKE_NVML := $(BUILD)/tests-lib/libfake_nvml.so
TEST_DEPS += $(FAKE_NVML)

$(FAKE_NVML): tests/fake_nvml/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fPIC -shared -o $@ $<

# The Prometheus parser fuzz target (fuzz_prom.c) is built by the top Makefile's `make fuzz`.
