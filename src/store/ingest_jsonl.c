/* store/ingest_jsonl.c — our JSONL files: <stem>_records.jsonl (one line per
 * request) and <stem>_telemetry.jsonl (one line per sample), plus the
 * per-request rows of perf_analyzer's export for GenAI-Perf runs.
 *
 * Owns: each open reader (core/fsutil's gp_jsonl_file: the file and its
 * line buffer, closed before returning), and each parsed line until the
 * batch that points into it is written.
 *
 * Each file is streamed twice: once to validate (before the transaction, so
 * a bad line rejects the job before anything is written) and once inside the
 * transaction to insert. A million-line file never sits in memory. Both
 * loops poll the job's stop flag, so Ctrl-C never waits for a huge file.
 */
#include "store/ingest_internal.h"
#include "store/db_batch.h"

#include "core/error.h"
#include "core/fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static const char *const rec_int_fields[] = {"entry", "t_start_ns", "t_end_ns", "http_status", "ttft_ns",
                                            "request_latency_ns", "isl", "osl", "osl_asked",
                                            "server_prompt_tokens", "server_completion_tokens",
                                            "content_chunks", "reasoning_tokens"};
#define N_REC_INT (sizeof rec_int_fields / sizeof rec_int_fields[0])

struct rec {
    long long index;
    struct ig_opt_i ints[N_REC_INT];
    int failed, warmup;
    const char *error;
};

static int read_rec(const json_t *o, const char *path, long lineno, struct rec *r, struct gp_error *err)
{
    memset(r, 0, sizeof *r);
    char field[80];
    struct ig_opt_i idx = {0};
    snprintf(field, sizeof field, "line %ld: request_index", lineno);
    if (ig_opt_int(o, "request_index", &idx, path, field, err))
        return -GP_EINVAL;
    if (!idx.set || idx.v < 0)
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: request_index': required, a non-negative integer", path,
                      lineno);
    r->index = idx.v;
    for (size_t i = 0; i < N_REC_INT; i++) {
        snprintf(field, sizeof field, "line %ld: %s", lineno, rec_int_fields[i]);
        if (ig_opt_count(o, rec_int_fields[i], &r->ints[i], path, field, err))
            return -GP_EINVAL;
    }
    /* ints[1], ints[2]: t_start_ns, t_end_ns */
    if (r->ints[1].set && r->ints[2].set && r->ints[2].v < r->ints[1].v)
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: t_end_ns': %lld is before t_start_ns %lld", path, lineno,
                      r->ints[2].v, r->ints[1].v);
    const json_t *st = json_object_get(o, "status");
    if (!json_is_string(st) || (strcmp(json_string_value(st), "ok") && strcmp(json_string_value(st), "failed")))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: status': expected \"ok\" or \"failed\"", path, lineno);
    r->failed = !strcmp(json_string_value(st), "failed");
    snprintf(field, sizeof field, "line %ld: warmup", lineno);
    if (ig_opt_bool(o, "warmup", &r->warmup, path, field, err))
        return -GP_EINVAL;
    const json_t *e = json_object_get(o, "error");
    if (e && !json_is_null(e) && !json_is_string(e))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: error': expected a string or null, got %s", path, lineno,
                      ig_jtype(e));
    r->error = json_is_string(e) ? json_string_value(e) : NULL;
    return 0;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

int ig_validate_records(struct ig_job *j, struct gp_error *err)
{
    struct gp_jsonl_file jl;
    if (gp_jsonl_open(&jl, j->records_path, err))
        return -GP_EIO;
    long long *idx = NULL;
    size_t n = 0, cap = 0, ok = 0, failed = 0;
    int r = 0;
    json_t *o;
    while ((r = gp_jsonl_next(&jl, &o, err)) == 1) {
        struct rec rc;
        r = ig_check_stop(j, err);
        if (!r)
            r = read_rec(o, j->records_path, jl.lineno, &rc, err);
        json_decref(o);
        if (r)
            break;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            long long *ni = realloc(idx, cap * sizeof *ni);
            if (!ni) {
                r = gp_err(err, GP_ENOMEM, "out of memory reading %s", j->records_path);
                break;
            }
            idx = ni;
        }
        idx[n++] = rc.index;
        if (!rc.warmup)
            rc.failed ? failed++ : ok++;
    }
    if (r == 0 && n > 1) {
        qsort(idx, n, sizeof *idx, cmp_ll);
        for (size_t i = 1; i < n; i++)
            if (idx[i] == idx[i - 1]) {
                r = gp_err(err, GP_EINVAL, "%s: field 'request_index': %lld appears more than once", j->records_path,
                           idx[i]);
                break;
            }
    }
    free(idx);
    gp_jsonl_close(&jl);
    if (r < 0)
        return r;
    j->n_records = n;
    j->requests_ok.set = j->requests_failed.set = 1;
    j->requests_ok.v = (long long)ok;
    j->requests_failed.v = (long long)failed;
    return 0;
}

