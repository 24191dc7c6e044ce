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
 * run's status (3 from --max-failure-rate does not stop the runs), else 0;
 * err holds the message of a failure this process (not a run) had. */
int gp_profile_repeat(const struct profile_config *cfg, const char *prog, int sfd, int argc, char **argv,
                      struct gp_error *err);

/* The aggregate of n runs' <stem>_genai_perf.json objects: "runs",
 * "confidence_level", "cv_warn", "metrics" (per metric of runs[0] with a
 * unit: "unit" and per statistic n, mean, stddev, ci95_low, ci95_high, cv,
 * values; null where unknown) and "warnings" (a key statistic whose CV
 * exceeds cv_warn). NULL when out of memory. */
json_t *gp_profile_aggregate(json_t *const *runs, size_t n, double cv_warn);
/* The key statistics as a table on out, the CV warnings on warn. */
void gp_profile_aggregate_print(json_t *agg, FILE *out, FILE *warn);

#endif
