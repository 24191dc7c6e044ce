# src/profile/module.mk — the flag-parser fuzz target.
#
#   make fuzz-profile-args     build $(BUILD)/fuzz_profile_args (clang, libFuzzer+ASan+UBSan)
FUZZ_CC ?= clang

.PHONY: fuzz-profile-args
fuzz-profile-args: $(BUILD)/fuzz_profile_args
$(BUILD)/fuzz_profile_args: src/profile/fuzz_profile_args.c src/profile/profile_args.c src/profile/profile_config.c src/profile/profile_media.c src/core/pytext.c src/core/error.c src/core/redact.c \
                            src/core/fsutil.c src/core/buf.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc $(PKG_CFLAGS) \
	    $^ -o $@ $(PKG_LIBS) -ldl -lm -pthread
