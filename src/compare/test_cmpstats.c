/* Unit tests: compare/cmpstats.c against hand-worked values (moments of a
 * small sample, Student's t quantiles from the printed tables, a Welch
 * interval worked on paper) and the bootstrap's fixed points and seeding. */
#include "compare/cmpstats.h"
#include "core/rng.h"
#include "core/stats.h" /* gp_t_cdf, under gp_cs_t_quantile */
#include "core/test.h"

static void test_moments(void)
{
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    CHECK_NEAR(gp_cs_mean(x, 8), 5.0, 1e-12);
    /* sum of squares 32 over n - 1 = 7 */
    CHECK_NEAR(gp_cs_stddev(x, 8), 2.138089935299395, 1e-12);
    CHECK_NEAR(gp_cs_stddev(x, 1), 0.0, 0);
    CHECK_NEAR(gp_cs_mean(x, 0), 0.0, 0);
}

static void test_t_table(void)
{
    /* Two-sided 95% critical values, as any t table prints them. */
    CHECK_NEAR(gp_cs_t_quantile(0.975, 1), 12.7062, 1e-4);
    CHECK_NEAR(gp_cs_t_quantile(0.975, 2), 4.3027, 1e-4);
    CHECK_NEAR(gp_cs_t_quantile(0.975, 4), 2.7764, 1e-4);
    CHECK_NEAR(gp_cs_t_quantile(0.975, 10), 2.2281, 1e-4);
    CHECK_NEAR(gp_cs_t_quantile(0.975, 30), 2.0423, 1e-4);
    CHECK_NEAR(gp_cs_t_quantile(0.975, 1e7), 1.95996, 1e-4);
    CHECK_NEAR(gp_cs_t_quantile(0.95, 5), 2.0150, 1e-4);
    CHECK_NEAR(gp_cs_t_quantile(0.025, 10), -2.2281, 1e-4);
    CHECK_NEAR(gp_t_cdf(0, 3), 0.5, 1e-12);
    /* df 1 is the Cauchy distribution: P(T <= 1) = 3/4 */
    CHECK_NEAR(gp_t_cdf(1, 1), 0.75, 1e-10);
    /* df 2: P(T <= t) = 1/2 + t / (2 sqrt(t^2 + 2)); t = 1 -> 0.5 + 1/(2 sqrt 3) */
    CHECK_NEAR(gp_t_cdf(1, 2), 0.7886751345948129, 1e-10);
}

static void test_welch(void)
{
    /* a = 1,2,3 and b = 4,5,6: difference 3, each variance 1, se^2 = 2/3,
     * df = (2/3)^2 / (2 * (1/3)^2 / 2) = 4, t(0.975, 4) = 2.776445,
     * half width 2.776445 * sqrt(2/3) = 2.266958 */
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    struct gp_cs_interval iv;
    CHECK_INT(gp_cs_welch(a, 3, b, 3, &iv), 0);
    CHECK_NEAR(iv.est, 3.0, 1e-12);
    CHECK_NEAR(iv.lo, 3 - 2.266958, 1e-5);
    CHECK_NEAR(iv.hi, 3 + 2.266958, 1e-5);
    /* unequal variances: a = 10,12 (var 2), b = 20,30,40 (var 100):
     * se^2 = 1 + 100/3, df = (103/3)^2 / (1/1 + (100/3)^2/2) = 2.112 */
    const double c[] = {10, 12}, d[] = {20, 30, 40};
    CHECK_INT(gp_cs_welch(c, 2, d, 3, &iv), 0);
    CHECK_NEAR(iv.est, 19.0, 1e-12);
    double df = (103.0 / 3) * (103.0 / 3) / (1.0 + (100.0 / 3) * (100.0 / 3) / 2);
    CHECK_NEAR(iv.hi - iv.est, gp_cs_t_quantile(0.975, df) * sqrt(103.0 / 3), 1e-9);
    /* df 2.112 lies between the table's rows 2 (4.3027) and 3 (3.1824) */
    CHECK(iv.hi - iv.est > 3.1824 * sqrt(103.0 / 3) && iv.hi - iv.est < 4.3027 * sqrt(103.0 / 3));
    /* no spread on either side: the interval is the point */
    const double e[] = {5, 5}, f[] = {6, 6};
    CHECK_INT(gp_cs_welch(e, 2, f, 2, &iv), 0);
    CHECK_NEAR(iv.lo, 1.0, 0);
    CHECK_NEAR(iv.hi, 1.0, 0);
    CHECK_INT(gp_cs_welch(a, 1, b, 3, &iv), -1);
}

