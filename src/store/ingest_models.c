/* store/ingest_models.c — the per-model breakdown of several -m: "models" of
 * <stem>_genperf.json (profile/profile_models.c writes it) -> table
 * job_models (the migration "per-model breakdown").
 *
 * Owns: j->mods and each model name in it (freed by ig_job_free). Every field
 * is checked before the transaction opens, so a bad block rejects the job
 * instead of failing half-way through the write. One -m writes no block: no
 * rows (the job's metric_values are that model's figures).
 */
#include "store/db.h"
#include "store/db_batch.h"
#include "store/ingest_internal.h"

#include "core/error.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One element of the array, every field checked. */
static int read_model(const json_t *e, size_t i, struct ig_model *out, const char *path, struct gp_error *err)
{
    char pre[64], f[160];
    snprintf(pre, sizeof pre, "models[%zu].", i);
    if (!json_is_object(e))
        return gp_err(err, GP_EINVAL, "%s: field 'models[%zu]': expected an object, got %s", path, i, ig_jtype(e));
    const json_t *name = json_object_get(e, "model");
    if (!json_is_string(name) || !*json_string_value(name))
        return gp_err(err, GP_EINVAL, "%s: field '%smodel': expected a non-empty string, got %s", path, pre,
                      name && json_is_string(name) ? "an empty string" : ig_jtype(name));
    struct ig_opt_i req = {0}, failed = {0};
    int r;
    snprintf(f, sizeof f, "%srequests", pre);
    if ((r = ig_opt_int(e, "requests", &req, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%sfailed", pre);
    if ((r = ig_opt_int(e, "failed", &failed, path, f, err)))
        return r;
    if (!req.set || req.v < 0)
        return gp_err(err, GP_EINVAL, "%s: field '%srequests': expected a count >= 0%s", path, pre,
                      req.set ? "" : ", got nothing");
    if (failed.set && (failed.v < 0 || failed.v > req.v))
        return gp_err(err, GP_EINVAL, "%s: field '%sfailed': %lld is not between 0 and requests (%lld)", path, pre,
                      failed.v, req.v);
    static const struct {
        const char *key;
        size_t off;
    } nums[] = {
        {"weight", offsetof(struct ig_model, weight)},
        {"share", offsetof(struct ig_model, share)},
        {"request_throughput", offsetof(struct ig_model, req_tput)},
        {"output_token_throughput", offsetof(struct ig_model, tok_tput)},
    };
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        snprintf(f, sizeof f, "%s%s", pre, nums[k].key);
        if ((r = ig_opt_num(e, nums[k].key, (struct ig_opt_d *)((char *)out + nums[k].off), path, f, err)))
            return r;
    }
    if ((r = ig_read_p50_p99(e, "time_to_first_token_ms", &out->ttft_p50, &out->ttft_p99, path, pre, err)) ||
        (r = ig_read_p50_p99(e, "inter_token_latency_ms", &out->itl_p50, &out->itl_p99, path, pre, err)) ||
        (r = ig_read_p50_p99(e, "request_latency_ms", &out->lat_p50, &out->lat_p99, path, pre, err)))
        return r;
    if (!(out->model = strdup(json_string_value(name))))
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    out->requests = req.v;
    out->failed = failed.set ? failed.v : 0;
    return 0;
}

int ig_parse_models(struct ig_job *j, json_t *summary, const char *path, struct gp_error *err)
{
    const json_t *ms = json_object_get(summary, "models");
    if (!ms || json_is_null(ms))
        return 0;
    if (!json_is_array(ms))
        return gp_err(err, GP_EINVAL, "%s: field 'models': expected an array, got %s", path, ig_jtype(ms));
    size_t n = json_array_size(ms);
    if (!n)
        return 0;
    if (!(j->mods = calloc(n, sizeof *j->mods)))
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    for (size_t i = 0; i < n; i++) {
        int r = read_model(json_array_get(ms, i), i, &j->mods[i], path, err);
        j->nmods = i + 1; /* so ig_job_free frees a name read before a failure */
        if (r)
            return r;
        /* (job, model) is the key: a repeat would fail mid-write as a raw UNIQUE error */
        for (size_t k = 0; k < i; k++)
            if (!strcmp(j->mods[k].model, j->mods[i].model))
                return gp_err(err, GP_EINVAL, "%s: field 'models[%zu].model': '%s' given twice", path, i,
                              j->mods[i].model);
    }
    return 0;
}

static void opt_dbl(struct gp_db_batch *b, int c, const struct ig_opt_d *o)
{
    if (o->set)
        gp_db_batch_dbl(b, c, o->v);
    else
        gp_db_batch_text(b, c, NULL);
}

int ig_insert_models(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err)
{
    if (!j->nmods)
        return 0;
    struct gp_db_batch b;
    if (gp_db_batch_init(&b, db,
                         "INSERT INTO job_models (job_id, model_index, model, weight, requests, failed, share, "
                         "request_throughput, output_token_throughput, ttft_p50_ms, ttft_p99_ms, itl_p50_ms, "
                         "itl_p99_ms, latency_p50_ms, latency_p99_ms) VALUES ",
                         15, 40, NULL)) {
        gp_db_batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory inserting models");
    }
    int r = 0;
    for (size_t i = 0; i < j->nmods && r == 0; i++) {
        const struct ig_model *m = &j->mods[i];
        gp_db_batch_ll(&b, 0, job_id);
        gp_db_batch_ll(&b, 1, (long long)i);
        gp_db_batch_text(&b, 2, m->model);
        opt_dbl(&b, 3, &m->weight);
        gp_db_batch_ll(&b, 4, m->requests);
        gp_db_batch_ll(&b, 5, m->failed);
        opt_dbl(&b, 6, &m->share);
        opt_dbl(&b, 7, &m->req_tput);
        opt_dbl(&b, 8, &m->tok_tput);
        opt_dbl(&b, 9, &m->ttft_p50);
        opt_dbl(&b, 10, &m->ttft_p99);
        opt_dbl(&b, 11, &m->itl_p50);
        opt_dbl(&b, 12, &m->itl_p99);
        opt_dbl(&b, 13, &m->lat_p50);
        opt_dbl(&b, 14, &m->lat_p99);
        r = gp_db_batch_row_done(&b, NULL, err);
    }
    if (r == 0)
        r = gp_db_batch_flush(&b, err);
    gp_db_batch_free(&b);
    return r;
}
