/* profile/profile_run.h — private to src/profile/: the state of one
 * `genperf profile` run that its stages share (cmd_profile.c: load, dataset,
 * run; profile_report.c: metrics, export, the closing lines and the exit
 * status). cmd_profile() owns the struct and frees everything in it.
 */
#ifndef GP_PROFILE_RUN_H
#define GP_PROFILE_RUN_H

#include "client/client.h"
#include "client/record.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "metrics/metrics.h"
#include "metrics/watch.h"
#include "profile/profile_config.h"
#include "profile/profile_dist.h"
#include "telemetry/telemetry.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <stdio.h>
#include <stdint.h>

struct gp_export_pe;

#define BUSY_WARN 0.8

struct profile_run {
    struct profile_config cfg;
    const char *prog;
    struct gp_error err;
    int sfd;                        /* SIGINT/SIGTERM signalfd, -1 if none */
    char req_url[8192];
    char run_dir[4096];
    /* inputs.json is staged here (run_dir/inputs.json.tmp.PID) and renamed
     * onto inputs.json when the run ends, so a run killed mid-way leaves
     * the earlier set's inputs.json as it was; "" when none is staged */
    char inputs_tmp[4200];
    struct gp_tokenizer *tok;
    struct gp_dataset *ds;
    struct gp_client_body *bodies;  /* views into ds (MPI ranks > 0: into dist) */
    size_t n_bodies;
    char **req_urls;                /* several --urls: base + endpoint of each (owned), else NULL */
    struct gp_profile_dist *dist;   /* the MPI job (a job of one without mpirun) */
    json_t *input_config;
    struct gp_record_store st;
    struct gp_record_budget budget; /* --max-memory, charged by the client's stores */
    uint64_t max_memory;            /* the budget in all (bytes; profile_memory.c) */
    struct gp_telemetry *tel;       /* this host's sampler (ranks that sample, see profile_dist.h) */
    /* after a warmup the sampler's counters window is marked before the
     * measured phase starts (measure_start_mark in cmd_profile.c), then the
     * measure_start hook it wraps (an MPI job's), if any, runs */
    uint64_t (*inner_measure_start)(void *ctx);
    void *inner_measure_ctx;
    struct gp_profile_tel_hosts tel_hosts; /* rank 0, several hosts: every host's (n = 0 otherwise) */
    struct gp_client_stats cs;
    struct gp_client_stats *per_worker; /* cfg.workers entries */
    json_t *scale_out;              /* <stem>_genperf.json "scale_out", NULL = one loop */
    json_t *models;                 /* <stem>_genperf.json "models", NULL = one -m */
    struct profile_shape shape;     /* rate arrivals, trace / session plan (profile_shapes.c) */
    uint64_t wall_start, wall_end;
    struct gp_metrics_result mr;
    int metrics_ok, export_ok;
    /* profile_export.json written while the metrics are computed
     * (profile_report.c): its writer, joined by the export stage, and the
     * watch it follows (initialized when watching = 1) */
    struct gp_export_pe *pe;
    struct gp_metrics_watch watch;
    int watching;
    /* The client sees transport and HTTP failures; metrics also sees the
     * ones inside a 200 stream (error events, truncation), so its counts
     * are the ones reported and used for the exit status. */
    uint64_t n_ok, n_failed;
    char first_error[512];
};

/* Stage 4: per-request and benchmark metrics from the recorded bytes. */
void gp_profile_stage_metrics(struct profile_run *r);
/* Stage 5: every artifact, the console table, telemetry. */
void gp_profile_stage_export(struct profile_run *r);
/* The console lines for what invalidates a benchmark: failures by kind, an
 * OSL other than asked, answers with reasoning only, missing or disagreeing
 * server usage, reasoning in TTFT (profile_checks.c). planned: the measured requests cancelled on
 * purpose (--request-cancellation-rate), which are not failures. */
void gp_profile_report_checks(const struct profile_run *r, uint64_t planned);
/* Parts of gp_profile_report_checks, on f (tested on their own): the OSL
 * asked against the length got, reasoning included (profile_checks.c); the
 * count of answers that carried only reasoning, unless all did. */
void gp_profile_osl_lines(FILE *f, const struct gp_metrics_result *m);
void gp_profile_reasoning_only_line(FILE *f, const struct gp_metrics_result *m);
/* When every completed answer carried only reasoning: one line saying so and
 * what to do, printed last by gp_profile_finish. Returns 1 when it printed. */
int gp_profile_reasoning_only_last_line(FILE *f, const struct gp_metrics_result *m);
/* The closing lines on stderr and the exit status (cmd_profile.c's header
 * lists the codes). */
int gp_profile_finish(struct profile_run *r);

#endif
