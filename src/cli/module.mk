# src/cli/module.mk — build fallback while the dataset module is absent.
#
# cmd_profile calls gp_dataset_build. Until a src/dataset/*.c defines it, the
# library gets src/cli/stub/dataset_stub.c (fixed filler prompts) so that the
# binary links and `genperf profile` runs; the build says so. As soon as the
# dataset implementation is in the tree this rule adds nothing.
CLI_HAVE_DATASET := $(shell grep -l '^int gp_dataset_build' $(filter-out %/test_%.c %/fuzz_%.c,$(wildcard src/dataset/*.c)) /dev/null 2>/dev/null | grep -v /dev/null)
ifeq ($(strip $(CLI_HAVE_DATASET)),)
$(info note: no dataset implementation in src/dataset/: linking src/cli/stub/dataset_stub.c (filler prompts))
LIB_O += $(BUILD)/obj/cli/stub/dataset_stub.o
endif
