/* compare/compare_store.c — one side of a comparison read from the results
 * store (docs/store.md): a job id, or a label naming every job ingested under
 * it (the repeats). A job's run-level values come from metric_values, its
 * failure rate and fidelity from jobs.genperf_summary (our _genperf.json as
 * ingested), its per-request samples from the requests table, so a job
 * compares exactly as the artifact directory it was ingested from (ITL per
 * request is (latency - TTFT) / (OSL - 1), GenAI-Perf's definition and the
 * records' itl_ns). */
#include "compare/compare.h"
#include "compare/compare_int.h"

#include "core/error.h"
#include "store/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job_row {
    char id[24];
    json_t *input_config, *summary;
};

struct jobs_ctx {
    struct job_row *rows;
    size_t n;
    int nomem;
};

static json_t *parse_or_null(const char *text) { return text ? json_loads(text, 0, NULL) : NULL; }

static int job_row(void *ctx, int ncols, const char *const *names, const char *const *v)
{
    struct jobs_ctx *c = ctx;
    struct job_row *nr = realloc(c->rows, (c->n + 1) * sizeof *nr);
    if (!nr) {
        c->nomem = 1;
        return 1;
    }
    c->rows = nr;
    snprintf(nr[c->n].id, sizeof nr[c->n].id, "%s", v[0] ? v[0] : "");
    nr[c->n].input_config = parse_or_null(v[1]);
    nr[c->n].summary = parse_or_null(v[2]);
    c->n++;
    return 0;
}

/* metric_values rows -> {"metric": {"stat": value}} */
static int metric_row(void *ctx, int ncols, const char *const *names, const char *const *v)
{
    json_t *genai = ctx;
    if (!v[0] || !v[1] || !v[2])
        return 0;
    json_t *m = json_object_get(genai, v[0]);
    if (!m) {
        m = json_object();
        json_object_set_new(genai, v[0], m);
    }
    json_object_set_new(m, v[1], json_real(strtod(v[2], NULL)));
    return 0;
}

static void set_num(json_t *o, const char *key, const char *v)
{
    if (v)
        json_object_set_new(o, key, json_real(strtod(v, NULL)));
}

/* requests rows -> records.jsonl-shaped objects in an array */
static int request_row(void *ctx, int ncols, const char *const *names, const char *const *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(v[0] ? v[0] : "failed"));
    json_object_set_new(o, "warmup", json_boolean(v[1] && strcmp(v[1], "0")));
    set_num(o, "t_start_ns", v[2]);
    set_num(o, "t_end_ns", v[3]);
    set_num(o, "ttft_ns", v[4]);
    set_num(o, "request_latency_ns", v[5]);
    set_num(o, "osl", v[6]);
    if (v[4] && v[5] && v[6] && strtod(v[6], NULL) > 1)
        json_object_set_new(o, "itl_ns", json_real((strtod(v[5], NULL) - strtod(v[4], NULL)) /
                                                   (strtod(v[6], NULL) - 1)));
    return json_array_append_new(ctx, o) ? 1 : 0;
}

static int load_job(struct gp_db *db, struct gp_cmp_side *s, struct gp_cmp_run *run, struct job_row *j,
                    json_t **stimulus, struct gp_error *err)
{
    const char *p[] = {j->id};
    json_t *genai = json_object(), *recs = json_array();
    int rc = -GP_ENOMEM;
    if (!genai || !recs)
        goto out;
    if (j->input_config)
        json_object_set(genai, "input_config", j->input_config);
    if ((rc = gp_db_query(db, "SELECT metric_code, stat, value FROM metric_values WHERE job_id = ?", p, 1,
                          metric_row, genai, err)) < 0)
        goto out;
    char where[64];
    snprintf(where, sizeof where, "job %s", j->id);
    if ((rc = gp_cmp_fill_run(s, run, where, genai, j->summary, stimulus, err)) < 0)
        goto out;
    if ((rc = gp_db_query(db, "SELECT status, warmup, t_start_ns, t_end_ns, ttft_ns, request_latency_ns, osl "
                          "FROM requests WHERE job_id = ? ORDER BY request_index", p, 1, request_row, recs, err)) < 0)
        goto out;
    if (!json_array_size(recs)) {
        s->has_good = 0;
        goto out;
    }
    struct gp_cmp_acc a;
    gp_cmp_acc_init(&a, s, genai, j->summary);
    size_t i;
    json_t *r;
    if (!gp_cmp_acc_has_window(&a))
        json_array_foreach(recs, i, r) gp_cmp_acc_window(&a, r);
    json_array_foreach(recs, i, r) gp_cmp_acc_add(&a, r);
    if (gp_cmp_acc_finish(&a) < 0)
        rc = gp_err(err, GP_ENOMEM, "out of memory reading job %s", j->id);
out:
    if (rc == -GP_ENOMEM && !err->code)
        gp_err(err, GP_ENOMEM, "out of memory reading job %s", j->id);
    json_decref(genai);
    json_decref(recs);
    return rc < 0 ? rc : 0;
}

int gp_cmp_side_load_db(struct gp_db *db, const char *spec, struct gp_cmp_side **out, struct gp_error *err)
{
    *out = NULL;
    int numeric = *spec && strspn(spec, "0123456789") == strlen(spec);
    const char *p[] = {spec};
    struct jobs_ctx c = {0};
    int rc = gp_db_query(db,
                         numeric ? "SELECT id, input_config, genperf_summary FROM jobs WHERE id = ?"
                                 : "SELECT id, input_config, genperf_summary FROM jobs WHERE label = ? ORDER BY id",
                         p, 1, job_row, &c, err);
    struct gp_cmp_side *s = NULL;
    if (rc >= 0 && c.nomem)
        rc = gp_err(err, GP_ENOMEM, "out of memory reading the store");
    if (rc >= 0 && !c.n)
        rc = numeric ? gp_err(err, GP_ENOENT, "no job %s in the store; `genperf results --db URL` lists them", spec)
                     : gp_err(err, GP_ENOENT, "'%s' is neither an artifact directory nor a job id or label in the "
                              "store; `genperf results --db URL` lists them", spec);
    if (rc >= 0 && (!(s = calloc(1, sizeof *s)) || !(s->runs = calloc(c.n, sizeof *s->runs))))
        rc = gp_err(err, GP_ENOMEM, "out of memory reading the store");
    if (rc >= 0) {
        snprintf(s->path, sizeof s->path, numeric ? "job %s" : "label %s", spec);
        s->n_runs = c.n;
        s->has_good = 1;
        json_t *stimulus = NULL;
        for (size_t i = 0; i < c.n && rc >= 0; i++)
            rc = load_job(db, s, &s->runs[i], &c.rows[i], &stimulus, err);
        json_decref(stimulus);
        if (!s->per_request)
            s->has_good = 0;
    }
    for (size_t i = 0; i < c.n; i++) {
        json_decref(c.rows[i].input_config);
        json_decref(c.rows[i].summary);
    }
    free(c.rows);
    if (rc < 0) {
        if (s)
            free(s->runs);
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}