static void test_bootstrap(void)
{
    double a[100], b[100], scratch[100], ratios[2000];
    struct gp_cs_interval iv, iv2;
    struct gp_rng r;
    /* constant samples: every resample gives the same change */
    for (int i = 0; i < 100; i++) {
        a[i] = 10;
        b[i] = 12;
    }
    gp_rng_seed(&r, 1);
    CHECK_INT(gp_cs_bootstrap(a, 100, b, 100, gp_cs_stat_mean, NULL, 1, 500, &r, scratch, ratios, &iv), 0);
    CHECK_NEAR(iv.est, 0.2, 1e-12);
    CHECK_NEAR(iv.lo, 0.2, 1e-12);
    CHECK_NEAR(iv.hi, 0.2, 1e-12);
    /* 1..100 against 1.1 x (1..100): the mean moves +10%, the p50 too; the
     * mean's standard error is 29.01 / 10 = 2.9 on 50.5 (5.7%), so the
     * change's 95% interval is about +-1.96 * sqrt(2) * 5.7% = +-16% around it */
    for (int i = 0; i < 100; i++) {
        a[i] = i + 1;
        b[i] = 1.1 * (i + 1);
    }
    gp_rng_seed(&r, 7);
    CHECK_INT(gp_cs_bootstrap(a, 100, b, 100, gp_cs_stat_mean, NULL, 1, 2000, &r, scratch, ratios, &iv), 0);
    CHECK_NEAR(iv.est, 0.1, 1e-12);
    CHECK(iv.lo < 0.0 && iv.lo > -0.12);
    CHECK(iv.hi > 0.2 && iv.hi < 0.32);
    /* the same seed gives the same interval */
    gp_rng_seed(&r, 7);
    CHECK_INT(gp_cs_bootstrap(a, 100, b, 100, gp_cs_stat_mean, NULL, 1, 2000, &r, scratch, ratios, &iv2), 0);
    CHECK(iv.lo == iv2.lo && iv.hi == iv2.hi);
    double q = 50;
    gp_rng_seed(&r, 7);
    CHECK_INT(gp_cs_bootstrap(a, 100, b, 100, gp_cs_stat_pct, &q, 1, 2000, &r, scratch, ratios, &iv), 0);
    CHECK_NEAR(iv.est, 0.1, 1e-12);
    CHECK(iv.lo < 0.1 && iv.hi > 0.1);
    /* absolute: 0/1 samples (a failure rate), 10% against 30% failed:
     * +0.2, and both resampled rates stay within [0, 1] */
    for (int i = 0; i < 100; i++) {
        a[i] = i % 10 == 0;
        b[i] = i % 10 < 3;
    }
    gp_rng_seed(&r, 3);
    CHECK_INT(gp_cs_bootstrap(a, 100, b, 100, gp_cs_stat_mean, NULL, 0, 2000, &r, scratch, ratios, &iv), 0);
    CHECK_NEAR(iv.est, 0.2, 1e-12);
    /* binomial standard errors 0.03 and 0.046: the difference's is 0.055,
     * so the interval is about 0.2 +- 0.11 */
    CHECK(iv.lo > 0.05 && iv.lo < 0.15);
    CHECK(iv.hi > 0.25 && iv.hi < 0.35);
    /* a zero base has no relative change */
    for (int i = 0; i < 100; i++)
        a[i] = 0;
    CHECK_INT(gp_cs_bootstrap(a, 100, b, 100, gp_cs_stat_mean, NULL, 1, 10, &r, scratch, ratios, &iv), -1);
}

int main(void)
{
    GP_RUN(test_moments);
    GP_RUN(test_t_table);
    GP_RUN(test_welch);
    GP_RUN(test_bootstrap);
    return gp_test_summary();
}
