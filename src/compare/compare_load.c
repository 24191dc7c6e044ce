/* compare/compare_load.c — one side of a comparison read from artifact
 * directories: the run-level values from <stem>_genai_perf.json, the failure
 * rate and the fidelity block from <stem>_genperf.json, and the per-request
 * samples from <stem>_records.jsonl (genperf's, with OSL, status and warmup
 * per request) or, for a GenAI-Perf directory without it, TTFT and latency
 * from the profile export <stem>.json through report/'s reader. */
#include "compare/compare.h"
#include "compare/compare_int.h"

#include "core/error.h"
#include "core/fsutil.h"
#include "report/report.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const gp_suffix = "_genai_perf.json";

int gp_cmp_vec_push(struct gp_cmp_vec *v, double x)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 256;
        double *nv = realloc(v->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        v->v = nv;
        v->cap = nc;
    }
    v->v[v->n++] = x;
    return 0;
}

/* The stem of the one *_genai_perf.json in dir ("" when none). */
static int find_stem(const char *dir, char *stem, size_t sz)
{
    stem[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    size_t sl = strlen(gp_suffix);
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > sl && !strcmp(e->d_name + n - sl, gp_suffix) && strncmp(e->d_name, "analyze_", 8) &&
            (!stem[0] || strcmp(e->d_name, stem) < 0))
            snprintf(stem, sz, "%.*s", (int)(n - sl), e->d_name);
    }
    closedir(d);
    return stem[0] != '\0';
}

/* A sub-directory collect_runs descends into: its path must fit the 1024
 * bytes collect_runs joins it into. */
static int keep_run_parent(const char *path, const char *name, void *arg)
{
    return strlen(path) < 1024 && gp_is_dir(path);
}

/* Appends to *dirs every run directory at or under dir, depth first in name
 * order, to depth 3 (run_K/<model-endpoint-load>/ is depth 2). */
static int collect_runs(const char *dir, int depth, char ***dirs, size_t *n, struct gp_error *err)
{
    char stem[512];
    if (find_stem(dir, stem, sizeof stem)) {
        char **nd = realloc(*dirs, (*n + 1) * sizeof *nd);
        if (!nd || !(nd[*n] = strdup(dir))) {
            free(nd ? nd : *dirs);
            *dirs = NULL;
            return gp_err(err, GP_ENOMEM, "out of memory listing %s", dir);
        }
        *dirs = nd;
        (*n)++;
        return 0;
    }
    if (depth >= 3)
        return 0;
    char **subs = NULL;
    size_t ns = 0;
    int rc = gp_dir_list(dir, keep_run_parent, NULL, &subs, &ns, NULL);
    if (rc == -GP_ENOENT)
        return 0;
    if (rc < 0)
        return gp_err(err, GP_ENOMEM, "out of memory listing %s", dir);
    for (size_t i = 0; i < ns && !rc; i++) {
        char path[1024];
        if (gp_path_join(path, sizeof path, dir, subs[i]) == 0)
            rc = collect_runs(path, depth + 1, dirs, n, err);
    }
    gp_dir_list_free(subs, ns);
    return rc;
}

/* The run-level value of each metric GenAI-Perf's JSON holds. */
static const struct {
    int metric;
    const char *name, *stat;
} genai_map[] = {
    {GP_CMP_TTFT_AVG, "time_to_first_token", "avg"}, {GP_CMP_TTFT_P50, "time_to_first_token", "p50"},
    {GP_CMP_TTFT_P99, "time_to_first_token", "p99"}, {GP_CMP_ITL_AVG, "inter_token_latency", "avg"},
    {GP_CMP_ITL_P50, "inter_token_latency", "p50"},  {GP_CMP_ITL_P99, "inter_token_latency", "p99"},
    {GP_CMP_LAT_AVG, "request_latency", "avg"},      {GP_CMP_LAT_P50, "request_latency", "p50"},
    {GP_CMP_LAT_P99, "request_latency", "p99"},      {GP_CMP_OUT_TPUT, "output_token_throughput", "avg"},
    {GP_CMP_REQ_TPUT, "request_throughput", "avg"},  {GP_CMP_GOODPUT, "request_goodput", "avg"},
};

