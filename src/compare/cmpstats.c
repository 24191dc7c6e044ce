/* compare/cmpstats.c — moments, Student's t, Welch's interval and the
 * percentile bootstrap (see cmpstats.h). Student's t itself is core/stats.c's. */
#include "compare/cmpstats.h"

#include "core/rng.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The moments and Student's t live in core/stats.c (profile/'s --num-runs
 * aggregate needs them too and may not include compare/). */
double gp_cs_mean(const double *x, size_t n) { return gp_mean(x, n); }
double gp_cs_stddev(const double *x, size_t n) { return gp_sample_std(x, n); }
double gp_cs_t_quantile(double p, double df) { return gp_t_quantile(p, df); }

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

double gp_cs_stat_pct(double *x, size_t n, void *ctx)
{
    qsort(x, n, sizeof *x, gp_cmp_double);
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
    qsort(changes, (size_t)kept, sizeof *changes, gp_cmp_double);
    out->lo = gp_percentile_sorted(changes, (size_t)kept, 2.5);
    out->hi = gp_percentile_sorted(changes, (size_t)kept, 97.5);
    return 0;
}
