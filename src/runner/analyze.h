/* runner/analyze.h — `genperf analyze` (GenAI-Perf's subcommand): one profile
 * per value of a swept stimulus, then analyze_export_genai_perf.csv.
 *
 * Each cell is `genperf profile` re-executed from /proc/self/exe with the
 * user's profile flags plus the swept flag, so a cell is exactly what a
 * profile with those flags gives (and stays so whatever the profile code's
 * internals become). Owns nothing beyond one call; the sweep list is a
 * caller-owned array.
 */
#ifndef GP_RUNNER_ANALYZE_H
#define GP_RUNNER_ANALYZE_H

#include <stddef.h>

struct gp_error;

#define GP_SWEEP_MAX 256

/* Sweep types in GenAI-Perf's spelling; the profile flag each one sets. */
const char *gp_sweep_flag(const char *sweep_type); /* NULL = unknown type */

/* --sweep-list "a,b,c" or --sweep-range "min:max[:step]" -> values, with
 * GenAI-Perf's checks (positive ints; concurrency ranges are powers of two
 * without a step; a range without a step of an exponential parameter walks
 * the powers of two, of num_dataset_entries every integer). */
int gp_sweep_values(const char *sweep_type, const char *list, const char *range, long *out, size_t *n,
                    struct gp_error *err);

/* Runs argv (NULL-terminated, argv[0] a path) as a child and waits. Returns
 * its exit status (128 + signal when killed), or -1 when it could not start. */
int gp_run_child(char *const *argv);
/* As gp_run_child, with env_name=env_value added to the child's environment
 * (env_name NULL: none). */
int gp_run_child_env(char *const *argv, const char *env_name, const char *env_value);

/* Path of this executable (/proc/self/exe) in out; 0 or -1. */
int gp_self_exe(char *out, size_t sz);

/* Moves every file of the single run directory that a profile child wrote
 * under staging into cell_dir (created), then removes the emptied
 * directories: cells are named by their sweep, not by profile's naming. */
int gp_collect_cell(const char *staging, const char *cell_dir, struct gp_error *err);

/* Appends one CSV field as Python's csv.writer (QUOTE_MINIMAL) writes it,
 * preceded by a comma unless first. */
struct gp_buf;
/* argv[*i] is "NAME=V" or "NAME" followed by V: returns V (advancing *i past
 * a separate value), else NULL. The GenAI-Perf-style subcommands pick their own
 * flags out of a command line whose other flags go to every profile cell. */
const char *gp_cell_flag_value(const char *arg, const char *name, int *i, int argc, char **argv);
void gp_csv_field(struct gp_buf *b, const char *s, int first);

#endif