/* The goodput SLOs of input_config.input.goodput that a record can be judged
 * by (its TTFT, ITL and latency, all <= v ms). Returns how many, or -1 when
 * there are none or one a record cannot be judged by. */
static int slos_of(json_t *genai, const char **names, double *vals)
{
    json_t *g = json_object_get(json_object_get(json_object_get(genai, "input_config"), "input"), "goodput");
    if (!json_is_object(g) || !json_object_size(g) || json_object_size(g) > MAX_SLO)
        return -1;
    int n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(g, k, v) {
        if (strcmp(k, "time_to_first_token") && strcmp(k, "inter_token_latency") && strcmp(k, "request_latency"))
            return -1;
        names[n] = k;
        vals[n++] = json_number_value(v);
    }
    return n;
}

static double rec_ms(json_t *r, const char *key, int *ok)
{
    json_t *v = json_object_get(r, key);
    *ok = json_is_number(v);
    return *ok ? json_number_value(v) / 1e6 : 0;
}

void gp_cmp_acc_init(struct gp_cmp_acc *a, struct gp_cmp_side *s, json_t *genai, json_t *extras)
{
    memset(a, 0, sizeof *a);
    a->s = s;
    a->n_slo = slos_of(genai, a->slo_name, a->slo_val);
    if (a->n_slo < 0)
        s->has_good = 0;
    json_t *win = json_object_get(extras, "window");
    a->w0 = json_number_value(json_object_get(win, "start_wall_ns"));
    a->w1 = json_number_value(json_object_get(win, "end_wall_ns"));
}

int gp_cmp_acc_has_window(const struct gp_cmp_acc *a) { return a->w1 > a->w0; }

void gp_cmp_acc_window(struct gp_cmp_acc *a, json_t *r)
{
    if (json_is_true(json_object_get(r, "warmup")))
        return;
    double ts = json_number_value(json_object_get(r, "t_start_ns"));
    double te = json_number_value(json_object_get(r, "t_end_ns"));
    if (!a->widened || ts < a->w0)
        a->w0 = ts;
    if (!a->widened || te > a->w1)
        a->w1 = te;
    a->widened = 1;
}

void gp_cmp_acc_add(struct gp_cmp_acc *a, json_t *r)
{
    if (json_is_true(json_object_get(r, "warmup")))
        return;
    struct gp_cmp_side *s = a->s;
    int ok = !strcmp(json_string_value(json_object_get(r, "status")) ?: "", "ok");
    double te = json_number_value(json_object_get(r, "t_end_ns"));
    a->nomem |= gp_cmp_vec_push(&s->fail, ok ? 0 : 1);
    int have_t, have_i, have_l;
    double t = rec_ms(r, "ttft_ns", &have_t), i = rec_ms(r, "itl_ns", &have_i),
           l = rec_ms(r, "request_latency_ns", &have_l);
    if (ok && have_t)
        a->nomem |= gp_cmp_vec_push(&s->ttft, t);
    if (ok && have_i)
        a->nomem |= gp_cmp_vec_push(&s->itl, i);
    if (ok && have_l)
        a->nomem |= gp_cmp_vec_push(&s->lat, l);
    if (!ok || a->w1 <= a->w0)
        return;
    int k = (int)((te - a->w0) / (a->w1 - a->w0) * GP_CMP_SLICES);
    k = k < 0 ? 0 : k >= GP_CMP_SLICES ? GP_CMP_SLICES - 1 : k;
    a->req[k] += 1;
    a->out[k] += json_number_value(json_object_get(r, "osl"));
    int is_good = a->n_slo > 0;
    for (int j = 0; j < a->n_slo && is_good; j++) {
        int ttft = !strcmp(a->slo_name[j], "time_to_first_token"), itl = !strcmp(a->slo_name[j], "inter_token_latency");
        double v = ttft ? t : itl ? i : l;
        int have = ttft ? have_t : itl ? have_i : have_l;
        is_good = have && v <= a->slo_val[j];
    }
    a->good[k] += is_good;
}

