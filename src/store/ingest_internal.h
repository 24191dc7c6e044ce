/* store/ingest_internal.h — what the pieces of the ingest share.
 *
 * Owns: the layout of struct ig_job, the in-memory form of one job while it
 * is validated and written. Every pointer member is owned by the job and
 * freed by ig_job_free; the json_t of the profile export too. Nothing outside
 * src/store/ingest*.c includes this file; the public API is store/store.h.
 *
 * The pieces, in the order a job goes through them:
 *   ingest_metrics.c  the metric vocabulary (known codes, units, stat names)
 *   ingest_json.c     typed field readers that name path and field on error
 *   ingest_genai.c    GenAI-Perf's *_genai_perf.json / *_genai_perf.csv
 *   ingest_extras.c   our genperf.json, genperf_run.json, the profile export
 *   ingest_endpoints.c  genperf.json's per-endpoint breakdown (several --url)
 *   ingest_models.c   genperf.json's per-model breakdown (several -m)
 *   ingest_jsonl.c    records / telemetry JSONL: validate, then stream in
 *   ingest_groups.c   the repeat group of a RUN_DIR/run_K/<run>/ job
 *   ingest_checks.c   whether the files add up: refuse, or mark incomplete
 *   ingest_write.c    the one transaction that writes a job
 *   ingest.c          directory discovery and the public entry points
 */
#ifndef GP_STORE_INGEST_INTERNAL_H
#define GP_STORE_INGEST_INTERNAL_H

#include <jansson.h>
#include <signal.h>
#include <stddef.h>

struct gp_db;
struct gp_error;

/* The largest artifact ingest reads whole (the summary JSON/CSV, the
 * export JSON, the repeat aggregate): GenAI-Perf's profile_export.json of a
 * long run with its responses runs to hundreds of MB, so 1 GiB leaves room
 * while a sparse or runaway file is refused by name instead of exhausting
 * memory. Every artifact must be a regular file (core/fsutil.h). */
#define IG_MAX_WHOLE_FILE ((size_t)1 << 30)

struct ig_opt_i {
    int set;
    long long v;
};
struct ig_opt_d {
    int set;
    double v;
};

struct ig_mval {
    char metric[96];
    char stat[16];
    int isnull;
    double v;
};

struct ig_tstat {
    char device[48];
    char metric[96];
    char unit[32];
    char stat[16];
    int isnull;
    double v;
};

/* One row of job_endpoints: scale_out.endpoints[i] of <stem>_genperf.json. */
struct ig_endpoint {
    long long index, requests, failed;
    char *url; /* userinfo already redacted */
    struct ig_opt_d req_tput, tok_tput, ttft_p50, ttft_p99, itl_p50, itl_p99;
};

/* one element of _genperf.json "timeslices" (--timeslice-duration) */
struct ig_timeslice {
    long long index, requests, completed, failures;
    double start_s, end_s;
    struct ig_opt_d req_tput, tok_tput, ttft_p50, ttft_p99, itl_p50, itl_p99, lat_p50, lat_p99;
};

/* One row of job_models: models[i] of <stem>_genperf.json (several -m). */
struct ig_model {
    long long requests, failed;
    char *model;
    struct ig_opt_d weight, share, req_tput, tok_tput, ttft_p50, ttft_p99, itl_p50, itl_p99, lat_p50, lat_p99;
};

struct ig_job {
    char dir[4096], stem[1024], main_path[4096];
    int main_is_csv;
    char export_path[4096], records_path[4096], genperf_path[4096], telemetry_path[4096], run_path[4096];
    char sha[65];

    /* scenario */
    char *model, *framework, *engine_args, *hardware, *endpoint, *endpoint_type;
    struct ig_opt_i gpu_count, tp, replicas, concurrency, isl, osl, request_count, seed;
    struct ig_opt_d request_rate;
    int streaming;

    /* job */
    char *tool_version, *producer_version, *label, *host, *server_url;
    const char *producer;
    char *input_config, *goodput, *genperf_summary;
    char started_at[40], finished_at[40];
    struct ig_opt_d duration_s;
    struct ig_opt_i requests_ok, requests_failed;
    int interrupted;         /* _genperf.json "interrupted": true (stopped by a signal) */
    char incomplete[1024];   /* why the set does not add up ("" = whole): jobs.incomplete */
    char *trace_file;        /* a trace replay's file (input_config, then _genperf.json "trace") */
    struct ig_opt_d trace_speedup; /* _genperf.json "trace.speedup" */
    size_t n_records, n_samples, n_export_requests;

