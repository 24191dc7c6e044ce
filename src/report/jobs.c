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
