/* Unit tests for sched/: arrivals, ramps, worker split, session plan, lag. */
#include "core/error.h"
#include "core/test.h"
#include "sched/sched.h"

#include <math.h>
#include <stdlib.h>

static int64_t *arr(const struct gp_sched_load *l, size_t n, size_t w, size_t nw, size_t *k)
{
    int64_t *t = NULL;
    struct gp_error e;
    CHECK_INT(gp_sched_arrivals(l, n, nw, w, &t, k, &e), 0);
    return t;
}

/* Mean and coefficient of variation of the gaps of t[0..n). */
static void gap_stats(const int64_t *t, size_t n, double *mean, double *cv)
{
    double s = 0, s2 = 0;
    for (size_t i = 1; i < n; i++) {
        double g = (double)(t[i] - t[i - 1]);
        s += g;
        s2 += g * g;
    }
    double m = s / (double)(n - 1);
    *mean = m;
    *cv = sqrt(s2 / (double)(n - 1) - m * m) / m;
}

static void test_constant(void)
{
    struct gp_sched_load l = {.mode = GP_SCHED_CONSTANT, .rate = 1000};
    size_t k;
    int64_t *t = arr(&l, 5, 0, 1, &k);
    CHECK_INT(k, 5);
    for (size_t i = 0; t && i < 5; i++)
        CHECK_INT(t[i], (int64_t)i * 1000000);
    free(t);
    l.rate = 3; /* 1/3 s: rounded to the nearest ns, never drifting */
    t = arr(&l, 4, 0, 1, &k);
    CHECK_INT(t[3], 1000000000);
    CHECK_INT(t[1], 333333333);
    free(t);
}

static void test_poisson_gamma(void)
{
    struct gp_sched_load l = {.mode = GP_SCHED_POISSON, .rate = 1000, .seed = 7};
    size_t k, n = 40000;
    int64_t *t = arr(&l, n, 0, 1, &k);
    double mean, cv;
    gap_stats(t, n, &mean, &cv);
    CHECK_NEAR(mean, 1e6, 3e4); /* 1 ms +- 3% */
    CHECK_NEAR(cv, 1.0, 0.03);  /* exponential: sd = mean */
    int mono = 1;
    for (size_t i = 1; i < n; i++)
        mono &= t[i] >= t[i - 1];
    CHECK(mono);
    CHECK_INT(t[0], 0);
    /* same seed, same list; another seed, another list */
    int64_t *t2 = arr(&l, n, 0, 1, &k);
    CHECK(memcmp(t, t2, n * sizeof *t) == 0);
    free(t2);
    l.seed = 8;
    t2 = arr(&l, n, 0, 1, &k);
    CHECK(memcmp(t, t2, n * sizeof *t) != 0);
    free(t2);
    /* a longer list keeps the prefix: gap i depends on (seed, i) only */
    l.seed = 7;
    t2 = arr(&l, n / 2, 0, 1, &k);
    CHECK(memcmp(t, t2, (n / 2) * sizeof *t) == 0);
    free(t2);
    free(t);
    /* gamma: CV = 1/sqrt(burstiness), mean still 1/rate */
    double bs[] = {0.25, 1.0, 4.0};
    for (size_t b = 0; b < 3; b++) {
        struct gp_sched_load g = {.mode = GP_SCHED_GAMMA, .rate = 500, .burstiness = bs[b], .seed = 3};
        t = arr(&g, n, 0, 1, &k);
        gap_stats(t, n, &mean, &cv);
        CHECK_NEAR(mean, 2e6, 2e6 * 0.05);
        CHECK_NEAR(cv, 1.0 / sqrt(bs[b]), 0.08 / sqrt(bs[b]));
        free(t);
    }
}

static void test_normalize(void)
{
    struct gp_sched_load l = {.mode = GP_SCHED_POISSON, .rate = 100, .seed = 1};
    size_t k, n = 1000;
    int64_t *raw = arr(&l, n, 0, 1, &k);
    l.normalize = 1;
    int64_t *nrm = arr(&l, n, 0, 1, &k);
    /* the same draws scaled by one factor */
    double f = (double)nrm[n - 1] / (double)raw[n - 1];
    CHECK(fabs(f - 1.0) > 1e-6);
    CHECK_NEAR((double)nrm[n / 2] / (double)raw[n / 2], f, 1e-6);
    /* mean rate exact: n gaps (one after the last) sum to n/rate = 10 s, so
     * the last request is due within a few gaps of 10 s */
    CHECK(nrm[n - 1] < 10000000000LL && nrm[n - 1] > 9900000000LL);
    free(raw);
    free(nrm);
}