    struct ig_mval *mv;
    size_t nmv, capmv;
    struct ig_tstat *ts;
    size_t nts, capts;
    struct ig_endpoint *eps; /* several --url: the per-endpoint breakdown */
    struct ig_model *mods;   /* several -m: the per-model breakdown */
    size_t nmods;
    size_t neps;
    struct ig_timeslice *slices; /* --timeslice-duration: per-slice metrics */
    size_t nslices;
    double slice_s;             /* timeslice_duration_s */
    long long slice_origin_wall_ns;
    char (*new_metrics)[96]; /* codes not in metric_templates: added on ingest */
    size_t nnew;
    json_t *export_json;     /* profile export, kept for its per-request rows */
    int export_skipped;      /* too large to load (GP_MAX_EXPORT_BYTES) */

    /* repeats (ingest_groups.c): set when the job's directory is
     * RUN_DIR/run_K/<run>/; group_key NULL = not a repeat */
    char *group_key, *group_label;
    char group_dir[4096], aggregate_path[4096];
    long repeat_index;
    long long group_id; /* set by ig_link_group */
    char group_left_out[640]; /* non-empty: the aggregate names this run in failed_runs (why); not linked */

    /* borrowed from gp_ingest_meta: set by a signal handler; the long loops
     * (JSONL lines) poll it so an interrupt never waits for a huge file */
    volatile sig_atomic_t *stop;
};

/* -1 (and err set) when *j->stop is set: the caller abandons the job. */
int ig_check_stop(const struct ig_job *j, struct gp_error *err);

void ig_job_free(struct ig_job *j);
void ig_set_str(char **dst, const char *s);
void ig_iso_from_ns(long long ns, char out[40]);

/* ingest_metrics.c */
struct ig_known_metric {
    const char *code, *unit;
};
const struct ig_known_metric *ig_find_known(const char *code);
int ig_valid_stat(const char *s); /* avg, min, max, std or pN */
int ig_valid_code(const char *s); /* letters, digits, _; < 96 chars */
/* 1 when the job already holds that value: the store keeps one row per
 * (metric, stat) and per (device, metric, stat), so a CSV that repeats a
 * column or a row is refused while reading, not by a UNIQUE error mid-write. */
int ig_has_mval(const struct ig_job *j, const char *metric, const char *stat);
int ig_has_tstat(const struct ig_job *j, const char *device, const char *metric, const char *stat);
int ig_add_mval(struct ig_job *j, const char *metric, const char *stat, int isnull, double v);
int ig_add_tstat(struct ig_job *j, const char *device, const char *metric, const char *unit, const char *stat,
                 int isnull, double v);
/* 0 and *f = the factor from unit to the template's unit; -1 = not convertible */
int ig_unit_factor(const char *unit, const char *tmpl_unit, double *f);
/* Remembers a code not in the template list (added to metric_templates on write). */
int ig_note_metric(struct ig_job *j, const char *code);

/* ingest_checks.c: after every file is read, whether the set adds up.
 * Values that cannot be (min > avg or avg > max in one statistic, a count
 * beyond the measured requests, more measured records than the summary
 * counts) reject the job: -GP_EINVAL naming the file and field. A set that
 * holds a measurement but lacks part of it (a missing _genai_perf.csv or
 * _telemetry.jsonl that _genperf.json says was written, fewer records than
 * the summary's requests, a repeat aggregate naming runs that are not
 * there) is kept and marked: j->incomplete says why. */
int ig_check_adds_up(struct ig_job *j, struct gp_error *err);

/* ingest_json.c: every reader returns 0 or a rejection naming path and field */
const char *ig_jtype(const json_t *v);
json_t *ig_load_json(const char *path, int sanitize, struct gp_error *err);
int ig_opt_int(const json_t *obj, const char *key, struct ig_opt_i *o, const char *path, const char *field,
               struct gp_error *err);
int ig_opt_num(const json_t *obj, const char *key, struct ig_opt_d *o, const char *path, const char *field,
               struct gp_error *err);
