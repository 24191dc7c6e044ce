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
