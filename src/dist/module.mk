# src/dist/module.mk — the MPI part of dist/ is compiled in when `mpicc` works.
#
#   make                 with Open MPI installed: dist/dist.c gets -DGP_HAVE_MPI and
#                        `mpicc --showme:compile`; every binary links `--showme:link`
#   make GP_MPI=0        build without MPI even where it is installed
#   $(BUILD)/tools/dist_mpi_check        the MPI test program (tests/e2e/dist_mpi.sh)
#   $(BUILD)/tools/dist_mpi_check_nompi  the same, dist/ built without MPI
#   $(BUILD)/tests/dist_test_dist_nompi  the unit tests against dist/ built without MPI
#
# The normal $(CC) compiles everything; only the flags come from mpicc, so
# CC=clang and SAN=1 keep working. Open MPI's `--showme` is the interface used
# (MPICH's mpicc spells it -compile_info/-link_info; not supported here).
MPICC  ?= mpicc
GP_MPI ?= auto
ifneq ($(GP_MPI),0)
DIST_MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
endif
ifneq ($(strip $(DIST_MPI_LIBS)),)
# -isystem: MPI's headers are not held to our warning flags.
DIST_MPI_CFLAGS := -DGP_HAVE_MPI $(patsubst -I%,-isystem %,$(shell $(MPICC) --showme:compile 2>/dev/null))
$(BUILD)/obj/dist/dist.o $(BUILD)/obj/dist/gather.o: CFLAGS += $(DIST_MPI_CFLAGS)
LDLIBS += $(DIST_MPI_LIBS)

# dist/ once more without MPI, to test the refusal to run as one of K ranks.
DIST_NOMPI_O := $(BUILD)/obj-nompi/dist/dist.o $(BUILD)/obj-nompi/dist/gather.o $(BUILD)/obj-nompi/dist/plan.o
$(BUILD)/obj-nompi/dist/%.o: src/dist/%.c src/dist/dist.h src/dist/dist_int.h
	@mkdir -p $(dir $@)
	@echo "  CC $< (no MPI)"
	@$(CC) $(CFLAGS) -c $< -o $@
$(BUILD)/tests/dist_test_dist_nompi: $(BUILD)/obj-nompi/dist/test_dist.o $(DIST_NOMPI_O) $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tools/dist_mpi_check_nompi: tests/dist/mpi_check.c $(DIST_NOMPI_O) $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
TEST_DEPS += $(BUILD)/tests/dist_test_dist_nompi $(BUILD)/tools/dist_mpi_check_nompi
endif

$(BUILD)/tools/dist_mpi_check: tests/dist/mpi_check.c $(LIBGP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
TEST_DEPS += $(BUILD)/tools/dist_mpi_check
