/* compare/cmpstats.c — moments, Student's t, Welch's interval and the
 * percentile bootstrap (see cmpstats.h). The t distribution goes through the
 * regularized incomplete beta function (a continued fraction, evaluated by
 * the modified Lentz method), so any degrees of freedom work, fractional ones
 * included: Welch's df is rarely an integer and a table would have to round it. */
#include "compare/cmpstats.h"

#include "core/rng.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double gp_cs_mean(const double *x, size_t n)
{
    if (!n)
        return 0;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

double gp_cs_stddev(const double *x, size_t n)
{
    if (n < 2)
        return 0;
    double m = gp_cs_mean(x, n), s = 0;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

/* Continued fraction of the incomplete beta function (Numerical Recipes'
 * betacf), converged to 1e-15 relative or 300 terms. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

/* The regularized incomplete beta I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return exp(lbt) * beta_cf(a, b, x) / a;
    return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

double gp_cs_t_cdf(double t, double df)
{
    /* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
    double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

double gp_cs_t_quantile(double p, double df)
{
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -gp_cs_t_quantile(1 - p, df);
    /* The quantile for p < 1 is finite; 1e6 bounds every p this code asks
     * (0.975 at df 0.1 is about 3e5), and 100 halvings narrow it below 1e-9. */
    double lo = 0, hi = 1e6;
    for (int i = 0; i < 200 && hi - lo > 1e-10; i++) {
        double mid = 0.5 * (lo + hi);
        if (gp_cs_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

int gp_cs_welch(const double *a, size_t na, const double *b, size_t nb, struct gp_cs_interval *out)
{
    if (na < 2 || nb < 2)
        return -1;
    double ma = gp_cs_mean(a, na), mb = gp_cs_mean(b, nb);
    double sa = gp_cs_stddev(a, na), sb = gp_cs_stddev(b, nb);
    double va = sa * sa / (double)na, vb = sb * sb / (double)nb;
    out->est = mb - ma;
    double se2 = va + vb;
    if (se2 <= 0) {
        out->lo = out->hi = out->est;
        return 0;
    }
    double df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    double half = gp_cs_t_quantile(0.975, df) * sqrt(se2);
    out->lo = out->est - half;
    out->hi = out->est + half;
    return 0;
}

double gp_cs_stat_mean(double *x, size_t n, void *ctx)
{
    (void)ctx;
    return gp_cs_mean(x, n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gp_cs_stat_pct(double *x, size_t n, void *ctx)
{
    qsort(x, n, sizeof *x, cmp_double);
    return gp_percentile_sorted(x, n, *(const double *)ctx);
}

static void resample(const double *x, size_t n, struct gp_rng *rng, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = x[gp_rng_below(rng, n)];
}

int gp_cs_bootstrap(const double *a, size_t na, const double *b, size_t nb, gp_cs_stat_fn stat, void *ctx,
                    int relative, int iters, struct gp_rng *rng, double *scratch, double *changes,
                    struct gp_cs_interval *out)
{
    if (!na || !nb || iters < 1)
        return -1;
    memcpy(scratch, a, na * sizeof *a);
    double sa = stat(scratch, na, ctx);
    memcpy(scratch, b, nb * sizeof *b);
    double sb = stat(scratch, nb, ctx);
    if (relative && sa == 0)
        return -1;
    out->est = relative ? sb / sa - 1 : sb - sa;
    int kept = 0;
    for (int i = 0; i < iters; i++) {
        resample(a, na, rng, scratch);
        double ra = stat(scratch, na, ctx);
        resample(b, nb, rng, scratch);
        double rb = stat(scratch, nb, ctx);
        if (!relative)
            changes[kept++] = rb - ra;
        else if (ra != 0)   /* a resample whose base is 0 has no ratio; it is dropped */
            changes[kept++] = rb / ra - 1;
    }
    if (!kept)
        return -1;
    qsort(changes, (size_t)kept, sizeof *changes, cmp_double);
    out->lo = gp_percentile_sorted(changes, (size_t)kept, 2.5);
    out->hi = gp_percentile_sorted(changes, (size_t)kept, 97.5);
    return 0;
}