/* ig_opt_int / ig_opt_num that also refuse a negative value (counts,
 * concurrency, token lengths, rates: none can be below 0) */
int ig_opt_count(const json_t *obj, const char *key, struct ig_opt_i *o, const char *path, const char *field,
                 struct gp_error *err);
int ig_opt_nonneg(const json_t *obj, const char *key, struct ig_opt_d *o, const char *path, const char *field,
                  struct gp_error *err);
int ig_opt_str(const json_t *obj, const char *key, char **out, const char *path, const char *field,
               struct gp_error *err);
int ig_opt_bool(const json_t *obj, const char *key, int *out, const char *path, const char *field,
                struct gp_error *err);
/* NULL when absent; *bad = 1 (and err set) when present but not an object */
const json_t *ig_opt_obj(const json_t *obj, const char *key, const char *path, const char *field, int *bad,
                         struct gp_error *err);

/* ingest_genai.c */
int ig_parse_genai_perf_json(struct ig_job *j, struct gp_error *err);
int ig_parse_genai_perf_csv(struct ig_job *j, struct gp_error *err);

/* ingest_extras.c */
int ig_parse_run_meta(struct ig_job *j, struct gp_error *err);
int ig_parse_genperf_summary(struct ig_job *j, struct gp_error *err);
/* ingest_accounting.c: token_accounting and reasoning of a parsed
 * <stem>_genperf.json as metric rows (absent blocks add none). */
int ig_parse_accounting(struct ig_job *j, const json_t *summary, const char *path, struct gp_error *err);
int ig_parse_profile_export(struct ig_job *j, struct gp_error *err);

/* ingest_endpoints.c: "scale_out"."endpoints" of a parsed <stem>_genperf.json
 * into j->eps (absent or null adds none); hides each url's userinfo in the
 * tree as well, since the tree is kept as jobs.genperf_summary. */
int ig_parse_endpoints(struct ig_job *j, json_t *summary, const char *path, struct gp_error *err);
int ig_insert_endpoints(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err);
/* "timeslices" of <stem>_genperf.json (ingest_timeslices.c) into j->slices
 * (absent or null adds none), every field checked; and their rows in
 * job_timeslices. */
int ig_parse_timeslices(struct ig_job *j, const json_t *summary, const char *path, struct gp_error *err);
int ig_insert_timeslices(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err);
/* "time_to_first_token_ms": {"p50": .., "p99": ..} or null (no sample) under
 * e[key]; field names in errors are pre + key (ingest_endpoints.c). */
int ig_read_p50_p99(const json_t *e, const char *key, struct ig_opt_d *p50, struct ig_opt_d *p99, const char *path,
                    const char *pre, struct gp_error *err);
/* ingest_models.c: "models" of a parsed <stem>_genperf.json (several -m)
 * -> j->mods, every field checked; then its rows of job_models. */
int ig_parse_models(struct ig_job *j, json_t *summary, const char *path, struct gp_error *err);
int ig_insert_models(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err);

/* ingest_jsonl.c: validation pass (before the transaction) and insert pass
 * (inside it) over the same files */
int ig_validate_records(struct ig_job *j, struct gp_error *err);
int ig_validate_telemetry(struct ig_job *j, struct gp_error *err);
int ig_insert_records(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err);
int ig_insert_samples(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err);

/* ingest_groups.c: whether j->dir is RUN_DIR/run_K/<run>/ (the layout of
 * `profile --num-runs` and a scenario's `repeats:`), filling the group
 * fields (0 when it is not; -1 only when out of memory); and, inside the
 * job's transaction, its group row, its link and the group's recomputed
 * statistics. */
int ig_locate_group(struct ig_job *j, struct gp_error *err);
int ig_link_group(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err);

/* ingest_write.c */
/* SELECT id FROM jobs WHERE artifact_sha256 = ?: *id = 0 when absent. */
int ig_find_job(struct gp_db *db, const char *sha, long long *id, struct gp_error *err);
/* Returns the new job id (> 0), 0 when a concurrent ingest won the race
 * (*existing set), or < 0. */
long long ig_write_job(struct gp_db *db, struct ig_job *j, long long *existing, struct gp_error *err);

#endif
