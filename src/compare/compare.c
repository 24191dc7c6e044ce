/* compare/compare.c — the rows of `genperf compare` and the gate (see
 * compare.h for the evidence each row rests on). */
#include "compare/compare.h"

#include "core/error.h"
#include "core/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct gp_cmp_metric_def gp_cmp_metrics[GP_CMP_NMETRICS] = {
    [GP_CMP_TTFT_AVG] = {"ttft_avg", "TTFT avg", "ms", 1, 0},
    [GP_CMP_TTFT_P50] = {"ttft_p50", "TTFT p50", "ms", 1, 0},
    [GP_CMP_TTFT_P99] = {"ttft_p99", "TTFT p99", "ms", 1, 0},
    [GP_CMP_ITL_AVG] = {"itl_avg", "ITL avg", "ms", 1, 0},
    [GP_CMP_ITL_P50] = {"itl_p50", "ITL p50", "ms", 1, 0},
    [GP_CMP_ITL_P99] = {"itl_p99", "ITL p99", "ms", 1, 0},
    [GP_CMP_LAT_AVG] = {"latency_avg", "Request latency avg", "ms", 1, 0},
    [GP_CMP_LAT_P50] = {"latency_p50", "Request latency p50", "ms", 1, 0},
    [GP_CMP_LAT_P99] = {"latency_p99", "Request latency p99", "ms", 1, 0},
    [GP_CMP_OUT_TPUT] = {"output_token_throughput", "Output token throughput", "tokens/s", 0, 0},
    [GP_CMP_REQ_TPUT] = {"request_throughput", "Request throughput", "requests/s", 0, 0},
    [GP_CMP_GOODPUT] = {"request_goodput", "Goodput", "requests/s", 0, 0},
    [GP_CMP_FAIL_RATE] = {"failure_rate", "Failure rate", "%", 1, 1},
};

int gp_cmp_metric_find(const char *key)
{
    for (int m = 0; m < GP_CMP_NMETRICS; m++)
        if (!strcmp(key, gp_cmp_metrics[m].key))
            return m;
    return -1;
}

/* The run-level values of metric m on side s into v (all runs must have it). */
static int run_values(const struct gp_cmp_side *s, int m, double *v)
{
    for (size_t i = 0; i < s->n_runs; i++) {
        if (!s->runs[i].has[m])
            return -1;
        v[i] = s->runs[i].value[m];
    }
    return 0;
}

static int by_runs(const double *a, size_t na, const double *b, size_t nb, int absolute, struct gp_cmp_row *row)
{
    double ma = gp_cs_mean(a, na);
    if (gp_cs_welch(a, na, b, nb, &row->change) < 0 || (!absolute && ma == 0))
        return -1;
    if (!absolute) {
        row->change.est /= ma;
        row->change.lo /= ma;
        row->change.hi /= ma;
    }
    row->how = "runs";
    return 0;
}

/* One run each (or too few runs on a side): the bootstrap over requests for
 * latencies and the failure rate, batch means over time slices for rates. */
static int by_requests(const struct gp_cmp_side *a, const struct gp_cmp_side *b, int m, const struct gp_cmp_opts *o,
                       double *scratch, double *changes, struct gp_cmp_row *row)
{
    const struct gp_cmp_vec *va = NULL, *vb = NULL;
    gp_cs_stat_fn fn = gp_cs_stat_pct;
    double q = 50;
    switch (m) {
    case GP_CMP_TTFT_AVG: case GP_CMP_ITL_AVG: case GP_CMP_LAT_AVG: case GP_CMP_FAIL_RATE:
        fn = gp_cs_stat_mean;
        break;
    case GP_CMP_TTFT_P99: case GP_CMP_ITL_P99: case GP_CMP_LAT_P99:
        q = 99;
        break;
    default:
        break;
    }
    switch (m) {
    case GP_CMP_TTFT_AVG: case GP_CMP_TTFT_P50: case GP_CMP_TTFT_P99: va = &a->ttft; vb = &b->ttft; break;
    case GP_CMP_ITL_AVG: case GP_CMP_ITL_P50: case GP_CMP_ITL_P99: va = &a->itl; vb = &b->itl; break;
    case GP_CMP_LAT_AVG: case GP_CMP_LAT_P50: case GP_CMP_LAT_P99: va = &a->lat; vb = &b->lat; break;
    case GP_CMP_FAIL_RATE: va = &a->fail; vb = &b->fail; break;
    case GP_CMP_OUT_TPUT: va = &a->s_out; vb = &b->s_out; break;
    case GP_CMP_REQ_TPUT: va = &a->s_req; vb = &b->s_req; break;
    case GP_CMP_GOODPUT:
        if (!a->has_good || !b->has_good)
            return -1;
        va = &a->s_good;
        vb = &b->s_good;
        break;
    }
    if (!va->n || !vb->n)
        return -1;
    if ((m != GP_CMP_OUT_TPUT && m != GP_CMP_REQ_TPUT && m != GP_CMP_GOODPUT) &&
        (va->n < GP_CMP_MIN_REQUESTS || vb->n < GP_CMP_MIN_REQUESTS))
        return -2;   /* one request has no spread: its bootstrap interval is a point */
    int absolute = gp_cmp_metrics[m].absolute;
    double est = absolute ? row->new_ - row->base : row->base ? row->new_ / row->base - 1 : NAN;
    if (isnan(est))
        return -1;
    if (m == GP_CMP_OUT_TPUT || m == GP_CMP_REQ_TPUT || m == GP_CMP_GOODPUT) {
        /* Batch means: a run's rate is its slices' mean rate, and the slices'
         * spread is what one run tells about the rate's noise. The interval
         * is Welch's half-widths around the files' own change. */
        struct gp_cs_interval iv;
        double mb = gp_cs_mean(va->v, va->n);
        if (gp_cs_welch(va->v, va->n, vb->v, vb->n, &iv) < 0 || mb == 0)
            return -1;
        row->change.est = est;
        row->change.lo = est + (iv.lo - iv.est) / mb;
        row->change.hi = est + (iv.hi - iv.est) / mb;
        row->how = "time slices";
        return 0;
    }
    struct gp_rng rng;
    gp_rng_seed_stream(&rng, o->seed, 1, (uint64_t)m);
    if (gp_cs_bootstrap(va->v, va->n, vb->v, vb->n, fn, &q, !absolute, o->iters, &rng, scratch, changes,
                        &row->change) < 0)
        return -1;
    /* The files' own change is the estimate shown; the samples give the spread. */
    row->change.est = est;
    row->how = "requests";
    return 0;
}

