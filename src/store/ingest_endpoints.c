/* store/ingest_endpoints.c — the per-endpoint breakdown of several --url:
 * "scale_out"."endpoints" of <stem>_genperf.json (profile/profile_endpoints.c
 * writes it) -> table job_endpoints (migration 5).
 *
 * Owns: j->eps and each url in it (freed by ig_job_free). The parse step
 * validates every field before the transaction opens, so a bad block rejects
 * the job instead of failing half-way through the write; it also hides the
 * userinfo of each url in the parsed tree, so the genperf_summary copy kept in
 * jobs carries the redacted url too. One --url writes no block: no rows.
 */
#include "store/db.h"
#include "store/db_batch.h"
#include "store/ingest_internal.h"

#include "core/error.h"
#include "core/redact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ig_read_p50_p99(const json_t *e, const char *key, struct ig_opt_d *p50, struct ig_opt_d *p99,
                        const char *path, const char *pre, struct gp_error *err)
{
    char f[160];
    int bad = 0;
    snprintf(f, sizeof f, "%s%s", pre, key);
    const json_t *o = ig_opt_obj(e, key, path, f, &bad, err);
    if (bad)
        return -GP_EINVAL;
    if (!o)
        return 0;
    int r;
    snprintf(f, sizeof f, "%s%s.p50", pre, key);
    if ((r = ig_opt_num(o, "p50", p50, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%s%s.p99", pre, key);
    return ig_opt_num(o, "p99", p99, path, f, err);
}

/* One element of the array: every field checked, the url redacted in place. */
static int read_endpoint(json_t *e, size_t i, struct ig_endpoint *out, const char *path, struct gp_error *err)
{
    char pre[64], f[160];
    snprintf(pre, sizeof pre, "scale_out.endpoints[%zu].", i);
    if (!json_is_object(e))
        return gp_err(err, GP_EINVAL, "%s: field 'scale_out.endpoints[%zu]': expected an object, got %s", path, i,
                      ig_jtype(e));
    struct ig_opt_i idx = {0}, req = {0}, failed = {0};
    int r;
    snprintf(f, sizeof f, "%sendpoint", pre);
    if ((r = ig_opt_int(e, "endpoint", &idx, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%srequests", pre);
    if ((r = ig_opt_int(e, "requests", &req, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%sfailed", pre);
    if ((r = ig_opt_int(e, "failed", &failed, path, f, err)))
        return r;
    json_t *url = json_object_get(e, "url");
    if (!json_is_string(url) || !*json_string_value(url))
        return gp_err(err, GP_EINVAL, "%s: field '%surl': expected a non-empty string, got %s", path, pre,
                      url && json_is_string(url) ? "an empty string" : ig_jtype(url));
    if (!req.set || req.v < 0)
        return gp_err(err, GP_EINVAL, "%s: field '%srequests': expected a count >= 0%s", path, pre,
                      req.set ? "" : ", got nothing");
    if (failed.set && (failed.v < 0 || failed.v > req.v))
        return gp_err(err, GP_EINVAL, "%s: field '%sfailed': %lld is not between 0 and requests (%lld)", path, pre,
                      failed.v, req.v);
    snprintf(f, sizeof f, "%srequest_throughput", pre);
    if ((r = ig_opt_num(e, "request_throughput", &out->req_tput, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%soutput_token_throughput", pre);
    if ((r = ig_opt_num(e, "output_token_throughput", &out->tok_tput, path, f, err)) ||
        (r = ig_read_p50_p99(e, "time_to_first_token_ms", &out->ttft_p50, &out->ttft_p99, path, pre, err)) ||
        (r = ig_read_p50_p99(e, "inter_token_latency_ms", &out->itl_p50, &out->itl_p99, path, pre, err)))
        return r;
    char red[4096];
    if (gp_redact_url(json_string_value(url), red, sizeof red))
        json_string_set(url, red);
    if (!(out->url = strdup(json_string_value(url))))
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    out->index = idx.set ? idx.v : (long long)i;
    out->requests = req.v;
    out->failed = failed.set ? failed.v : 0;
    return 0;
}

int ig_parse_endpoints(struct ig_job *j, json_t *summary, const char *path, struct gp_error *err)
{
    json_t *so = json_object_get(summary, "scale_out");
    if (!so || json_is_null(so))
        return 0;
    if (!json_is_object(so))
        return gp_err(err, GP_EINVAL, "%s: field 'scale_out': expected an object or null, got %s", path,
                      ig_jtype(so));
    json_t *eps = json_object_get(so, "endpoints");
    if (!eps || json_is_null(eps))
        return 0; /* --workers / ranks without several --url */
    if (!json_is_array(eps))
        return gp_err(err, GP_EINVAL, "%s: field 'scale_out.endpoints': expected an array, got %s", path,
                      ig_jtype(eps));
    size_t n = json_array_size(eps);
    if (!n)
        return 0;
    if (!(j->eps = calloc(n, sizeof *j->eps)))
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    for (size_t i = 0; i < n; i++) {
        int r = read_endpoint(json_array_get(eps, i), i, &j->eps[i], path, err);
        j->neps = i + 1; /* so ig_job_free frees a url read before a failure */
        if (r)
            return r;
        /* (job, index) is the key: a repeat would fail mid-write as a raw UNIQUE error */
        for (size_t k = 0; k < i; k++)
            if (j->eps[k].index == j->eps[i].index)
                return gp_err(err, GP_EINVAL, "%s: field 'scale_out.endpoints[%zu].endpoint': index %lld given twice",
                              path, i, j->eps[i].index);
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

int ig_insert_endpoints(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err)
{
    if (!j->neps)
        return 0;
    struct gp_db_batch b;
    if (gp_db_batch_init(&b, db,
                         "INSERT INTO job_endpoints (job_id, endpoint_index, url, requests, failed, request_throughput, "
                         "output_token_throughput, ttft_p50_ms, ttft_p99_ms, itl_p50_ms, itl_p99_ms) VALUES ",
                         11, 50, NULL)) {
        gp_db_batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory inserting endpoints");
    }
    int r = 0;
    for (size_t i = 0; i < j->neps && r == 0; i++) {
        const struct ig_endpoint *e = &j->eps[i];
        gp_db_batch_ll(&b, 0, job_id);
        gp_db_batch_ll(&b, 1, e->index);
        gp_db_batch_text(&b, 2, e->url);
        gp_db_batch_ll(&b, 3, e->requests);
        gp_db_batch_ll(&b, 4, e->failed);
        opt_dbl(&b, 5, &e->req_tput);
        opt_dbl(&b, 6, &e->tok_tput);
        opt_dbl(&b, 7, &e->ttft_p50);
        opt_dbl(&b, 8, &e->ttft_p99);
        opt_dbl(&b, 9, &e->itl_p50);
        opt_dbl(&b, 10, &e->itl_p99);
        r = gp_db_batch_row_done(&b, NULL, err);
    }
    if (r == 0)
        r = gp_db_batch_flush(&b, err);
    gp_db_batch_free(&b);
    return r;
}
