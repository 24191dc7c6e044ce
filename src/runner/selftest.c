/* runner/selftest.c — the arithmetic of `genperf selftest`: the client's
 * profile export against `genperf serve --timing-log` (selftest.h says what
 * each figure is; bench/timing_compare.py computes the same from Python).
 */
#include "runner/selftest.h"

#include "core/error.h"
#include "core/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct truth {
    char *id;
    int64_t t_req;
    int64_t *c;  /* send time of each content chunk ('C') */
    size_t n;
};

struct dvec {
    double *v;
    size_t n, cap;
};

static int dpush(struct dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 256;
        double *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return -1;
        d->v = v, d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

static int cmp_truth(const void *a, const void *b)
{
    return strcmp(((const struct truth *)a)->id, ((const struct truth *)b)->id);
}

static void free_truth(struct truth *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].id);
        free(t[i].c);
    }
    free(t);
}

/* Every line of the timing log with an id; sorted by id. */
static int load_log(const char *path, struct truth **out, size_t *nout, struct gp_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gp_err(err, GP_EIO, "cannot read the server's timing log '%s': %s", path, strerror(errno));
    struct truth *t = NULL;
    size_t n = 0, cap = 0, lineno = 0;
    char *line = NULL;
    size_t lcap = 0;
    int rc = 0;
    while (getline(&line, &lcap, f) > 0) {
        lineno++;
        json_error_t je;
        json_t *r = json_loads(line, 0, &je);
        const char *id = r ? json_string_value(json_object_get(r, "id")) : NULL;
        const char *kinds = r ? json_string_value(json_object_get(r, "kinds")) : NULL;
        json_t *ch = r ? json_object_get(r, "chunks_ns") : NULL;
        if (!r) {
            rc = gp_err(err, GP_EINVAL, "timing log '%s' line %zu is not JSON: %s", path, lineno, je.text);
            break;
        }
        if (!id || !kinds || !json_is_array(ch)) {
            json_decref(r);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            struct truth *nt = realloc(t, cap * sizeof *nt);
            if (!nt) {
                json_decref(r);
                rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
                break;
            }
            t = nt;
        }
        size_t nc = json_array_size(ch), k = 0;
        struct truth *e = &t[n];
        e->id = strdup(id);
        e->t_req = json_integer_value(json_object_get(r, "t_request_ns"));
        e->c = malloc((nc ? nc : 1) * sizeof *e->c);
        if (!e->id || !e->c) {
            free(e->id);
            free(e->c);
            json_decref(r);
            rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            break;
        }
        for (size_t i = 0; i < nc && kinds[i]; i++)
            if (kinds[i] == 'C')
                e->c[k++] = json_integer_value(json_array_get(ch, i));
        e->n = k;
        n++;
        json_decref(r);
    }
    free(line);
    fclose(f);
    if (rc < 0) {
        free_truth(t, n);
        return rc;
    }
    qsort(t, n, sizeof *t, cmp_truth);
    *out = t;
    *nout = n;
    return 0;
}

/* s points at a '"': past `"key"\s*:\s*"`, or NULL */
static const char *after_key(const char *s, const char *key)
{
    size_t kl = strlen(key);
    if (strncmp(s + 1, key, kl) != 0 || s[1 + kl] != '"')
        return NULL;
    s += kl + 2;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (*s++ != ':')
        return NULL;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return *s == '"' ? s + 1 : NULL;
}

/* Content events in one read's bytes: "content":"<at least one char>"
 * (not reasoning_content, whose key does not start at the quote), and the
 * first "id":"..." into id (when still empty). */
static size_t scan_response(const char *s, char *id, size_t idsz)
{
    size_t n = 0;
    for (const char *p = strchr(s, '"'); p; p = strchr(p + 1, '"')) {
        const char *v = after_key(p, "content");
        if (v && *v != '"') {
            n++;
            continue;
        }
        if (!id[0] && (v = after_key(p, "id")) != NULL) {
            const char *q = strchr(v, '"');
            if (q && (size_t)(q - v) < idsz && q > v) {
                memcpy(id, v, (size_t)(q - v));
                id[q - v] = 0;
            }
        }
    }
    return n;
}

static void pct(struct dvec *d, struct gp_selftest_pct *o)
{
    memset(o, 0, sizeof *o);
    o->n = d->n;
    if (!d->n)
        return;
    qsort(d->v, d->n, sizeof *d->v, gp_cmp_double);
    o->median_us = gp_percentile_sorted(d->v, d->n, 50) / 1e3;
    o->p90_us = gp_percentile_sorted(d->v, d->n, 90) / 1e3;
    o->p99_us = gp_percentile_sorted(d->v, d->n, 99) / 1e3;
    o->max_us = d->v[d->n - 1] / 1e3;
}

