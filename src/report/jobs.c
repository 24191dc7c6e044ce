/* report/jobs.c — filtering and sorting of the Benchmarks list, shared by
 * the store and the artifact sources so /api/jobs behaves the same on both.
 *
 * Owns: a temporary array of borrowed json_t pointers during the sort.
 */
#include "report/report.h"

#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {"id", "created_at", "model", "framework", "hardware",
                                      "concurrency", "request_rate", "scenario", "status"};

static int is_column(const char *k)
{
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++)
        if (!strcmp(k, columns[i]))
            return 1;
    return 0;
}

static const char *str_of(json_t *v, char *tmp, size_t n)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(tmp, n, "%lld", (long long)json_integer_value(v));
        return tmp;
    }
    if (json_is_real(v)) {
        snprintf(tmp, n, "%.17g", json_real_value(v));
        return tmp;
    }
    return NULL;
}

static int match(json_t *job, const char *col, const char *want)
{
    if (!want || !*want)
        return 1;
    char tmp[64];
    const char *s = str_of(json_object_get(job, col), tmp, sizeof tmp);
    return s && !strcmp(s, want);
}

static json_t *key_of(json_t *job, const char *k)
{
    return is_column(k) ? json_object_get(job, k) : json_object_get(json_object_get(job, "metrics"), k);
}

static int cmp_jobs(const void *a, const void *b, void *ctx)
{
    const struct gp_jobs_filter *f = ctx;
    json_t *x = key_of(*(json_t *const *)a, f->sort), *y = key_of(*(json_t *const *)b, f->sort);
    int xn = !x || json_is_null(x), yn = !y || json_is_null(y);
    if (xn || yn)
        return xn - yn; /* missing last, whatever the order */
    int c;
    if (json_is_number(x) && json_is_number(y)) {
        double p = json_number_value(x), q = json_number_value(y);
        c = p < q ? -1 : p > q;
    } else {
        char t1[64], t2[64];
        const char *p = str_of(x, t1, sizeof t1), *q = str_of(y, t2, sizeof t2);
        c = strcmp(p ? p : "", q ? q : "");
    }
    return f->desc ? -c : c;
}

int gp_jobs_filter_apply(json_t *jobs, const struct gp_jobs_filter *f, struct gp_error *err)
{
    if (!json_is_array(jobs))
        return 0;
    if (f->sort && *f->sort && !is_column(f->sort) && !strchr(f->sort, '.'))
        return gp_err(err, GP_EINVAL,
                      "sort=%s: use a job column (id, created_at, model, ...) or a metric as metric.stat, "
                      "e.g. request_latency.p99",
                      f->sort);
    for (size_t i = json_array_size(jobs); i-- > 0;) {
        json_t *j = json_array_get(jobs, i);
        char tmp[64];
        const char *day = str_of(json_object_get(j, "created_at"), tmp, sizeof tmp);
        int keep = match(j, "model", f->model) && match(j, "framework", f->framework) &&
                   match(j, "hardware", f->hardware);
        /* ISO-8601 text compares in time order; only the date part is used. */
        if (keep && f->from && *f->from)
            keep = day && strncmp(day, f->from, 10) >= 0;
        if (keep && f->to && *f->to)
            keep = day && strncmp(day, f->to, 10) <= 0;
        if (!keep)
            json_array_remove(jobs, i);
    }
    size_t n = json_array_size(jobs);
    if (!f->sort || !*f->sort || n < 2)
        return 0;
    json_t **v = malloc(n * sizeof *v);
    if (!v)
        return gp_err(err, GP_ENOMEM, "out of memory sorting %zu jobs", n);
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(jobs, i));
    qsort_r(v, n, sizeof *v, cmp_jobs, (void *)f);
    json_array_clear(jobs);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(jobs, v[i]);
    free(v);
    return 0;
}

/* Min/max per bucket keeps every spike visible while bounding what a long
 * run sends to the browser (a 1-hour run sampled every 0.33 s is ~11k points
 * per series; uPlot is fine with that, the JSON and the DOM less so). */
void gp_series_downsample(json_t *series, size_t max_points)
{
    size_t i;
    json_t *s;
    if (max_points < 4)
        max_points = 4;
    json_array_foreach(series, i, s) {
        json_t *t = json_object_get(s, "t_s"), *v = json_object_get(s, "v");
        size_t n = json_array_size(t);
        if (n <= max_points || json_array_size(v) != n)
            continue;
        size_t buckets = max_points / 2, per = (n + buckets - 1) / buckets;
        json_t *nt = json_array(), *nv = json_array();
        for (size_t b0 = 0; b0 < n; b0 += per) {
            size_t end = b0 + per < n ? b0 + per : n, lo = b0, hi = b0;
            for (size_t k = b0; k < end; k++) {
                json_t *x = json_array_get(v, k);
                if (!json_is_number(x))
                    continue;
                if (!json_is_number(json_array_get(v, lo)) || json_number_value(x) < json_number_value(json_array_get(v, lo)))
                    lo = k;
                if (!json_is_number(json_array_get(v, hi)) || json_number_value(x) > json_number_value(json_array_get(v, hi)))
                    hi = k;
            }
            size_t first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
            json_array_append(nt, json_array_get(t, first));
            json_array_append(nv, json_array_get(v, first));
            if (second != first) {
                json_array_append(nt, json_array_get(t, second));
                json_array_append(nv, json_array_get(v, second));
            }
        }
        json_object_set_new(s, "t_s", nt);
        json_object_set_new(s, "v", nv);
        json_object_set_new(s, "downsampled_from", json_integer((json_int_t)n));
    }
}