int gp_cmp_acc_finish(struct gp_cmp_acc *a)
{
    if (a->w1 > a->w0) {
        double slice_s = (a->w1 - a->w0) / 1e9 / GP_CMP_SLICES;
        for (int k = 0; k < GP_CMP_SLICES; k++) {
            a->nomem |= gp_cmp_vec_push(&a->s->s_out, a->out[k] / slice_s);
            a->nomem |= gp_cmp_vec_push(&a->s->s_req, a->req[k] / slice_s);
            a->nomem |= gp_cmp_vec_push(&a->s->s_good, a->good[k] / slice_s);
        }
    }
    a->s->per_request = 1;
    return a->nomem ? -1 : 0;
}

static int acc_window(json_t *r, void *a)
{
    gp_cmp_acc_window(a, r);
    return 0;
}

static int acc_add(json_t *r, void *a)
{
    gp_cmp_acc_add(a, r);
    return 0;
}

/* The per-request samples and time slices of one run from records.jsonl. */
static int read_records(struct gp_cmp_side *s, const char *path, json_t *genai, json_t *extras,
                        struct gp_error *err)
{
    char *text = NULL;
    if (gp_read_file(path, &text, NULL, err) < 0)
        return -GP_EIO;
    struct gp_cmp_acc a;
    gp_cmp_acc_init(&a, s, genai, extras);
    /* pass 0 finds the window when <stem>_genperf.json gave none */
    for (int pass = gp_cmp_acc_has_window(&a); pass < 2; pass++)
        gp_jsonl_each(text, pass == 0 ? acc_window : acc_add, &a);
    free(text);
    if (gp_cmp_acc_finish(&a) < 0)
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    return 0;
}

/* TTFT and latency from a GenAI-Perf profile export (no records.jsonl). */
static int read_export(struct gp_cmp_side *s, const char *path)
{
    json_t *exp = gp_artifact_load_json(path, NULL);
    if (!exp)
        return 0;
    json_t *reqs = gp_artifact_requests(exp);
    json_decref(exp);
    int nomem = 0;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(reqs, "ttft_ms"), i, v) nomem |= gp_cmp_vec_push(&s->ttft, json_number_value(v));
    json_array_foreach(json_object_get(reqs, "latency_ms"), i, v) nomem |= gp_cmp_vec_push(&s->lat, json_number_value(v));
    json_decref(reqs);
    return nomem ? -1 : 1;
}

int gp_cmp_fill_run(struct gp_cmp_side *s, struct gp_cmp_run *run, const char *where, json_t *genai, json_t *extras,
                    json_t **stimulus, struct gp_error *err)
{
    snprintf(run->dir, sizeof run->dir, "%s", where);
    json_t *st = json_object_get(json_object_get(json_object_get(genai, "input_config"), "perf_analyzer"), "stimulus");
    if (!*stimulus) {
        *stimulus = json_incref(st);
    } else if (st && !json_equal(st, *stimulus)) {
        char *a = json_dumps(*stimulus, JSON_COMPACT), *b = json_dumps(st, JSON_COMPACT);
        gp_err(err, GP_EINVAL, "%s: its runs are of different loads (%s in %s, %s before); pass one run "
               "or repeats of one load", s->path, b ? b : "?", where, a ? a : "?");
        free(a);
        free(b);
        return -GP_EINVAL;
    }
    for (size_t i = 0; i < sizeof genai_map / sizeof genai_map[0]; i++) {
        json_t *v = json_object_get(json_object_get(genai, genai_map[i].name), genai_map[i].stat);
        if (json_is_number(v)) {
            run->has[genai_map[i].metric] = 1;
            run->value[genai_map[i].metric] = json_number_value(v);
        }
    }
    /* the repeats of a side must be alike too: the first run speaks for the side */
    json_t *ic = json_object_get(genai, "input_config");
    struct gp_run_ident id;
    char diff[768];
    if (ic && !s->has_ident) {
        gp_run_ident_from_config(ic, extras, &s->ident);
        s->has_ident = 1;
    } else if (ic) {
        gp_run_ident_from_config(ic, extras, &id);
        if (gp_run_ident_diff(&s->ident, &id, diff, sizeof diff))
            return gp_err(err, GP_EINVAL, "%s: its runs are unlike (the first run vs %s: %s); pass one run or "
                          "repeats of one configuration", s->path, where, diff);
    }
    json_t *rq = json_object_get(extras, "requests");
    double measured = json_number_value(json_object_get(rq, "measured"));
    /* how many requests the run measured: genperf's count (failures included),
     * else GenAI-Perf's request_count (completed ones) */
    json_t *nreq = json_object_get(rq, "measured");
    if (!json_is_number(nreq))
        nreq = json_object_get(json_object_get(genai, "request_count"), "avg");
    if (json_is_number(nreq)) {
        run->n_req_known = 1;
        run->n_req = json_number_value(nreq);
    }
    if (measured > 0) {
        run->has[GP_CMP_FAIL_RATE] = 1;
        run->value[GP_CMP_FAIL_RATE] = json_number_value(json_object_get(rq, "failed")) / measured;
    }
    json_t *fid = json_object_get(extras, "fidelity");
    if (json_is_true(json_object_get(fid, "client_limited")) && !s->client_limited) {
        s->client_limited = 1;
        const char *why = json_string_value(json_object_get(fid, "verdict"));
        const char *r0 = json_string_value(json_array_get(json_object_get(fid, "reasons"), 0));
        snprintf(s->limited_why, sizeof s->limited_why, "%s%s%s", why ? why : "client-limited",
                 r0 ? ": " : "", r0 ? r0 : "");
    }
    return 0;
}

