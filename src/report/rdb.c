/* report/rdb.c — the page's JSON answers from the results store.
 *
 * Owns: each json_t it returns (the caller's). Reads only through
 * store/db.h, with '?' parameters, and only the public schema of
 * docs/store.md (v_jobs, v_telemetry_job_summary, metric_values +
 * metric_templates, requests, telemetry_samples), so it works on SQLite and
 * PostgreSQL alike. Metric stats are the values v_genai_perf_outputs shows,
 * read from metric_values so the pivot is done here for the jobs asked for
 * rather than by the view for every job.
 *
 * The store keeps no per-chunk times. "ITL by output token position" is
 * exact when the job's profile export is still at its ingested path (read
 * from there, artifact.c); otherwise the page gets per-request mean ITL
 * against output length (itl_vs_osl) instead.
 */
#include "report/report.h"
#include "report/rdb_int.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "store/db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int known_stat(const char *s)
{
    static const char *const st[] = {"avg", "min", "max", "p1", "p5", "p10", "p25",
                                     "p50", "p75", "p90", "p95", "p99", "std"};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
        if (!strcmp(s, st[i]))
            return 1;
    return 0;
}

static json_t *num_or_null(const char *v)
{
    if (!v)
        return json_null();
    char *end;
    double d = strtod(v, &end);
    return *end == '\0' && isfinite(d) ? json_real(d) : json_null();
}

/* Rows (job_id, metric_code, stat, value) into each job's flat "metric.stat" map. */
struct flat_acc {
    json_t *byid;
};

static int flat_row(void *ctx, int ncols, const char *const *names, const char *const *v)
{
    struct flat_acc *a = ctx;
    (void)ncols;
    (void)names;
    if (!v[0] || !v[1] || !v[2] || !v[3] || !known_stat(v[2]))
        return 0;
    json_t *flat = json_object_get(json_object_get(a->byid, v[0]), "metrics");
    if (!flat)
        return 0;
    char fk[256];
    snprintf(fk, sizeof fk, "%s.%s", v[1], v[2]);
    json_object_set_new(flat, fk, num_or_null(v[3]));
    return 0;
}

/* Rows (metric, metric_name, unit, better, stat, value) ordered by metric
 * into the metric table: one object per metric with all 13 stat keys, the
 * shape of v_genai_perf_outputs. */
struct table_acc {
    json_t *arr, *cur;
    const char *cur_code;
};

static int table_row(void *ctx, int ncols, const char *const *names, const char *const *v)
{
    struct table_acc *a = ctx;
    (void)ncols;
    (void)names;
    if (!v[0] || !v[4])
        return 0;
    if (!a->cur || strcmp(a->cur_code, v[0]) != 0) {
        a->cur = json_object();
        json_object_set_new(a->cur, "metric", json_string(v[0]));
        json_object_set_new(a->cur, "metric_name", gp_rdb_value_json("metric_name", v[1]));
        json_object_set_new(a->cur, "unit", gp_rdb_value_json("unit", v[2]));
        json_object_set_new(a->cur, "better", gp_rdb_value_json("better", v[3]));
        static const char *const st[] = {"avg", "min", "max", "p1", "p5", "p10", "p25",
                                         "p50", "p75", "p90", "p95", "p99", "std"};
        for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
            json_object_set_new(a->cur, st[i], json_null());
        json_array_append_new(a->arr, a->cur);
        a->cur_code = json_string_value(json_object_get(a->cur, "metric"));
    }
    if (known_stat(v[4]))
        json_object_set_new(a->cur, v[4], num_or_null(v[5]));
    return 0;
}

/* A v_jobs row shaped for the page: id, created_at, scenario (the label the
 * runner gives every cell of a sweep) next to all the original columns. */
static void shape_job(json_t *j)
{
    json_object_set(j, "id", json_object_get(j, "job_id"));
    json_t *t = json_object_get(j, "started_at");
    if (!t || json_is_null(t))
        t = json_object_get(j, "ingested_at");
    json_object_set_new(j, "created_at", t ? json_incref(t) : json_null());
    json_object_set(j, "scenario", json_object_get(j, "job_label"));
    json_object_del(j, "job_id");
}

