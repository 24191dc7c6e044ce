/* profile/profile_dist.h — scale-out in the profile driver: `mpirun -n K genperf
 * profile` (profile_dist.c; dist/ does the talking) and several --url
 * (profile_endpoints.c).
 *
 * Owns: struct gp_profile_dist — the dist job, rank 0's copy of the command
 * line taken before secrets are scrubbed from argv, and on the other ranks the
 * broadcast setup that their config strings, headers and request bodies point
 * into (so free it only after the config and the bodies array), rank 0's table
 * of every rank's clock offset and client stats. Free with
 * gp_profile_dist_free (NULL is fine).
 *
 * The sequence (docs/scale-out.md), every call collective when size > 1:
 *   join        every rank: joins the MPI job (or is a job of one)
 *   setup       rank 0 has parsed and built the dataset and the plan: its
 *               exit status (or CONTINUE), argv, final headers, --workers,
 *               the request bodies and the plan (trace rows or session
 *               chains) reach every rank; the others parse the same argv
 *               (without rank 0's file checks) and never load a tokenizer
 *   before_run  clock ping-pong, this rank's share of the job's slots
 *               (share_index = rank x W + w of K x W), one barrier; the
 *               measured phase (and an open loop's schedule origin) starts
 *               at one instant of rank 0's clock after every rank's warmup
 *               (co->measure_start)
 *   after_run   a rank that failed (or whose every request failed) fails the
 *               run on every rank with "rank R on host H: ..."; otherwise the
 *               records, converted to rank 0's clock in place, travel to
 *               rank 0 as the sender's store lies in memory (its byte arena,
 *               records and chunks in pieces of at most 64 MiB, received at
 *               the tail of rank 0's store; on one host the byte arena is a
 *               memfd that rank 0 maps there instead), and are merged into rank 0's
 *               store by start time; the stats are summed into rank 0's. A
 *               rank > 0's store is not usable afterwards
 *   telemetry   (only when the ranks span several hosts) the lowest rank on
 *               each host sampled it; each sends its samples to rank 0 in
 *               bounded chunks, on rank 0's clock (profile_dist_tel.c)
 * Only rank 0 goes on to metrics and export. A returned GP_ENET error means
 * MPI itself broke: other ranks may be stuck in a collective, the caller
 * then prints and calls gp_profile_dist_abort.
 */
#ifndef GP_PROFILE_PROFILE_DIST_H
#define GP_PROFILE_PROFILE_DIST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gp_error;
struct gp_dist;
struct gp_profile_dist;
struct profile_config;
struct profile_shape;
struct gp_client_body;
struct gp_client_opts;
struct gp_client_stats;
struct gp_record_store;
struct gp_metrics_result;

#define GP_PROFILE_DIST_CHUNK (4u << 20) /* bytes per gathered chunk (telemetry) */
#define GP_PROFILE_DIST_PIECE (64u << 20) /* bytes per piece of a rank's records (gp_dist_gather_bulk) */
#define GP_PROFILE_DIST_CLOCK_ROUNDS 50

/* Joins the job; argv is copied on rank 0 of a job of several. Fails
 * (GP_ENOTSUP) in a build without MPI started as one of several ranks. */
int gp_profile_dist_join(struct gp_profile_dist **out, int argc, char **argv, struct gp_error *err);
int gp_profile_dist_rank(const struct gp_profile_dist *pd);
int gp_profile_dist_size(const struct gp_profile_dist *pd);

/* *status: rank 0's result of load + dataset (cont = "go on", anything else
 * an exit status it has already explained); on the other ranks it becomes
 * rank 0's. Rank 0 passes its config, bodies and shape (gp_profile_shape_build);
 * the others get cfg parsed (initialised by the caller), *bodies (a malloc'd
 * array the caller frees, pointing into pd), *n_bodies and shape (its load
 * from cfg, a copy of rank 0's plan; gp_profile_shape_free). Returns 0, or
 * -code with err (every rank the same). */
int gp_profile_dist_setup(struct gp_profile_dist *pd, int *status, int cont, struct profile_config *cfg,
                          const char *prog, struct gp_client_body **bodies, size_t *n_bodies,
                          struct profile_shape *shape, struct gp_error *err);

/* Clock sync, this rank's share into *co (share_index/share_count, and
 * max_inflight for one worker), barrier; co->measure_start: the shared start
 * of the measured phase (every mode; an open loop's schedule origin).
 * 0 or -code. */
int gp_profile_dist_before_run(struct gp_profile_dist *pd, long workers, struct gp_client_opts *co,
                               struct gp_error *err);

/* The grace in-flight requests get after the first stop signal: `one` (a
 * single process's) or, in a job of several, at most a quarter of the
 * launcher's SIGTERM-to-SIGKILL window (gp_dist_kill_window_ns: 1 s under a
 * default mpirun), so that the stop, the gather and rank 0's artifacts fit
 * before the SIGKILL. */
uint64_t gp_profile_dist_grace_ns(const struct gp_profile_dist *pd, uint64_t one);

/* crc/run_err: this rank's gp_client_run_workers result. On rank 0, st and cs
 * become the job's (merged records, summed stats); on the others st's times
 * are left on rank 0's clock (it was sent as it lies). per_worker: this
 * rank's `workers` entries. 0 or -code (every rank the same). */