/* A side too small to judge: some run measured fewer than GP_CMP_MIN_REQUESTS
 * requests (a run whose count is not recorded is not held against it). */
static int too_few_requests(const struct gp_cmp_side *s)
{
    for (size_t i = 0; i < s->n_runs; i++)
        if (s->runs[i].n_req_known && s->runs[i].n_req < GP_CMP_MIN_REQUESTS)
            return 1;
    return 0;
}

/* A change of a non-negative quantity cannot be below -100%, and a failure
 * rate (in [0, 1]) cannot move by less than -base or more than 1 - base;
 * Welch's symmetric interval can reach past both, so it is cut there. */
static void clamp_interval(struct gp_cmp_row *row, int absolute)
{
    double lo = absolute ? -row->base : -1, hi = absolute ? 1 - row->base : INFINITY;
    if (row->change.lo < lo)
        row->change.lo = lo;
    if (row->change.hi > hi)
        row->change.hi = hi;
}

static double side_mean(const struct gp_cmp_side *s, int m, int *has)
{
    double sum = 0;
    *has = 1;
    for (size_t i = 0; i < s->n_runs; i++) {
        if (!s->runs[i].has[m])
            *has = 0;
        sum += s->runs[i].value[m];
    }
    return sum / (double)s->n_runs;
}