static int load_run(struct gp_cmp_side *s, struct gp_cmp_run *run, const char *dir, json_t **stimulus,
                    struct gp_error *err)
{
    char stem[512], path[1200];
    find_stem(dir, stem, sizeof stem);
    snprintf(path, sizeof path, "%s/%s%s", dir, stem, gp_suffix);
    json_t *genai = gp_artifact_load_json(path, err);
    if (!genai)
        return -(err && err->code ? err->code : GP_EIO);
    snprintf(path, sizeof path, "%s/%s_genperf.json", dir, stem);
    json_t *extras = gp_is_file(path) ? gp_artifact_load_json(path, NULL) : NULL;
    int rc = gp_cmp_fill_run(s, run, dir, genai, extras, stimulus, err);
    snprintf(path, sizeof path, "%s/%s_records.jsonl", dir, stem);
    if (rc) {
        /* refused above */
    } else if (gp_is_file(path)) {
        rc = read_records(s, path, genai, extras, err);
    } else {
        snprintf(path, sizeof path, "%s/%s.json", dir, stem);
        int got = read_export(s, path);
        if (got < 0)
            rc = gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
        else if (got > 0)
            s->per_request = 1;
        s->has_good = 0;
    }
    json_decref(extras);
    json_decref(genai);
    return rc;
}

int gp_cmp_side_load(const char *path, struct gp_cmp_side **out, struct gp_error *err)
{
    *out = NULL;
    if (!gp_is_dir(path))
        return gp_err(err, GP_ENOENT, "%s: no such artifact directory; pass the --artifact-dir of a genperf or "
                      "GenAI-Perf profile run, or --db URL to name a job id or label of the results store", path);
    char **dirs = NULL;
    size_t n = 0;
    int rc = collect_runs(path, 0, &dirs, &n, err);
    if (rc)
        return rc;
    if (!n)
        return gp_err(err, GP_ENOENT, "%s: no *_genai_perf.json in it or in its subdirectories; pass the "
                      "--artifact-dir of a profile run", path);
    struct gp_cmp_side *s = calloc(1, sizeof *s);
    if (s)
        s->runs = calloc(n, sizeof *s->runs);
    if (!s || !s->runs) {
        free(s);
        rc = gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    } else {
        snprintf(s->path, sizeof s->path, "%s", path);
        s->n_runs = n;
        s->has_good = 1;
        json_t *stimulus = NULL;
        for (size_t i = 0; i < n && !rc; i++)
            rc = load_run(s, &s->runs[i], dirs[i], &stimulus, err);
        json_decref(stimulus);
        if (!s->per_request)
            s->has_good = 0;
        if (rc)
            gp_cmp_side_free(s);
        else
            *out = s;
    }
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    return rc;
}

void gp_cmp_side_free(struct gp_cmp_side *s)
{
    if (!s)
        return;
    struct gp_cmp_vec *v[] = {&s->ttft, &s->itl, &s->lat, &s->fail, &s->s_out, &s->s_req, &s->s_good};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        free(v[i]->v);
    free(s->runs);
    free(s);
}
