/* report/rdb_compare.c — /api/compare from the results store: the jobs
 * chosen by ids or a scenario label, one point per job (its load, the
 * metrics the compare view charts, Pareto membership, the SLOs it was run
 * with). Split from rdb.c, whose row helpers (rdb_int.h) it uses.
 *
 * Owns: the json_t it returns (the caller's).
 */
#include "report/report.h"
#include "report/rdb_int.h"

#include "core/buf.h"
#include "core/error.h"
#include "store/db.h"

#include <stdlib.h>
#include <string.h>

/* The WHERE clause choosing the compared jobs (ids=1,2,... or a scenario
 * label) and its parameters; *params (pointing into *dup or scenario) and
 * *dup are the caller's to free. */
static int compare_where(const char *ids, const char *scenario, struct gp_buf *where, const char ***params, int *np,
                         char **dup, struct gp_error *err)
{
    if (ids && *ids) {
        *dup = strdup(ids);
        size_t cap = 1;
        for (const char *c = ids; *c; c++)
            cap += *c == ',';
        *params = calloc(cap, sizeof **params);
        if (!*dup || !*params)
            return gp_err(err, GP_ENOMEM, "out of memory");
        gp_buf_puts(where, "job_id IN (");
        char *save = NULL;
        for (char *t = strtok_r(*dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (!gp_rdb_valid_id(t))
                return gp_err(err, GP_EINVAL, "ids=%s: want job ids separated by commas, e.g. ids=3,4,5", ids);
            gp_buf_puts(where, *np ? ",?" : "?");
            (*params)[(*np)++] = t;
        }
        gp_buf_puts(where, ")");
        if (!*np)
            return gp_err(err, GP_EINVAL, "ids=: name at least one job");
        return 0;
    }
    if (scenario && *scenario) {
        *params = calloc(1, sizeof **params);
        if (!*params)
            return gp_err(err, GP_ENOMEM, "out of memory");
        gp_buf_puts(where, "job_label = ?");
        (*params)[(*np)++] = scenario;
        return 0;
    }
    return gp_err(err, GP_EINVAL, "/api/compare: pass ?ids=1,2,... or ?scenario=NAME (a job label)");
}

/* The compared jobs, their headline metric values and their goodput SLOs
 * (three row arrays, the caller's); 0, or an error with none returned. */
static int compare_rows(struct gp_db *db, const char *where, const char **params, int np, json_t **jobs,
                        json_t **ms, json_t **slos, struct gp_error *err)
{
    struct gp_buf q = {0};
    gp_buf_printf(&q, "SELECT * FROM v_jobs WHERE %s ORDER BY concurrency, request_rate, job_id", where);
    *jobs = gp_rdb_rows_of(db, q.data, params, np, err);
    gp_buf_reset(&q);
    gp_buf_printf(&q,
                  "SELECT job_id, metric_code AS metric, stat, value FROM metric_values WHERE job_id IN "
                  "(SELECT job_id FROM v_jobs WHERE %s) AND stat IN ('avg', 'p50', 'p99') AND metric_code IN "
                  "('request_throughput', 'output_token_throughput', 'output_token_throughput_per_user', "
                  "'time_to_first_token', 'inter_token_latency', 'request_latency', 'output_tokens_per_joule', "
                  "'usd_per_million_output_tokens')",
                  where);
    *ms = *jobs ? gp_rdb_rows_of(db, q.data, params, np, err) : NULL;
    /* goodput_slos is a JSON column v_jobs leaves out; artifact_dir finds a search's CSV. */
    gp_buf_reset(&q);
    gp_buf_printf(&q, "SELECT id, goodput_slos FROM jobs WHERE id IN (SELECT job_id FROM v_jobs WHERE %s)", where);
    *slos = *ms ? gp_rdb_rows_of(db, q.data, params, np, err) : NULL;
    gp_buf_free(&q);
    if (*jobs && *ms && *slos)
        return 0;
    json_decref(*jobs);
    json_decref(*ms);
    *jobs = *ms = *slos = NULL;
    return -err->code;
}

/* "concurrency 8, ISL 550 / OSL 150" (or rate, or the job id) */
static void compare_label(json_t *j, char *label, size_t size)
{
    json_t *jid = json_object_get(j, "job_id");
    json_t *conc = json_object_get(j, "concurrency"), *rate = json_object_get(j, "request_rate");
    json_t *isl = json_object_get(j, "isl"), *osl = json_object_get(j, "osl");
    int n = 0;
    if (json_is_number(conc))
        n = snprintf(label, size, "concurrency %g", json_number_value(conc));
    else if (json_is_number(rate))
        n = snprintf(label, size, "rate %g/s", json_number_value(rate));
    else
        n = snprintf(label, size, "job %lld", (long long)json_integer_value(jid));
    if (json_is_number(isl) && json_is_number(osl) && n > 0 && (size_t)n < size)
        snprintf(label + n, size - (size_t)n, ", ISL %g / OSL %g", json_number_value(isl), json_number_value(osl));
}

/* The job's headline metrics on its point: throughputs' and the energy /
 * cost figures' avg as <code> (the Pareto chart's other y axes), latencies'
 * p50/p99 as <code>_<stat>. */
static void point_add_metrics(json_t *pt, json_t *jid, json_t *ms)
{
    size_t k;
    json_t *m;
    json_array_foreach(ms, k, m) {
        if (!json_equal(json_object_get(m, "job_id"), jid))
            continue;
        const char *code = json_string_value(json_object_get(m, "metric"));
        const char *stat = json_string_value(json_object_get(m, "stat"));
        json_t *v = json_object_get(m, "value");
        if (!code || !stat || !json_is_number(v))
            continue;
        char key[128];
        int thr = !strncmp(code, "request_throughput", 18) || !strncmp(code, "output_token_throughput", 23) ||
                  !strcmp(code, "output_tokens_per_joule") || !strcmp(code, "usd_per_million_output_tokens");
        if (thr && !strcmp(stat, "avg"))
            snprintf(key, sizeof key, "%s", code);
        else if (!thr && (!strcmp(stat, "p50") || !strcmp(stat, "p99")))
            snprintf(key, sizeof key, "%s_%s", code, stat);
        else
            continue;
        json_object_set_new(pt, key, json_real(json_number_value(v)));
    }
}

/* One job's point of the comparison (new reference). */
static json_t *compare_point(json_t *j, json_t *ms, json_t *slos)
{
    json_t *jid = json_object_get(j, "job_id");
    char label[256];
    compare_label(j, label, sizeof label);
    json_t *pt = json_pack("{s:O,s:s,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}", "id", jid, "label", label, "model",
                           json_object_get(j, "model"), "framework", json_object_get(j, "framework"), "hardware",
                           json_object_get(j, "hardware"), "scenario", json_object_get(j, "job_label"),
                           "concurrency", json_object_get(j, "concurrency"), "request_rate",
                           json_object_get(j, "request_rate"));
    json_object_set(pt, "tool", json_object_get(j, "producer"));
    json_object_set(pt, "gpu_count", json_object_get(j, "gpu_count"));
    /* the compare view warns when jobs differ in model or endpoint type */
    json_object_set(pt, "endpoint_type", json_object_get(j, "endpoint_type"));
    json_object_set(pt, "artifact_dir", json_object_get(j, "artifact_dir"));
    size_t k;
    json_t *m;
    json_array_foreach(slos, k, m) {
        const char *txt = json_string_value(json_object_get(m, "goodput_slos"));
        if (json_equal(json_object_get(m, "id"), jid) && txt) {
            json_t *o = json_loads(txt, 0, NULL);
            if (json_is_object(o))
                json_object_set(pt, "slos", o);
            json_decref(o);
        }
    }
    point_add_metrics(pt, jid, ms);
    return pt;
}

int gp_rdb_compare(struct gp_db *db, const char *ids, const char *scenario, json_t **out, struct gp_error *err)
{
    struct gp_buf where = {0};
    const char **params = NULL;
    int np = 0;
    char *dup = NULL;
    json_t *jobs = NULL, *ms = NULL, *slos = NULL;
    int rc = compare_where(ids, scenario, &where, &params, &np, &dup, err);
    if (!rc)
        rc = compare_rows(db, where.data, params, np, &jobs, &ms, &slos, err);
    if (!rc) {
        json_t *points = json_array();
        size_t i;
        json_t *j;
        json_array_foreach(jobs, i, j)
            json_array_append_new(points, compare_point(j, ms, slos));
        json_decref(jobs);
        json_decref(ms);
        json_decref(slos);
        *out = json_pack("{s:o}", "points", points);
        gp_compare_decorate(*out);
    }
    free(dup);
    free(params);
    gp_buf_free(&where);
    return rc;
}