/* One request of the export against its log line. */
static int add_request(json_t *req, const struct truth *t, size_t nt, int64_t off, struct gp_selftest_result *out,
                       struct dvec v[5], int64_t **arr, size_t *arr_cap)
{
    json_t *ts = json_object_get(req, "response_timestamps"), *outs = json_object_get(req, "response_outputs");
    char id[256] = "";
    size_t na = 0;
    for (size_t i = 0; i < json_array_size(ts) && i < json_array_size(outs); i++) {
        const char *text = json_string_value(json_object_get(json_array_get(outs, i), "response"));
        size_t k = text ? scan_response(text, id, sizeof id) : 0;
        int64_t at = json_integer_value(json_array_get(ts, i)) - off;
        for (size_t j = 0; j < k; j++) {
            if (na == *arr_cap) {
                size_t cap = *arr_cap ? *arr_cap * 2 : 64;
                int64_t *a = realloc(*arr, cap * sizeof *a);
                if (!a)
                    return -1;
                *arr = a, *arr_cap = cap;
            }
            (*arr)[na++] = at;
        }
    }
    struct truth key = {.id = id};
    const struct truth *e = id[0] ? bsearch(&key, t, nt, sizeof *t, cmp_truth) : NULL;
    if (!e) {
        out->unmatched++;
        return 0;
    }
    out->matched++;
    size_t n = e->n < na ? e->n : na;
    if (!n)
        return 0;
    const int64_t *a = *arr, t0 = json_integer_value(json_object_get(req, "timestamp")) - off;
    int bad = dpush(&v[0], (double)((a[0] - t0) - (e->c[0] - e->t_req)));
    bad |= dpush(&v[1], (double)(e->t_req - t0));
    bad |= dpush(&v[2], (double)(a[0] - e->c[0]));
    for (size_t i = 1; i < n; i++) {
        double g = (double)((a[i] - a[i - 1]) - (e->c[i] - e->c[i - 1]));
        bad |= dpush(&v[3], g < 0 ? -g : g);
    }
    bad |= dpush(&v[4], (double)((a[n - 1] - t0) - (e->c[n - 1] - e->t_req)));
    return bad ? -1 : 0;
}

int gp_selftest_compare(const char *export_path, const char *log_path, int64_t wall_minus_mono_ns,
                        struct gp_selftest_result *out, struct gp_error *err)
{
    memset(out, 0, sizeof *out);
    struct truth *t = NULL;
    size_t nt = 0;
    if (load_log(log_path, &t, &nt, err) < 0)
        return -1;
    json_error_t je;
    json_t *ex = json_load_file(export_path, 0, &je);
    if (!ex) {
        free_truth(t, nt);
        return gp_err(err, GP_EINVAL, "cannot read the profile export '%s': %s (line %d)", export_path, je.text,
                      je.line);
    }
    json_t *reqs = json_object_get(json_array_get(json_object_get(ex, "experiments"), 0), "requests");
    struct dvec v[5] = {{0}};
    int64_t *arr = NULL;
    size_t arr_cap = 0;
    int rc = 0;
    for (size_t i = 0; i < json_array_size(reqs) && rc == 0; i++) {
        out->requests++;
        if (add_request(json_array_get(reqs, i), t, nt, wall_minus_mono_ns, out, v, &arr, &arr_cap) < 0)
            rc = gp_err(err, GP_ENOMEM, "out of memory comparing '%s' with '%s'", export_path, log_path);
    }
    if (rc == 0) {
        pct(&v[0], &out->ttft_excess);
        pct(&v[1], &out->send_side);
        pct(&v[2], &out->recv_side);
        pct(&v[3], &out->itl_error);
        pct(&v[4], &out->last_excess);
    }
    for (int i = 0; i < 5; i++)
        free(v[i].v);
    free(arr);
    json_decref(ex);
    free_truth(t, nt);
    return rc;
}

static json_t *pct_json(const struct gp_selftest_pct *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "count", json_integer((json_int_t)p->n));
    json_object_set_new(o, "median_us", p->n ? json_real(p->median_us) : json_null());
    json_object_set_new(o, "p90_us", p->n ? json_real(p->p90_us) : json_null());
    json_object_set_new(o, "p99_us", p->n ? json_real(p->p99_us) : json_null());
    json_object_set_new(o, "max_us", p->n ? json_real(p->max_us) : json_null());
    return o;
}

json_t *gp_selftest_json(const struct gp_selftest_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "requests", json_integer((json_int_t)r->requests));
    json_object_set_new(o, "matched", json_integer((json_int_t)r->matched));
    json_object_set_new(o, "unmatched", json_integer((json_int_t)r->unmatched));
    json_object_set_new(o, "ttft_excess", pct_json(&r->ttft_excess));
    json_object_set_new(o, "send_side", pct_json(&r->send_side));
    json_object_set_new(o, "receive_side", pct_json(&r->recv_side));
    json_object_set_new(o, "itl_error", pct_json(&r->itl_error));
    json_object_set_new(o, "last_token_excess", pct_json(&r->last_excess));
    json_object_set_new(o, "definitions",
                        json_string("ttft_excess = (client first content arrival - client request start) - (server "
                                    "first content chunk sent - request parsed); send_side = request parsed - client "
                                    "start; receive_side = client arrival - server send; itl_error = |client gap - "
                                    "server gap| per pair of content chunks; last_token_excess as ttft_excess for the "
                                    "last content chunk (bench/timing_compare.py's figures)"));
    return o;
}