int gp_rdb_jobs(struct gp_db *db, const struct gp_jobs_filter *f, json_t **out, struct gp_error *err)
{
    (void)f; /* filtering is applied to the answer by gp_jobs_filter_apply */
    /* v_jobs already leaves out the large JSON columns. */
    json_t *jobs = gp_rdb_rows_of(db, "SELECT * FROM v_jobs ORDER BY job_id", NULL, 0, err);
    if (!jobs)
        return -err->code;
    json_t *byid = json_object();
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) {
        shape_job(j);
        json_object_set_new(j, "metrics", json_object());
        char k[32];
        snprintf(k, sizeof k, "%lld", (long long)json_integer_value(json_object_get(j, "id")));
        json_object_set(byid, k, j);
    }
    /* metric_values directly (not the pivot view): one pass, no GROUP BY,
     * which keeps the list fast with thousands of jobs. */
    struct flat_acc fa = {byid};
    if (gp_db_query(db, "SELECT job_id, metric_code, stat, value FROM metric_values", NULL, 0, flat_row, &fa,
                    err) < 0) {
        json_decref(byid);
        json_decref(jobs);
        return -err->code;
    }
    json_decref(byid);
    *out = json_pack("{s:o}", "jobs", jobs);
    return 0;
}

int gp_rdb_job(struct gp_db *db, const char *id, json_t **out, struct gp_error *err)
{
    if (!gp_rdb_valid_id(id))
        return gp_err(err, GP_EINVAL, "job id '%s': want a number (see /api/jobs)", id ? id : "");
    const char *p[1] = {id};
    json_t *jobs = gp_rdb_rows_of(db, "SELECT * FROM v_jobs WHERE job_id = ?", p, 1, err);
    if (!jobs)
        return -err->code;
    json_t *job = json_incref(json_array_get(jobs, 0));
    json_decref(jobs);
    if (!job)
        return gp_err(err, GP_ENOENT, "job %s is not in this database (see /api/jobs)", id);
    shape_job(job);
    /* The fidelity verdict of <stem>_genperf.json (kept whole as
     * jobs.genperf_summary): the job page says whether the client limited
     * the run. null for GenAI-Perf's runs and genperf's before the verdict. */
    json_t *gs = gp_rdb_rows_of(db, "SELECT genperf_summary FROM jobs WHERE id = ?", p, 1, err);
    const char *gtext = gs ? json_string_value(json_object_get(json_array_get(gs, 0), "genperf_summary")) : NULL;
    json_t *summary = gtext ? json_loads(gtext, 0, NULL) : NULL, *fid = json_object_get(summary, "fidelity");
    json_object_set_new(job, "fidelity", json_is_object(fid) ? json_incref(fid) : json_null());
    json_decref(summary);
    json_decref(gs);
    /* Same values as v_genai_perf_outputs, read from metric_values so that
     * the pivot runs for this job only. */
    struct table_acc ta = {json_array(), NULL, NULL};
    json_t *metrics = ta.arr;
    if (gp_db_query(db,
                    "SELECT mv.metric_code, t.display_name, t.unit, t.better, mv.stat, mv.value "
                    "FROM metric_values mv JOIN metric_templates t ON t.code = mv.metric_code "
                    "WHERE mv.job_id = ? ORDER BY t.sort_order, mv.metric_code",
                    p, 1, table_row, &ta, err) < 0) {
        json_decref(metrics);
        metrics = NULL;
    }
    json_t *tsum = metrics ? gp_rdb_rows_of(db, "SELECT * FROM v_telemetry_job_summary WHERE job_id = ? ORDER BY device",
                                     p, 1, err)
                           : NULL;
    if (!metrics || !tsum) {
        json_decref(job);
        json_decref(metrics);
        return -err->code;
    }
    size_t i;
    json_t *r;
    json_array_foreach(tsum, i, r) json_object_del(r, "job_id");
    /* Several --urls: each endpoint and its share; and what the failed
     * requests said, one row per distinct text, most frequent first (a
     * job page that shows "12 failed" must also say why). A query that
     * fails here (an older store) leaves an empty list, not an error. */
    json_t *eps = gp_rdb_rows_of(db,
                          "SELECT endpoint_index, url, requests, failed, request_share, request_throughput, "
                          "output_token_throughput, ttft_p50_ms, ttft_p99_ms, itl_p50_ms, itl_p99_ms "
                          "FROM v_endpoint_breakdown WHERE job_id = ? ORDER BY endpoint_index",
                          p, 1, NULL);
    /* Several -m (a model and its LoRA adapters): the same split by model */
    json_t *mods = gp_rdb_rows_of(db,
                           "SELECT model_index, model, weight, requests, failed, request_share, request_throughput, "
                           "output_token_throughput, ttft_p50_ms, ttft_p99_ms, itl_p50_ms, itl_p99_ms, "
                           "latency_p50_ms, latency_p99_ms FROM v_model_breakdown WHERE job_id = ? "
                           "ORDER BY model_index",
                           p, 1, NULL);
    json_t *errs = gp_rdb_rows_of(db,
                           "SELECT COALESCE(error, '(no error text)') AS error, http_status, COUNT(*) AS n "
                           "FROM requests WHERE job_id = ? AND status = 'failed' AND warmup = 0 "
                           "GROUP BY COALESCE(error, '(no error text)'), http_status ORDER BY n DESC, error LIMIT 50",
                           p, 1, NULL);
    /* --timeslice-duration: the slices, with offset_s placing them on the
     * telemetry charts' axis (seconds since the job's first sample, whose
     * wall time is MIN(wall_ns)): one x axis for both. An older store
     * without job_timeslices leaves an empty list. */
    json_t *slices = gp_rdb_rows_of(db,
                             "SELECT slice_index, start_s, end_s, requests, completed, failures, request_throughput, "
                             "output_token_throughput, ttft_p50_ms, ttft_p99_ms, itl_p50_ms, itl_p99_ms, "
                             "latency_p50_ms, latency_p99_ms, CAST(COALESCE(origin_wall_ns - (SELECT MIN(x.wall_ns) "
                             "FROM telemetry_samples x WHERE x.job_id = s.job_id), 0) AS DOUBLE PRECISION) / 1e9 "
                             "AS offset_s FROM job_timeslices s WHERE s.job_id = ? ORDER BY slice_index",
                             p, 1, NULL);
    /* --num-runs / repeats: the group this job is a run of (null when none) */
    *out = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "job", job, "metrics", metrics, "telemetry_summary", tsum,
                     "endpoints", eps ? eps : json_array(), "models", mods ? mods : json_array(), "errors",
                     errs ? errs : json_array(), "timeslices", slices ? slices : json_array(), "repeat_group",
                     gp_rdb_job_group(db, id));
    return 0;
}