static void test_split(void)
{
    struct gp_sched_load l = {.mode = GP_SCHED_GAMMA, .rate = 2000, .burstiness = 0.5, .seed = 11, .ramp_s = 0.5};
    size_t n = 1001, k;
    int64_t *all = arr(&l, n, 0, 1, &k);
    CHECK_INT(k, n);
    size_t ws[] = {2, 3, 7, 2000};
    for (size_t wi = 0; wi < 4; wi++) {
        size_t W = ws[wi], total = 0;
        int same = 1;
        for (size_t w = 0; w < W; w++) {
            int64_t *part = arr(&l, n, w, W, &k);
            total += k;
            for (size_t j = 0; j < k; j++)
                same &= part[j] == all[w + j * W];
            free(part);
        }
        CHECK_INT(total, n);
        CHECK(same);
    }
    /* the iterator (duration-bounded runs) gives the same times */
    struct gp_sched_iter it;
    struct gp_error e;
    CHECK_INT(gp_sched_iter_init(&it, &l, 3, 1, &e), 0);
    int same_it = 1;
    for (size_t j = 0; j * 3 + 1 < n; j++)
        same_it &= gp_sched_iter_next(&it) == all[j * 3 + 1];
    CHECK(same_it);
    int64_t *t = NULL;
    CHECK(gp_sched_arrivals(&l, n, 3, 3, &t, &k, &e) < 0);
    CHECK(t == NULL);
    free(all);
}

static void test_ramp(void)
{
    /* rate 0 -> 1000/s over 2 s: 1000 requests expected in the ramp, request
     * i at sqrt(2 S i / R) while ramping, then exactly 1 ms apart */
    struct gp_sched_load l = {.mode = GP_SCHED_CONSTANT, .rate = 1000, .ramp_s = 2};
    size_t k, n = 1500;
    int64_t *t = arr(&l, n, 0, 1, &k);
    size_t in_ramp = 0;
    for (size_t i = 0; i < n; i++)
        in_ramp += t[i] < 2000000000LL;
    CHECK_INT(in_ramp, 1000);
    CHECK_INT(t[250], 1000000000);
    CHECK_INT(t[1000], 2000000000);
    CHECK_INT(t[1200] - t[1199], 1000000);
    /* early gaps are longer than late ones */
    CHECK(t[11] - t[10] > t[901] - t[900]);
    free(t);
    /* a start rate: 500 -> 1000 over 1 s: 750 expected in the ramp */
    l.ramp_s = 1;
    l.ramp_start_rate = 500;
    t = arr(&l, n, 0, 1, &k);
    CHECK_INT(t[750], 1000000000);
    /* u = 1: r0 t + a t^2 = 1 with a = (R - r0) / 2S = 250 */
    CHECK_NEAR((double)t[1], 1e9 * (-500 + sqrt(500.0 * 500 + 4 * 250)) / (2 * 250), 1.0);
    free(t);
}

static void test_concurrency_ramp(void)
{
    CHECK_INT(gp_sched_ramp_concurrency(10, 9, 0), 1);
    CHECK_INT(gp_sched_ramp_concurrency(10, 9, 999999999), 1);
    CHECK_INT(gp_sched_ramp_concurrency(10, 9, 1000000000), 2);
    CHECK_INT(gp_sched_ramp_concurrency(10, 9, 4500000000LL), 5);
    CHECK_INT(gp_sched_ramp_concurrency(10, 9, 9000000000LL), 10);
    CHECK_INT(gp_sched_ramp_concurrency(10, 9, 90000000000LL), 10);
    CHECK_INT(gp_sched_ramp_concurrency(10, 0, 0), 10);
    CHECK_INT(gp_sched_ramp_concurrency(1, 5, 0), 1);
    for (long k = 1; k <= 7; k++) {
        int64_t ts = gp_sched_ramp_slot_time(7, 3.3, k);
        CHECK(gp_sched_ramp_concurrency(7, 3.3, ts) >= k);
        if (k > 1)
            CHECK(gp_sched_ramp_concurrency(7, 3.3, ts - 1) < k);
    }
    CHECK_INT(gp_sched_ramp_slot_time(10, 9, 2), 1000000000);
}

