/* profile/profile_runs.h — `genperf profile --num-runs N`: N one-run
 * profiles as child processes under RUN_DIR/run_K/ and the aggregate of their
 * <stem>_genai_perf.json in RUN_DIR/<stem>_genperf_aggregate.json
 * (profile_runs.c says how; docs/profile.md "Repeated runs").
 *
 * Owns nothing past a call: gp_profile_aggregate returns a new reference the
 * caller decrefs.
 */
#ifndef GP_PROFILE_RUNS_H
#define GP_PROFILE_RUNS_H

#include "profile/profile_config.h"

#include <jansson.h>
#include <stdio.h>

/* Runs the command line argv (cmd_profile's, argv[0] the subcommand) cfg->num_runs
 * times and writes the aggregate. sfd is cmd_profile's SIGINT/SIGTERM signalfd.
 * Returns the exit status: 130 when interrupted, else the first failing
 * run's status (3 from --max-failure-rate does not stop the runs), else 1
 * when the aggregate left every run made out (or could not be written), else 0;
 * err holds the message of a failure this process (not a run) had. */
int gp_profile_repeat(const struct profile_config *cfg, const char *prog, int sfd, int argc, char **argv,
                      struct gp_error *err);

/* One run of --num-runs as the aggregate judges it; the caller owns the
 * JSON objects and the directory string. */
struct gp_profile_run_outcome {
    int rc;                 /* the child's exit status, 128 + signal, -1 when it could not start */
    json_t *genai;          /* its <stem>_genai_perf.json, NULL when it left none */
    json_t *genperf;        /* its <stem>_genperf.json, NULL when it left none */
    const char *dir;        /* "run_K/<run name>", as the aggregate names it */
};

/* Whether a run belongs in the mean: 1, or 0 with the reason in why (a run
 * that was interrupted, killed by a signal, exited with an error other than
 * 3 from --max-failure-rate, left no artifacts, stopped early for memory, or
 * completed no request: its 0 req/s measures the server's absence, not its
 * speed). */
int gp_profile_run_counts(const struct gp_profile_run_outcome *o, char *why, size_t whysz);

/* The aggregate of the made runs o[0..made) (run K is o[K-1]) of asked:
 * "runs_asked", "runs_made", "runs" (those in the mean), "failed_runs"
 * ([{"run": K, "directory": .. or null, "reason": ..}], the runs left out
 * by gp_profile_run_counts), then gp_profile_aggregate's keys over the runs
 * that count, then "run_directories" (theirs). NULL when out of memory. */
json_t *gp_profile_aggregate_runs(const struct gp_profile_run_outcome *o, size_t made, long asked, double cv_warn);

/* The aggregate of n runs' <stem>_genai_perf.json objects: "runs",
 * "confidence_level", "cv_warn", "metrics" (per metric of runs[0] with a
 * unit: "unit" and per statistic n, mean, stddev, ci95_low, ci95_high, cv,
 * values; null where unknown) and "warnings" (a key statistic whose CV
 * exceeds cv_warn). NULL when out of memory. */
json_t *gp_profile_aggregate(json_t *const *runs, size_t n, double cv_warn);
/* The key statistics as a table on out; the runs left out and the CV
 * warnings on warn. */
void gp_profile_aggregate_print(json_t *agg, FILE *out, FILE *warn);

#endif