/* 1 = a sample, 0 = a status line to skip, <0 = rejection. */
static int read_sample(const json_t *o, const char *path, long lineno, struct ig_opt_i *t, struct ig_opt_i *w,
                       const char **host, const char **device, const char **metric, double *value,
                       struct gp_error *err)
{
    const json_t *m = json_object_get(o, "metric"), *v = json_object_get(o, "value");
    if (json_is_string(m) && !strcmp(json_string_value(m), "unavailable"))
        return 0;
    char field[64];
    t->set = w->set = 0;
    snprintf(field, sizeof field, "line %ld: t_ns", lineno);
    if (ig_opt_int(o, "t_ns", t, path, field, err))
        return -GP_EINVAL;
    snprintf(field, sizeof field, "line %ld: wall_ns", lineno);
    if (ig_opt_int(o, "wall_ns", w, path, field, err))
        return -GP_EINVAL;
    if (!t->set)
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: t_ns': required, an integer (monotonic ns)", path, lineno);
    const json_t *d = json_object_get(o, "device");
    if (!json_is_string(d) || !*json_string_value(d))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: device': required, a string like \"gpu0\"", path, lineno);
    if (!json_is_string(m) || !*json_string_value(m))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: metric': required, a string like \"power_w\"", path,
                      lineno);
    if (!json_is_number(v))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: value': expected a number, got %s", path, lineno,
                      v ? ig_jtype(v) : "nothing");
    /* "host": only in a file of several hosts (mpirun); absent = NULL */
    const json_t *h = json_object_get(o, "host");
    if (h && !json_is_string(h))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: host': expected a string, got %s", path, lineno,
                      ig_jtype(h));
    *host = h ? json_string_value(h) : NULL;
    *device = json_string_value(d);
    *metric = json_string_value(m);
    *value = json_number_value(v);
    return 1;
}

int ig_validate_telemetry(struct ig_job *j, struct gp_error *err)
{
    struct gp_jsonl_file jl;
    if (gp_jsonl_open(&jl, j->telemetry_path, err))
        return -GP_EIO;
    int r;
    size_t n = 0;
    json_t *o;
    while ((r = gp_jsonl_next(&jl, &o, err)) == 1) {
        struct ig_opt_i t, w;
        const char *h, *d, *m;
        double v;
        r = ig_check_stop(j, err);
        if (!r)
            r = read_sample(o, j->telemetry_path, jl.lineno, &t, &w, &h, &d, &m, &v, err);
        json_decref(o);
        if (r < 0)
            break;
        n += (size_t)r;
        r = 0;
    }
    gp_jsonl_close(&jl);
    if (r < 0)
        return r;
    j->n_samples = n;
    return 0;
}
static void release_json(void *p)
{
    json_decref(p);
}

static void batch_opt_int(struct gp_db_batch *b, int c, const struct ig_opt_i *v)
{
    if (v->set)
        gp_db_batch_ll(b, c, v->v);
    else
        gp_db_batch_text(b, c, NULL);
}

static int records_from_jsonl(struct gp_db_batch *b, struct ig_job *j, long long job_id, struct gp_error *err)
{
    struct gp_jsonl_file jl;
    int r;
    if ((r = gp_jsonl_open(&jl, j->records_path, err)))
        return r;
    json_t *o;
    while ((r = gp_jsonl_next(&jl, &o, err)) == 1) {
        struct rec rc;
        if ((r = ig_check_stop(j, err)) || (r = read_rec(o, j->records_path, jl.lineno, &rc, err))) {
            json_decref(o);
            break;
        }
        gp_db_batch_ll(b, 0, job_id);
        gp_db_batch_ll(b, 1, rc.index);
        gp_db_batch_text(b, 2, rc.failed ? "failed" : "ok");
        gp_db_batch_text(b, 3, rc.warmup ? "1" : "0");
        gp_db_batch_text(b, 4, rc.error); /* points into o, kept with the row */
        for (size_t i = 0; i < N_REC_INT; i++)
            batch_opt_int(b, 5 + (int)i, &rc.ints[i]);
        if ((r = gp_db_batch_row_done(b, o, err)))
            break;
    }
    gp_jsonl_close(&jl);
    return r;
}