static void test_load_check(void)
{
    struct gp_error e;
    struct gp_sched_load l = {.mode = GP_SCHED_POISSON, .rate = 0};
    CHECK(gp_sched_load_check(&l, &e) < 0 && strstr(e.msg, "--request-rate"));
    l.rate = INFINITY;
    CHECK(gp_sched_load_check(&l, &e) < 0);
    l.rate = 10;
    l.mode = GP_SCHED_GAMMA;
    CHECK(gp_sched_load_check(&l, &e) < 0 && strstr(e.msg, "--burstiness"));
    l.burstiness = 2;
    CHECK_INT(gp_sched_load_check(&l, &e), 0);
    l.ramp_s = -1;
    CHECK(gp_sched_load_check(&l, &e) < 0 && strstr(e.msg, "--ramp-up-duration"));
    l.ramp_s = 1;
    l.ramp_start_rate = 10;
    CHECK(gp_sched_load_check(&l, &e) < 0);
}

static void test_session_plan(void)
{
    struct gp_session_opts o;
    gp_session_opts_default(&o);
    CHECK_INT(o.turns_mean, 1);
    CHECK(o.delay_ratio == 1.0);
    struct gp_session_plan *p = NULL;
    struct gp_error e;
    CHECK_INT(gp_session_plan_build(&o, &p, &e), 0);
    CHECK(p && p->nsessions == 0 && p->nturns == 0);
    gp_session_plan_free(p);
    /* 4 sessions x 3 turns, 100 ms apart */
    o.num_sessions = 4;
    o.turns_mean = 3;
    o.delay_mean_ms = 100;
    CHECK_INT(gp_session_plan_build(&o, &p, &e), 0);
    CHECK_INT(p->nturns, 12);
    for (size_t s = 0; s < 4; s++) {
        CHECK_INT(p->turns[s], 3);
        CHECK_INT(p->first[s], s * 3);
        CHECK_INT(p->delay_ns[s * 3], 0);
        CHECK_INT(p->delay_ns[s * 3 + 1], 100000000);
        CHECK_INT(p->delay_ns[s * 3 + 2], 100000000);
    }
    gp_session_plan_free(p);
    /* spread: turns >= 1, delays >= 0, same seed same plan, prefix stable */
    o.num_sessions = 200;
    o.turns_mean = 2;
    o.turns_stddev = 3;
    o.delay_mean_ms = 5;
    o.delay_stddev_ms = 20;
    o.seed = 42;
    struct gp_session_plan *q = NULL, *r = NULL;
    CHECK_INT(gp_session_plan_build(&o, &q, &e), 0);
    o.num_sessions = 100;
    CHECK_INT(gp_session_plan_build(&o, &r, &e), 0);
    int ok = 1, varied = 0, zero_delay = 0;
    for (size_t s = 0; s < 200; s++) {
        ok &= q->turns[s] >= 1;
        varied |= q->turns[s] != q->turns[0];
        if (s < 100)
            ok &= q->turns[s] == r->turns[s];
    }
    for (size_t i = 0; i < q->nturns; i++) {
        ok &= q->delay_ns[i] >= 0 && q->delay_ns[i] % 1000000 == 0;
        zero_delay += q->delay_ns[i] == 0;
    }
    CHECK(ok);
    CHECK(varied);
    CHECK(zero_delay > 200); /* first turns and clamped draws */
    CHECK(memcmp(q->delay_ns, r->delay_ns, r->nturns * sizeof *r->delay_ns) == 0);
    gp_session_plan_free(q);
    gp_session_plan_free(r);
}

