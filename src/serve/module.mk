# serve/module.mk — the HTTP parser fuzz target (not part of `make`).
#   make fuzz-serve     build $(BUILD)/fuzz/serve_http (clang, libFuzzer + ASan + UBSan)
#   $(BUILD)/fuzz/serve_http -max_total_time=60
SERVE_FUZZ_CC ?= clang

.PHONY: fuzz-serve
fuzz-serve: $(BUILD)/fuzz/serve_http
$(BUILD)/fuzz/serve_http: src/serve/fuzz_http.c src/serve/http.c src/core/buf.c src/core/error.c
	@mkdir -p $(dir $@)
	$(SERVE_FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
	    src/serve/fuzz_http.c src/serve/http.c src/core/buf.c src/core/error.c -o $@