/* GenAI-Perf run: request timing from perf_analyzer's export (validated
 * when it was parsed). */
static int records_from_export(struct gp_db_batch *b, struct ig_job *j, long long job_id, struct gp_error *err)
{
    const json_t *ex = json_object_get(j->export_json, "experiments");
    long long index = 0;
    int r = 0;
    for (size_t e = 0; r == 0 && e < json_array_size(ex); e++) {
        const json_t *reqs = json_object_get(json_array_get(ex, e), "requests");
        for (size_t i = 0; r == 0 && i < json_array_size(reqs); i++) {
            const json_t *rq = json_array_get(reqs, i);
            long long s = json_integer_value(json_object_get(rq, "timestamp")), last = s;
            const json_t *rts = json_object_get(rq, "response_timestamps");
            for (size_t k = 0; k < json_array_size(rts); k++)
                if (json_integer_value(json_array_get(rts, k)) > last)
                    last = json_integer_value(json_array_get(rts, k));
            gp_db_batch_clear_row(b);
            gp_db_batch_ll(b, 0, job_id);
            gp_db_batch_ll(b, 1, index++);
            gp_db_batch_text(b, 2, "ok");
            gp_db_batch_text(b, 3, "0");
            gp_db_batch_ll(b, 6, s);
            gp_db_batch_ll(b, 7, last);
            if (!(r = ig_check_stop(j, err)))
                r = gp_db_batch_row_done(b, NULL, err);
        }
    }
    j->n_records = (size_t)index;
    return r;
}

int ig_insert_records(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err)
{
    struct gp_db_batch b;
    int r = gp_db_batch_init(&b, db,
                             "INSERT INTO requests (job_id, request_index, status, warmup, error, entry, "
                             "t_start_ns, t_end_ns, http_status, ttft_ns, request_latency_ns, isl, osl, osl_asked, "
                             "server_prompt_tokens, server_completion_tokens, content_chunks, reasoning_tokens) "
                             "VALUES ",
                             18, 100, release_json);
    if (r) {
        gp_db_batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory inserting records");
    }
    if (j->records_path[0])
        r = records_from_jsonl(&b, j, job_id, err);
    else if (j->export_json)
        r = records_from_export(&b, j, job_id, err);
    if (r >= 0)
        r = gp_db_batch_flush(&b, err);
    gp_db_batch_free(&b);
    return r < 0 ? r : 0;
}

int ig_insert_samples(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err)
{
    if (!j->telemetry_path[0])
        return 0;
    struct gp_db_batch b;
    int r = gp_db_batch_init(&b, db,
                             "INSERT INTO telemetry_samples (job_id, t_ns, wall_ns, device, metric, value, host) VALUES ",
                             7, 200, release_json);
    struct gp_jsonl_file jl;
    if (r || (r = gp_jsonl_open(&jl, j->telemetry_path, err))) {
        gp_db_batch_free(&b);
        return r ? r : gp_err(err, GP_ENOMEM, "out of memory inserting telemetry");
    }
    json_t *o;
    while ((r = gp_jsonl_next(&jl, &o, err)) == 1) {
        struct ig_opt_i t, w;
        const char *h, *d, *m;
        double v;
        r = ig_check_stop(j, err);
        if (!r)
            r = read_sample(o, j->telemetry_path, jl.lineno, &t, &w, &h, &d, &m, &v, err);
        if (r <= 0) {
            json_decref(o);
            if (r < 0)
                break;
            continue;
        }
        gp_db_batch_ll(&b, 0, job_id);
        batch_opt_int(&b, 1, &t);
        batch_opt_int(&b, 2, &w);
        gp_db_batch_text(&b, 3, d);
        gp_db_batch_text(&b, 4, m);
        gp_db_batch_dbl(&b, 5, v);
        gp_db_batch_text(&b, 6, h);
        if ((r = gp_db_batch_row_done(&b, o, err)))
            break;
    }
    gp_jsonl_close(&jl);
    if (r >= 0)
        r = gp_db_batch_flush(&b, err);
    gp_db_batch_free(&b);
    return r < 0 ? r : 0;
}
