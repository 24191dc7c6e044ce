/* store/ingest_timeslices.c — the per-slice metrics of --timeslice-duration:
 * "timeslices" of <stem>_genperf.json (export/timeslices.c writes it) ->
 * table job_timeslices (migration 8).
 *
 * Owns: j->slices (freed by ig_job_free). The parse step validates every
 * field before the transaction opens, so a bad block rejects the job instead
 * of failing half-way through the write. A run without the flag has no block:
 * no rows.
 */
#include "store/db.h"
#include "store/db_batch.h"
#include "store/ingest_internal.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>

static int read_slice(const json_t *e, size_t i, struct ig_timeslice *out, const char *path, struct gp_error *err)
{
    char f[160];
    if (!json_is_object(e))
        return gp_err(err, GP_EINVAL, "%s: field 'timeslices[%zu]': expected an object, got %s", path, i,
                      ig_jtype(e));
    struct ig_opt_i idx = {0}, req = {0}, ok = {0}, failed = {0};
    struct ig_opt_d a = {0}, b = {0};
    static const char *const ck[4] = {"index", "requests", "completed", "failures"};
    struct ig_opt_i *cv[4] = {&idx, &req, &ok, &failed};
    int r;
    for (int k = 0; k < 4; k++) {
        snprintf(f, sizeof f, "timeslices[%zu].%s", i, ck[k]);
        if ((r = ig_opt_count(e, ck[k], cv[k], path, f, err)))
            return r;
        if (!cv[k]->set)
            return gp_err(err, GP_EINVAL, "%s: field '%s': expected a count >= 0, got nothing", path, f);
    }
    snprintf(f, sizeof f, "timeslices[%zu].start_s", i);
    if ((r = ig_opt_nonneg(e, "start_s", &a, path, f, err)))
        return r;
    snprintf(f, sizeof f, "timeslices[%zu].end_s", i);
    if ((r = ig_opt_nonneg(e, "end_s", &b, path, f, err)))
        return r;
    if (!a.set || !b.set || b.v < a.v)
        return gp_err(err, GP_EINVAL, "%s: field 'timeslices[%zu]': start_s and end_s must be seconds with "
                      "start_s <= end_s", path, i);
    if (ok.v + failed.v != req.v)
        return gp_err(err, GP_EINVAL, "%s: field 'timeslices[%zu]': completed (%lld) + failures (%lld) is not "
                      "requests (%lld)", path, i, ok.v, failed.v, req.v);
    static const char *const dk[8] = {"request_throughput", "output_token_throughput", "ttft_p50_ms", "ttft_p99_ms",
                                      "itl_p50_ms", "itl_p99_ms", "latency_p50_ms", "latency_p99_ms"};
    struct ig_opt_d *dv[8] = {&out->req_tput, &out->tok_tput, &out->ttft_p50, &out->ttft_p99,
                              &out->itl_p50, &out->itl_p99, &out->lat_p50, &out->lat_p99};
    for (int k = 0; k < 8; k++) {
        snprintf(f, sizeof f, "timeslices[%zu].%s", i, dk[k]);
        if ((r = ig_opt_nonneg(e, dk[k], dv[k], path, f, err)))
            return r;
    }
    out->index = idx.v;
    out->requests = req.v;
    out->completed = ok.v;
    out->failures = failed.v;
    out->start_s = a.v;
    out->end_s = b.v;
    return 0;
}

int ig_parse_timeslices(struct ig_job *j, const json_t *summary, const char *path, struct gp_error *err)
{
    const json_t *ts = json_object_get(summary, "timeslices");
    if (!ts || json_is_null(ts))
        return 0;
    if (!json_is_array(ts))
        return gp_err(err, GP_EINVAL, "%s: field 'timeslices': expected an array or null, got %s", path,
                      ig_jtype(ts));
    struct ig_opt_d dur = {0};
    struct ig_opt_i origin = {0};
    int r;
    if ((r = ig_opt_nonneg(summary, "timeslice_duration_s", &dur, path, "timeslice_duration_s", err)) ||
        (r = ig_opt_count(summary, "timeslice_origin_wall_ns", &origin, path, "timeslice_origin_wall_ns", err)))
        return r;
    if (!dur.set || !(dur.v > 0))
        return gp_err(err, GP_EINVAL, "%s: field 'timeslice_duration_s': expected seconds > 0 beside 'timeslices'",
                      path);
    size_t n = json_array_size(ts);
    if (!n)
        return 0;
    if (!(j->slices = calloc(n, sizeof *j->slices)))
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    for (size_t i = 0; i < n; i++) {
        if ((r = read_slice(json_array_get(ts, i), i, &j->slices[i], path, err)))
            return r;
        j->nslices = i + 1;
        /* (job, index) is the key: a repeat would fail mid-write as a raw UNIQUE error */
        for (size_t k = 0; k < i; k++)
            if (j->slices[k].index == j->slices[i].index)
                return gp_err(err, GP_EINVAL, "%s: field 'timeslices[%zu].index': index %lld given twice", path, i,
                              j->slices[i].index);
    }
    j->slice_s = dur.v;
    j->slice_origin_wall_ns = origin.set ? origin.v : -1;
    return 0;
}

static void opt_dbl(struct gp_db_batch *b, int c, const struct ig_opt_d *o)
{
    if (o->set)
        gp_db_batch_dbl(b, c, o->v);
    else
        gp_db_batch_text(b, c, NULL);
}

int ig_insert_timeslices(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err)
{
    if (!j->nslices)
        return 0;
    struct gp_db_batch b;
    if (gp_db_batch_init(&b, db,
                         "INSERT INTO job_timeslices (job_id, slice_index, duration_s, origin_wall_ns, start_s, end_s, "
                         "requests, completed, failures, request_throughput, output_token_throughput, ttft_p50_ms, "
                         "ttft_p99_ms, itl_p50_ms, itl_p99_ms, latency_p50_ms, latency_p99_ms) VALUES ",
                         17, 50, NULL)) {
        gp_db_batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory inserting time slices");
    }
    int r = 0;
    for (size_t i = 0; i < j->nslices && r == 0; i++) {
        const struct ig_timeslice *s = &j->slices[i];
        gp_db_batch_ll(&b, 0, job_id);
        gp_db_batch_ll(&b, 1, s->index);
        gp_db_batch_dbl(&b, 2, j->slice_s);
        if (j->slice_origin_wall_ns >= 0)
            gp_db_batch_ll(&b, 3, j->slice_origin_wall_ns);
        else
            gp_db_batch_text(&b, 3, NULL);
        gp_db_batch_dbl(&b, 4, s->start_s);
        gp_db_batch_dbl(&b, 5, s->end_s);
        gp_db_batch_ll(&b, 6, s->requests);
        gp_db_batch_ll(&b, 7, s->completed);
        gp_db_batch_ll(&b, 8, s->failures);
        const struct ig_opt_d *dv[8] = {&s->req_tput, &s->tok_tput, &s->ttft_p50, &s->ttft_p99,
                                        &s->itl_p50, &s->itl_p99, &s->lat_p50, &s->lat_p99};
        for (int k = 0; k < 8; k++)
            opt_dbl(&b, 9 + k, dv[k]);
        r = gp_db_batch_row_done(&b, NULL, err);
    }
    if (r == 0)
        r = gp_db_batch_flush(&b, err);
    gp_db_batch_free(&b);
    return r;
}