static int job_exists(struct gp_db *db, const char *id, struct gp_error *err)
{
    if (!gp_rdb_valid_id(id))
        return gp_err(err, GP_EINVAL, "job id '%s': want a number (see /api/jobs)", id ? id : "");
    const char *p[1] = {id};
    json_t *r = gp_rdb_rows_of(db, "SELECT id FROM jobs WHERE id = ?", p, 1, err);
    if (!r)
        return -err->code;
    size_t n = json_array_size(r);
    json_decref(r);
    return n ? 0 : gp_err(err, GP_ENOENT, "job %s is not in this database (see /api/jobs)", id);
}

/* The store keeps no per-chunk times, but it records where the job was
 * ingested from: when that profile export is still readable here, take the
 * exact ITL by output position from it. NULL when it is not. */
static json_t *export_itl(struct gp_db *db, const char *id)
{
    const char *p[1] = {id};
    json_t *r = gp_rdb_rows_of(db, "SELECT artifact_dir, artifact_file FROM jobs WHERE id = ?", p, 1, NULL);
    json_t *row = json_array_get(r, 0);
    const char *dir = json_string_value(json_object_get(row, "artifact_dir"));
    const char *file = json_string_value(json_object_get(row, "artifact_file"));
    json_t *res = NULL;
    if (dir && file) {
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        const char *suf = strstr(base, "_genai_perf.");
        char path[4096];
        if (suf && snprintf(path, sizeof path, "%s/%.*s.json", dir, (int)(suf - base), base) < (int)sizeof path &&
            gp_is_file(path)) {
            json_t *exp = gp_artifact_load_json(path, NULL);
            json_t *reqs = exp ? gp_artifact_requests(exp) : NULL;
            json_t *ip = json_object_get(reqs, "itl_by_position");
            if (json_is_object(ip))
                res = json_incref(ip);
            json_decref(reqs);
            json_decref(exp);
        }
    }
    json_decref(r);
    return res;
}

struct req_acc {
    json_t *ttft, *lat, *osl, *itl;
};

static int req_row(void *ctx, int ncols, const char *const *names, const char *const *v)
{
    struct req_acc *a = ctx;
    (void)ncols;
    (void)names;
    /* columns: ttft_ns, request_latency_ns, osl, t_start_ns, t_end_ns */
    double ttft = v[0] ? strtod(v[0], NULL) / 1e6 : NAN;
    double lat = v[1] ? strtod(v[1], NULL) / 1e6 : NAN;
    if (isnan(lat) && v[3] && v[4])
        lat = (strtod(v[4], NULL) - strtod(v[3], NULL)) / 1e6;
    if (!isnan(ttft))
        json_array_append_new(a->ttft, json_real(ttft));
    if (!isnan(lat))
        json_array_append_new(a->lat, json_real(lat));
    long osl = v[2] ? strtol(v[2], NULL, 10) : 0;
    if (osl > 1 && !isnan(ttft) && !isnan(lat)) {
        json_array_append_new(a->osl, json_integer(osl));
        json_array_append_new(a->itl, json_real((lat - ttft) / (double)(osl - 1)));
    }
    return 0;
}

