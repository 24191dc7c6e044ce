/* store/store.h — ingesting artifact directories into the results store, and
 * listing what is stored.
 *
 * Owns: struct gp_ingest_result's message buffer (free it with
 * gp_ingest_result_free). Everything else is borrowed from the caller.
 *
 * A "job" is one <stem>_genai_perf.json (or, when that is absent,
 * <stem>_genai_perf.csv) in a run directory, together with its siblings:
 * <stem>.json (perf_analyzer profile export), <stem>_records.jsonl,
 * <stem>_genperf.json, <stem>_telemetry.jsonl and genperf_run.json (the
 * runner's scenario metadata, looked up in the run directory and its parents
 * up to the directory given). Subdirectories are searched recursively
 * (sorted, depth <= 6), so a whole artifact tree can be ingested at once;
 * GenAI-Perf's analyze_export_genai_perf.csv sweep summary is skipped.
 *
 * Each job is validated completely before anything is written, then written
 * in one transaction. Its identity is the sha256 of the main artifact's
 * bytes: ingesting it again changes nothing and says "already ingested as job
 * N, nothing changed". Concurrent ingests (same or different directories,
 * SQLite or PostgreSQL) cannot create duplicate jobs.
 *
 * Metadata precedence, per field: gp_ingest_meta > genperf_run.json >
 * input_config of the artifact > the run directory's name.
 */
#ifndef GP_STORE_STORE_H
#define GP_STORE_STORE_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"

struct gp_db;
struct gp_error;

struct gp_ingest_meta {
    const char *label;          /* job label (default: genperf_run.json scenario name) */
    const char *model;
    const char *framework;      /* vllm, sglang, trtllm, genperf-serve, ... */
    const char *engine_args;    /* JSON object text, e.g. {"max_num_seqs":256} */
    const char *hardware;       /* e.g. "8xH100-SXM" */
    const char *host;           /* machine the benchmark ran on */
    const char *tool_version;   /* GenAI-Perf version for third-party runs */
    int gpu_count, tp, replicas;          /* 0 = unknown / from the artifacts */
    long concurrency, isl, osl, request_count; /* 0 = from the artifacts */
    int streaming;              /* -1 = from the artifacts, else 0/1 */
    int validate_only;          /* 1 = check every file, write nothing (genperf ingest --check) */
    volatile sig_atomic_t *stop;/* set by main's SIGINT/SIGTERM handler: finish no further job */
};
#define GP_INGEST_META_INIT {.streaming = -1}

struct gp_ingest_result {
    size_t jobs_found;      /* main artifacts seen */
    size_t jobs_added;      /* new jobs committed (validate_only: jobs that would be added) */
    size_t jobs_existing;   /* already in the store (nothing changed) */
    size_t jobs_rejected;   /* failed validation or the write */
    long long last_job_id;  /* id of the last job added or found, 0 = none */
    struct gp_buf messages; /* one line per job: what happened; the caller prints it */
};

/* Ingests every job under dir. Returns 0 when every job was added or already
 * present; otherwise the error of the first rejected job (the others are
 * still ingested; res->messages has a line for each). meta may be NULL.
 * When *meta->stop becomes non-zero, the job in progress is abandoned (it
 * writes nothing and is not counted), no further job starts, and the call
 * returns -GP_EINTR: the store then holds exactly the jobs counted in res. */
int gp_store_ingest_dir(struct gp_db *db, const char *dir, const struct gp_ingest_meta *meta,
                        struct gp_ingest_result *res, struct gp_error *err);
/* How many jobs gp_store_ingest_dir would find under dir (0 when it is not a
 * readable directory); reads directory listings only. */
size_t gp_store_count_jobs(const char *dir);
void gp_ingest_result_free(struct gp_ingest_result *res);

/* sha256 of len bytes as 64 lowercase hex digits + NUL. */
void gp_sha256_hex(const void *data, size_t len, char out[65]);

/* Listing. */
enum gp_out_format { GP_OUT_TABLE = 0, GP_OUT_CSV = 1, GP_OUT_JSON = 2 };
int gp_store_parse_format(const char *s, enum gp_out_format *out);
/* Runs sql and prints every row to out in fmt (table: aligned columns with a
 * header; csv: RFC 4180 with a header; json: an array of objects). */
int gp_store_print_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                         enum gp_out_format fmt, FILE *out, struct gp_error *err);
/* job_id NULL: one line per job (scenario + headline metrics); else every
 * metric of that job (-GP_ENOENT when it does not exist). The listing's
 * table fits 160 columns (text clipped, all-empty columns left out) unless
 * wide; wide and CSV/JSON have every column (load's parts: concurrency,
 * request_rate, trace_file, trace_speedup). */
int gp_store_print_results(struct gp_db *db, const char *job_id, enum gp_out_format fmt, int wide, FILE *out,
                           struct gp_error *err);
/* v_telemetry_job_summary for one job (job_id) or all (NULL). */
int gp_store_print_telemetry(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                             struct gp_error *err);
/* v_endpoint_breakdown (several --url) for one job (job_id) or all (NULL);
 * a job without a breakdown prints no row. */
/* v_energy_cost (jobs with GPU energy or --gpu-hour-cost figures), all jobs
 * or one. */
int gp_store_print_energy(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                          struct gp_error *err);
int gp_store_print_endpoints(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                             struct gp_error *err);
/* v_model_breakdown (several -m) for one job (job_id) or all (NULL); a job
 * without a breakdown prints no row. */
int gp_store_print_models(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                          struct gp_error *err);
/* Repeat groups (--num-runs, a scenario's repeats:): job_id NULL: one row
 * per group with the mean, 95% interval half-width and CV of the key
 * statistics; else every statistic of that job's group (no row when the job
 * is in none). */
int gp_store_print_groups(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                          struct gp_error *err);
int gp_store_job_exists(struct gp_db *db, long long id, long long *found, struct gp_error *err);

#endif