int gp_cmp_compute(const struct gp_cmp_side *base, const struct gp_cmp_side *new_, const struct gp_cmp_opts *o,
                   struct gp_cmp_result *out, struct gp_error *err)
{
    memset(out, 0, sizeof *out);
    out->method = base->n_runs >= 2 && new_->n_runs >= 2 ? GP_CMP_RUNS : GP_CMP_BOOTSTRAP;
    out->n_base = base->n_runs;
    out->n_new = new_->n_runs;
    out->limited = (base->client_limited ? 1 : 0) | (new_->client_limited ? 2 : 0);
    out->min_change = o->min_change >= 0 ? o->min_change
                      : out->method == GP_CMP_RUNS ? GP_CMP_MIN_CHANGE_RUNS : GP_CMP_MIN_CHANGE_BOOTSTRAP;
    size_t cap = base->n_runs > new_->n_runs ? base->n_runs : new_->n_runs;
    const struct gp_cmp_vec *vs[] = {&base->ttft, &base->itl, &base->lat, &base->fail,
                                     &new_->ttft, &new_->itl, &new_->lat, &new_->fail};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
        if (vs[i]->n > cap)
            cap = vs[i]->n;
    double *scratch = malloc((cap + 1) * sizeof *scratch), *a = malloc((cap + 1) * sizeof *a),
           *b = malloc((cap + 1) * sizeof *b), *changes = malloc(((size_t)o->iters + 1) * sizeof *changes);
    if (!scratch || !a || !b || !changes) {
        free(scratch);
        free(a);
        free(b);
        free(changes);
        return gp_err(err, GP_ENOMEM, "out of memory comparing %s with %s", base->path, new_->path);
    }
    int few = too_few_requests(base) || too_few_requests(new_);
    for (int m = 0; m < GP_CMP_NMETRICS; m++) {
        int ha, hb;
        struct gp_cmp_row *row = &out->rows[out->n_rows];
        memset(row, 0, sizeof *row);
        row->metric = m;
        row->base = side_mean(base, m, &ha);
        row->new_ = side_mean(new_, m, &hb);
        if (!ha && !hb)
            continue;   /* neither side has it (goodput without --goodput): no row */
        out->n_rows++;
        row->has_base = ha;
        row->has_new = hb;
        row->verdict = GP_CMP_NA;
        if (!ha || !hb)
            continue;
        int rc;
        if (few) {
            rc = -2;
        } else if (out->method == GP_CMP_RUNS) {
            run_values(base, m, a);
            run_values(new_, m, b);
            rc = by_runs(a, base->n_runs, b, new_->n_runs, gp_cmp_metrics[m].absolute, row);
        } else {
            rc = by_requests(base, new_, m, o, scratch, changes, row);
        }
        if (rc < 0) {
            /* no spread to judge by (no per-request data, a zero base, too few requests) */
            row->verdict = GP_CMP_NO_CHANGE;
            row->too_few = rc == -2;
            row->how = rc == -2 ? "too few requests" : "no data for an interval";
            row->change.est = gp_cmp_metrics[m].absolute ? row->new_ - row->base
                              : row->base ? row->new_ / row->base - 1 : 0;
            row->change.lo = -INFINITY;
            row->change.hi = INFINITY;
            continue;
        }
        clamp_interval(row, gp_cmp_metrics[m].absolute);
        row->excludes_zero = row->change.lo > 0 || row->change.hi < 0;
        row->negligible = row->excludes_zero && !gp_cmp_metrics[m].absolute && fabs(row->change.est) < out->min_change;
        row->real = row->excludes_zero && !row->negligible && !out->limited;
        int up = row->change.lo > 0;
        row->verdict = !row->real ? GP_CMP_NO_CHANGE
                       : (up != gp_cmp_metrics[m].lower_better) ? GP_CMP_BETTER : GP_CMP_WORSE;
    }
    free(scratch);
    free(a);
    free(b);
    free(changes);
    return 0;
}

int gp_cmp_gate_parse(char *spec, struct gp_cmp_gate *g, size_t *n, struct gp_error *err)
{
    *n = 0;
    char *save = NULL;
    for (char *t = strtok_r(spec, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (!*t)
            continue;
        if (*n == GP_CMP_MAX_GATES)
            return gp_err(err, GP_EINVAL, "--fail-on: more than %d terms; gate on fewer metrics", GP_CMP_MAX_GATES);
        char *colon = strchr(t, ':');
        if (!colon)
            return gp_err(err, GP_EINVAL, "--fail-on: '%s' has no threshold; write METRIC:+N%% or METRIC:-N%% "
                          "(e.g. ttft_p99:+5%%)", t);
        *colon = '\0';
        int m = gp_cmp_metric_find(t);
        if (m < 0) {
            char names[512] = "";
            for (int k = 0; k < GP_CMP_NMETRICS; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                         gp_cmp_metrics[k].key);
            return gp_err(err, GP_EINVAL, "--fail-on: unknown metric '%s'; one of %s", t, names);
        }
        const char *v = colon + 1;
        char *end = NULL;
        double x = (v[0] == '+' || v[0] == '-') ? strtod(v, &end) : NAN;
        if (isnan(x) || !end || end == v + 1 || strcmp(end, "%") || !isfinite(x))
            return gp_err(err, GP_EINVAL, "--fail-on: '%s:%s': the threshold is a signed percentage, +N%% to fail "
                          "on a rise or -N%% on a fall (e.g. %s:%s5%%)", t, v, t,
                          gp_cmp_metrics[m].lower_better ? "+" : "-");
        *colon = ':';
        g[*n].metric = m;
        g[*n].threshold = x / 100;
        g[*n].text = t;
        (*n)++;
    }
    if (!*n)
        return gp_err(err, GP_EINVAL, "--fail-on: no terms; write METRIC:+N%% terms separated by commas");
    return 0;
}

enum gp_cmp_gate_state gp_cmp_gate_eval(const struct gp_cmp_gate *g, const struct gp_cmp_result *r)
{
    const struct gp_cmp_row *row = NULL;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].metric == g->metric)
            row = &r->rows[i];
    if (!row || row->verdict == GP_CMP_NA)
        return GP_GATE_MISSING;
    if (row->too_few)
        return GP_GATE_TOO_FEW;   /* a gate that could not judge must not read as a pass */
    int rise = g->threshold > 0 || (g->threshold == 0 && !signbit(g->threshold));
    int past = rise ? row->change.est >= g->threshold : row->change.est <= g->threshold;
    /* real in the gated direction: the whole interval lies on that side of 0 */
    int beyond = rise ? row->change.lo > 0 : row->change.hi < 0;
    if (!past || !beyond)
        return GP_GATE_PASS;
    return r->limited ? GP_GATE_LIMITED : GP_GATE_FAIL;
}