int gp_rdb_requests(struct gp_db *db, const char *id, json_t **out, struct gp_error *err)
{
    int rc = job_exists(db, id, err);
    if (rc < 0)
        return rc;
    const char *p[1] = {id};
    struct req_acc a = {json_array(), json_array(), json_array(), json_array()};
    rc = gp_db_query(db,
                     "SELECT ttft_ns, request_latency_ns, osl, t_start_ns, t_end_ns FROM requests "
                     "WHERE job_id = ? AND (status IS NULL OR status = 'ok') AND COALESCE(warmup, 0) = 0 "
                     "ORDER BY request_index",
                     p, 1, req_row, &a, err);
    if (rc < 0) {
        json_decref(a.ttft);
        json_decref(a.lat);
        json_decref(a.osl);
        json_decref(a.itl);
        return rc;
    }
    *out = json_pack("{s:o,s:o,s:O,s:{s:o,s:o}}", "ttft_ms", a.ttft, "latency_ms", a.lat, "itl_by_position",
                     json_null(), "itl_vs_osl", "osl", a.osl, "itl_ms", a.itl);
    json_t *exact = export_itl(db, id);
    if (exact)
        json_object_set_new(*out, "itl_by_position", exact);
    return 0;
}

struct tel_acc {
    json_t *series, *cur;
    const char *dev, *met, *host;
    double t0;
};

