/* runner/runner.h — `genperf run`: scenario -> recipe -> server -> cells -> store.
 *
 * The only layer that calls several others in sequence. Each cell runs
 * `genperf profile` as a child process with exactly the command line that
 * --dry-run prints (so what is printed is what ran), then its artifacts are
 * ingested into the results store with the scenario's metadata.
 */
#ifndef GP_RUNNER_RUNNER_H
#define GP_RUNNER_RUNNER_H

#include <signal.h>
#include <stdio.h>

struct gp_error;
struct gp_scenario;
struct gp_cell;
struct gp_argv;

struct gp_run_opts {
    int dry_run;
    const char *recipes_dir;    /* NULL: $GENPERF_RECIPES_DIR, then built-in recipes */
    const char *db_url;         /* NULL: scenario db, else <artifact_dir>/genperf.db */
    const char *self_exe;       /* path of the genperf binary for the profile children */
    volatile sig_atomic_t *stop;/* main's SIGINT/SIGTERM handler counts the signals here */
    FILE *out;                  /* progress and the summary table */
};

/* Returns 0 when every cell ran (failed requests inside a cell are not a
 * runner failure), -GP_EINTR when interrupted, another negative code on error. */
int gp_runner_run(const struct gp_scenario *sc, const struct gp_run_opts *o, struct gp_error *err);

/* Seconds between Open MPI's SIGTERM and SIGKILL after a Ctrl-C (mpirun
 * --mca odls_base_sigkill_timeout), set on each cell's mpirun unless
 * load.mpirun_args names its own: the ranks stop this long after the Ctrl-C
 * and then have as long again to write what they measured. */
#define GP_RUNNER_MPI_KILL_TIMEOUT_S "3"

/* The profile command line of one cell (exposed for tests). */
int gp_runner_profile_argv(const struct gp_scenario *sc, const struct gp_cell *c, const char *self_exe,
                           const char *url, const char *cell_dir, struct gp_argv *argv);

/* With a search: block, the `genperf search` command of one (ISL, OSL)
 * cell: the cell's profile command as `search`, then the block's flags,
 * --db and --label (the scenario's name). */
int gp_runner_search_argv(const struct gp_scenario *sc, const struct gp_cell *c, const char *self_exe,
                          const char *url, const char *dir, const char *db_url, struct gp_argv *argv);

/* Raises RLIMIT_NOFILE to at least want (soft, and hard when allowed). */
int gp_raise_nofile(unsigned long want, struct gp_error *err);

#endif