/* Before the run, on every rank: the store of a rank > 0 keeps its bytes in
 * a memfd (record.h: shm_arena), which rank 0 maps at the gather when both
 * run on one host instead of receiving a copy (the fallback for any other
 * case). $GENPERF_DIST_NO_SHM=1 turns that off: every rank's bytes travel
 * by MPI, as between hosts. A single process: nothing. */
void gp_profile_dist_prepare_store(struct gp_profile_dist *pd, struct gp_record_store *st);

int gp_profile_dist_after_run(struct gp_profile_dist *pd, int crc, const struct gp_error *run_err, long workers,
                              struct gp_record_store *st, struct gp_client_stats *cs,
                              const struct gp_client_stats *per_worker, struct gp_error *err);

/* Rank 0 after after_run: "scale_out" of <stem>_genperf.json (workers, ranks,
 * per_worker, per_rank with host and clock). New reference or NULL. */
json_t *gp_profile_dist_scale_out(const struct gp_profile_dist *pd);

/* Rank 0: a warning line when a rank's clock uncertainty exceeds 1 % of the
 * median TTFT (request latency when there is no TTFT). */
void gp_profile_dist_clock_warning(const struct gp_profile_dist *pd, const struct gp_metrics_result *mr);

/* Ends every rank now (MPI_Abort) when the job has several; else returns. */
void gp_profile_dist_abort(struct gp_profile_dist *pd, int code);

void gp_profile_dist_free(struct gp_profile_dist *pd);

/* For profile_dist_tel.c: the dist job, and this rank's clock offset to
 * rank 0's (0 on rank 0 and in a job of one). */
struct gp_dist *gp_profile_dist_job(struct gp_profile_dist *pd);
int64_t gp_profile_dist_offset_ns(const struct gp_profile_dist *pd);

/* ---- per-host telemetry (profile_dist_tel.c) ---- */

struct gp_telemetry;

/* Rank 0's view of every host's telemetry after a run across several hosts.
 * Owns the telemetry objects of hosts other than rank 0's (tel[1..n-1]);
 * tel[0] is rank 0's own (borrowed). host[] points into the dist job. */
struct gp_profile_tel_hosts {
    int n;                           /* hosts with telemetry, rank 0's first; 0 = one host */
    struct gp_telemetry **tel;
    const char **host;
    int *rank;                       /* the rank that sampled each host */
};

/* 1 when this rank samples telemetry: the lowest rank on its host (by
 * hostname), so rank 0 always does and a single-host job has one sampler. */
int gp_profile_dist_samples_telemetry(const struct gp_profile_dist *pd);
/* Distinct hosts among the ranks (1 without mpirun). */
int gp_profile_dist_host_count(const struct gp_profile_dist *pd);

/* Collective, after after_run, on every rank when the job spans several
 * hosts (a no-op otherwise): each sampling rank sends `mine` (stopped; NULL
 * when its telemetry could not start) to rank 0, which fills *out. 0 or
 * -code (every rank the same); GP_ENET means MPI broke (abort). */
int gp_profile_dist_gather_telemetry(struct gp_profile_dist *pd, struct gp_telemetry *mine,
                                     struct gp_profile_tel_hosts *out, struct gp_error *err);
void gp_profile_tel_hosts_free(struct gp_profile_tel_hosts *h);

/* profile_endpoints.c — several --urls: one object per endpoint (url,
 * requests, failed, request and output token throughput over the benchmark
 * window, TTFT and ITL p50/p99 in ms) from the measured requests. New
 * reference or NULL. */
json_t *gp_profile_endpoints_json(const struct gp_record_store *st, const struct gp_metrics_result *mr,
                                  const char *const *urls, size_t n_urls);
/* The same split on fp, one line per endpoint (requests, share, failed);
 * nothing for one endpoint. */
void gp_profile_endpoints_print(FILE *fp, const struct gp_record_store *st, const struct gp_metrics_result *mr,
                                const char *const *urls, size_t n_urls, int least_inflight);
/* {"p50": .., "p99": ..} in ms of v[0..n) in ns (sorted here); null when
 * n == 0. The per-endpoint and per-model breakdowns share it. */
json_t *gp_profile_p50_p99(double *v, size_t n);

/* profile_models.c — several -m: one object per model (model, weight,
 * requests, failed, share, request and output token throughput over the
 * benchmark window, TTFT, ITL and request latency p50/p99 in ms) from the
 * measured requests, each counted for the model its dataset entry named.
 * New reference or NULL. */
struct gp_dataset;
json_t *gp_profile_models_json(const struct gp_record_store *st, const struct gp_metrics_result *mr,
                               const struct gp_dataset *ds, const char *const *models, size_t n_models,
                               const double *weights);
/* The same split on fp, one line per model; nothing for one model. */
void gp_profile_models_print(FILE *fp, const struct gp_record_store *st, const struct gp_metrics_result *mr,
                             const struct gp_dataset *ds, const char *const *models, size_t n_models);

/* The note on fp when -u/--url or --urls was given more than once or --urls
 * lists a URL twice: where the requests go and which URLs given are not used
 * (credentials hidden); nothing otherwise. */
struct profile_config;
void gp_profile_url_note(FILE *fp, const struct profile_config *cfg);

#endif