static int same_host(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int tel_row(void *ctx, int ncols, const char *const *names, const char *const *v)
{
    struct tel_acc *a = ctx;
    (void)ncols;
    (void)names;
    /* columns: device, metric, t_ns, value, host (NULL: a single-host job) */
    if (!v[0] || !v[1] || !v[2])
        return 0;
    if (!a->cur || strcmp(a->dev, v[0]) != 0 || strcmp(a->met, v[1]) != 0 || !same_host(a->host, v[4])) {
        a->cur = json_pack("{s:s,s:s,s:[],s:[]}", "device", v[0], "metric", v[1], "t_s", "v");
        if (!a->cur)
            return 1;
        /* one series per host x device x metric; "host" only when there are several */
        if (v[4])
            json_object_set_new(a->cur, "host", json_string(v[4]));
        json_array_append_new(a->series, a->cur);
        a->dev = json_string_value(json_object_get(a->cur, "device"));
        a->met = json_string_value(json_object_get(a->cur, "metric"));
        a->host = json_string_value(json_object_get(a->cur, "host"));
    }
    json_array_append_new(json_object_get(a->cur, "t_s"), json_real((strtod(v[2], NULL) - a->t0) / 1e9));
    json_array_append_new(json_object_get(a->cur, "v"), v[3] ? json_real(strtod(v[3], NULL)) : json_null());
    return 0;
}

int gp_rdb_telemetry(struct gp_db *db, const char *id, json_t **out, struct gp_error *err)
{
    int rc = job_exists(db, id, err);
    if (rc < 0)
        return rc;
    const char *p[1] = {id};
    json_t *t0r = gp_rdb_rows_of(db, "SELECT MIN(t_ns) AS t0 FROM telemetry_samples WHERE job_id = ?", p, 1, err);
    if (!t0r)
        return -err->code;
    json_t *t0v = json_object_get(json_array_get(t0r, 0), "t0");
    struct tel_acc a = {json_array(), NULL, NULL, NULL, NULL, json_is_number(t0v) ? json_number_value(t0v) : 0};
    json_decref(t0r);
    rc = gp_db_query(db,
                     "SELECT device, metric, t_ns, value, host FROM telemetry_samples WHERE job_id = ? "
                     "ORDER BY host, device, metric, t_ns",
                     p, 1, tel_row, &a, err);
    if (rc < 0) {
        json_decref(a.series);
        return rc;
    }
    gp_series_downsample(a.series, GP_SERIES_MAX_POINTS);
    *out = json_pack("{s:o}", "series", a.series);
    return 0;
}

/* Adds the three per-job answers of one job to api. */
static int bundle_job(struct gp_db *db, const char *id, json_t *api, struct gp_error *err)
{
    static const char *const paths[] = {"/api/job", "/api/job/requests", "/api/job/telemetry"};
    for (int i = 0; i < 3; i++) {
        json_t *a = NULL;
        int rc = i == 0 ? gp_rdb_job(db, id, &a, err)
                 : i == 1 ? gp_rdb_requests(db, id, &a, err)
                          : gp_rdb_telemetry(db, id, &a, err);
        if (rc < 0)
            return rc;
        char k[96];
        snprintf(k, sizeof k, "%s?id=%s", paths[i], id);
        json_object_set_new(api, k, a);
    }
    return 0;
}

int gp_rdb_bundle(struct gp_db *db, const char *ids, json_t **out, struct gp_error *err)
{
    if (!ids || !*ids)
        return gp_err(err, GP_EINVAL, "--job: name a job id (or several: 3,4,5); list them with genperf results");
    char *dup = strdup(ids);
    if (!dup)
        return gp_err(err, GP_ENOMEM, "out of memory");
    json_t *api = json_object(), *want = json_object();
    int rc = 0, n = 0;
    char *save = NULL, first[32] = "";
    for (char *t = strtok_r(dup, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        if (json_object_get(want, t))
            continue;
        rc = bundle_job(db, t, api, err);
        json_object_set_new(want, t, json_true());
        if (!n++)
            snprintf(first, sizeof first, "%s", t);
    }
    json_t *cmp = NULL, *all = NULL;
    struct gp_jobs_filter f = {0};
    if (rc == 0 && n == 0)
        rc = gp_err(err, GP_EINVAL, "--job %s: name a job id (or several: 3,4,5)", ids);
    if (rc == 0)
        rc = gp_rdb_compare(db, ids, NULL, &cmp, err);
    if (rc == 0)
        rc = gp_rdb_jobs(db, &f, &all, err);
    if (rc < 0) {
        free(dup);
        json_decref(api);
        json_decref(want);
        json_decref(cmp);
        return rc;
    }
    /* The list of a report holds the reported jobs only, with their metrics. */
    json_t *mine = json_array();
    size_t i;
    json_t *j;
    json_array_foreach(json_object_get(all, "jobs"), i, j) {
        char k[32];
        snprintf(k, sizeof k, "%lld", (long long)json_integer_value(json_object_get(j, "id")));
        if (json_object_get(want, k))
            json_array_append(mine, j);
    }
    json_decref(all);
    json_decref(want);
    struct gp_buf k = {0};
    gp_buf_printf(&k, "/api/compare?ids=%s", ids);
    json_object_set_new(api, k.data, cmp);
    json_object_set_new(api, "/api/jobs", json_pack("{s:o}", "jobs", mine));
    gp_buf_reset(&k);
    if (n == 1)
        gp_buf_printf(&k, "#/job/%s", first);
    else
        gp_buf_puts(&k, "#/");
    *out = json_pack("{s:s,s:o}", "start", k.data, "api", api);
    gp_buf_free(&k);
    free(dup);
    return 0;
}

/* ---- the server's source ------------------------------------------------- */

static int rdb_answer(void *self, const char *path, gp_ui_arg_fn get, void *actx, json_t **out,
                      struct gp_error *err)
{
    struct gp_db *db = self;
    if (!strcmp(path, "/api/jobs")) {
        struct gp_jobs_filter f = {0};
        return gp_rdb_jobs(db, &f, out, err);
    }
    if (!strcmp(path, "/api/job"))
        return gp_rdb_job(db, get(actx, "id"), out, err);
    if (!strcmp(path, "/api/job/requests"))
        return gp_rdb_requests(db, get(actx, "id"), out, err);
    if (!strcmp(path, "/api/job/telemetry"))
        return gp_rdb_telemetry(db, get(actx, "id"), out, err);
    if (!strcmp(path, "/api/compare"))
        return gp_rdb_compare(db, get(actx, "ids"), get(actx, "scenario"), out, err);
    return gp_err(err, GP_ENOENT, "%s: unknown endpoint", path);
}

static int rdb_bundle(void *self, const char *ids, json_t **out, struct gp_error *err)
{
    if (!ids || !*ids)
        return gp_err(err, GP_EINVAL, "/report: pass ?id=N or ?id=3,4,5 (the jobs to put in the report)");
    return gp_rdb_bundle(self, ids, out, err);
}

struct gp_ui_src gp_rdb_src(struct gp_db *db)
{
    struct gp_ui_src s = {rdb_answer, rdb_bundle, db};
    return s;
}