static void test_session_check(void)
{
    struct gp_session_opts o;
    struct gp_error e;
    gp_session_opts_default(&o);
    CHECK_INT(gp_session_opts_check(&o, &e), 0);
    o.num_sessions = -1;
    CHECK(gp_session_opts_check(&o, &e) < 0 && strstr(e.msg, "--num-sessions"));
    gp_session_opts_default(&o);
    o.turns_mean = 0;
    CHECK(gp_session_opts_check(&o, &e) < 0 && strstr(e.msg, "--session-turns-mean"));
    gp_session_opts_default(&o);
    o.delay_stddev_ms = -2;
    CHECK(gp_session_opts_check(&o, &e) < 0 && strstr(e.msg, "--session-turn-delay-stddev"));
    gp_session_opts_default(&o);
    o.turns_stddev = -2;
    CHECK(gp_session_opts_check(&o, &e) < 0 && strstr(e.msg, "--session-turns-stddev"));
    gp_session_opts_default(&o);
    o.delay_ratio = 0;
    CHECK(gp_session_opts_check(&o, &e) < 0 && strstr(e.msg, "--session-delay-ratio"));
    gp_session_opts_default(&o);
    o.num_sessions = 2;
    o.session_concurrency = 3;
    CHECK(gp_session_opts_check(&o, &e) < 0 && strstr(e.msg, "--session-concurrency 3"));
    o.session_concurrency = 2;
    CHECK_INT(gp_session_opts_check(&o, &e), 0);
    o.num_sessions = 1000000;
    o.turns_mean = 100;
    struct gp_session_plan *p = NULL;
    CHECK(gp_session_plan_build(&o, &p, &e) < 0 && p == NULL);
}

static void test_lag(void)
{
    int64_t sched[] = {0, 1000000, 2000000, -1, 4000000, 5000000};
    int64_t start[] = {0, 3000000, 2500000, 7, 3900000, 5000001};
    struct gp_sched_lag g;
    struct gp_error e;
    CHECK_INT(gp_sched_lag_compute(sched, start, 6, &g, &e), 0);
    CHECK_INT(g.n, 5);
    CHECK_INT(g.early, 1);
    CHECK_INT(g.late_1ms, 1);
    CHECK_INT(g.late_warn, 0); /* 2 ms late is not a schedule missed */
    /* lags 0, 2, 0.5, 0 (early), 0.000001 ms */
    CHECK_NEAR(g.max_ms, 2.0, 1e-12);
    CHECK_NEAR(g.p50_ms, 0.000001, 1e-12);
    CHECK_NEAR(g.p99_ms, 0.5 + 0.96 * 1.5, 1e-9); /* numpy linear: index 3.96 */
    CHECK_NEAR(g.avg_ms, 2.500001 / 5, 1e-12);
    int64_t late[] = {0, 10000000, 25000000};
    int64_t late_start[] = {10000000, 20000001, 25000000}; /* exactly 10 ms is not over */
    CHECK_INT(gp_sched_lag_compute(late, late_start, 3, &g, &e), 0);
    CHECK_INT(g.late_warn, 1);
    CHECK_INT(g.late_1ms, 2);
    int64_t none[] = {-1, -1};
    CHECK_INT(gp_sched_lag_compute(none, start, 2, &g, &e), 0);
    CHECK_INT(g.n, 0);
}

/* Session ids: UUID4 text, the same for the same (seed, s), distinct across
 * sessions and seeds. */
static void test_session_id(void)
{
    char a[37], b[37], c[37], d[37];
    gp_session_id(7, 0, a);
    gp_session_id(7, 0, b);
    gp_session_id(7, 1, c);
    gp_session_id(8, 0, d);
    CHECK_STR(a, b);
    CHECK(strcmp(a, c) != 0);
    CHECK(strcmp(a, d) != 0);
    CHECK_INT((long)strlen(a), 36);
    CHECK(a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-');
    CHECK(a[14] == '4');                            /* version 4 */
    CHECK(strchr("89ab", c[19]) != NULL);           /* RFC 4122 variant */
    for (int i = 0; i < 36; i++)
        CHECK(a[i] == '-' || strchr("0123456789abcdef", a[i]) != NULL);
}

int main(void)
{
    GP_RUN(test_constant);
    GP_RUN(test_poisson_gamma);
    GP_RUN(test_normalize);
    GP_RUN(test_split);
    GP_RUN(test_ramp);
    GP_RUN(test_concurrency_ramp);
    GP_RUN(test_load_check);
    GP_RUN(test_session_plan);
    GP_RUN(test_session_check);
    GP_RUN(test_lag);
    GP_RUN(test_session_id);
    return gp_test_summary();
}
