/* compare/cmpstats.h — the statistics `genperf compare` decides with: sample
 * moments, Student's t quantile, Welch's interval for a difference of means,
 * and the percentile bootstrap of a relative change.
 *
 * Owns nothing: every function works on caller-owned arrays; the bootstrap
 * takes a caller-owned scratch array so it allocates nothing per resample.
 * Deterministic: the bootstrap draws from core/rng.h with the seed it is given.
 */
#ifndef GP_COMPARE_CMPSTATS_H
#define GP_COMPARE_CMPSTATS_H

#include <stddef.h>

struct gp_rng;

/* Arithmetic mean of x[0..n); 0 for n == 0. */
double gp_cs_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1 in the denominator); 0 for n < 2. */
double gp_cs_stddev(const double *x, size_t n);
/* The t with P(T <= t) = p, for p in (0, 1) and df > 0 (bisection on the CDF,
 * |error| < 1e-9): gp_cs_t_quantile(0.975, 10) = 2.228139 */
double gp_cs_t_quantile(double p, double df);

/* A two-sided 95% interval of a change. */
struct gp_cs_interval {
    double est;       /* the point estimate */
    double lo, hi;    /* the interval */
};

/* Welch's 95% interval for mean(b) - mean(a) from run-level values
 * (na, nb >= 2): est +- t(0.975, df) * se, df by Welch-Satterthwaite.
 * Returns -1 when either side has fewer than 2 values. When both variances
 * are 0 the interval is the point. */
int gp_cs_welch(const double *a, size_t na, const double *b, size_t nb, struct gp_cs_interval *out);

/* A statistic of a sample: fills nothing, returns the value; x is scratch the
 * statistic may reorder (sorting for a percentile). */
typedef double (*gp_cs_stat_fn)(double *x, size_t n, void *ctx);
/* Mean as a gp_cs_stat_fn (ctx unused). */
double gp_cs_stat_mean(double *x, size_t n, void *ctx);
/* Percentile as a gp_cs_stat_fn: ctx points to a double q in [0, 100]
 * (NumPy's linear interpolation, as GenAI-Perf reports them). */
double gp_cs_stat_pct(double *x, size_t n, void *ctx);

/* The percentile bootstrap of the change of stat from a to b: relative,
 * stat(b) / stat(a) - 1, or (relative 0) absolute, stat(b) - stat(a).
 * iters resamples of each side with replacement (rng), the 2.5th and 97.5th
 * percentiles of the resampled changes. est is the change of the samples
 * themselves. scratch holds max(na, nb) doubles and changes iters doubles.
 * Returns -1 when a side is empty or (relative) stat(a) is 0. */
int gp_cs_bootstrap(const double *a, size_t na, const double *b, size_t nb, gp_cs_stat_fn stat, void *ctx,
                    int relative, int iters, struct gp_rng *rng, double *scratch, double *changes,
                    struct gp_cs_interval *out);

#endif
