/* core/stats.h — NumPy-exact summary statistics (mean, std, percentiles) and
 * Python's round(), shared by metrics/ (request metrics) and telemetry/
 * (GPU and server metrics), which must print the very same doubles
 * GenAI-Perf prints; and the statistics over repeated runs (sample moments,
 * Student's t, the 95% interval of a mean) that compare/ and profile's
 * --num-runs aggregate share.
 *
 * Owns nothing: every function works on caller-owned arrays and structs;
 * struct gp_stats is a plain value (no pointers, nothing to free).
 */
#ifndef GP_CORE_STATS_H
#define GP_CORE_STATS_H

#include <stddef.h>

/* Percentiles in GenAI-Perf's JSON order p1,p5,p10,p25,p50,p75,p90,p95,p99. */
#define GP_NPCT 9
extern const int gp_pct_levels[GP_NPCT];

struct gp_stats {
    int present;        /* 0 = metric had no data (omitted from JSON, N/A in CSV) */
    int system;         /* 1 = only avg is meaningful */
    size_t n;
    double avg, min, max, std;
    double p[GP_NPCT];  /* p[i] = percentile gp_pct_levels[i] */
};

/* NumPy-exact statistics of x[0..n) (sorted in place): np.mean (pairwise
 * summation), np.percentile(linear, numpy's _lerp), min, max, np.std
 * (population). n == 0 -> present = 0. */
void gp_stats_compute(double *x, size_t n, struct gp_stats *out);
/* numpy.percentile(sorted, q) for q in [0,100], type 7. */
double gp_percentile_sorted(const double *sorted, size_t n, double q);
/* Multiplies every stat by factor (e.g. 1/1e6: GenAI-Perf's ns -> ms). */
void gp_stats_scale(struct gp_stats *s, double factor);
/* Python round(): half to even. */
double gp_round_half_even(double x);

/* qsort comparator for doubles, ascending. NaN compares equal to everything
 * (so NaNs land anywhere, as they did in each caller's former copy); -0.0 and
 * 0.0 compare equal. The one comparator every module sorts doubles with. */
int gp_cmp_double(const void *a, const void *b);

/* Arithmetic mean of x[0..n); 0 for n == 0. */
double gp_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1 in the denominator); 0 for n < 2. */
double gp_sample_std(const double *x, size_t n);
/* Student's t CDF P(T <= t) with df > 0 degrees of freedom (df may be fractional). */
double gp_t_cdf(double t, double df);
/* The t with P(T <= t) = p, for p in (0, 1) and df > 0 (bisection on the CDF,
 * |error| < 1e-9): gp_t_quantile(0.975, 10) = 2.228139 */
double gp_t_quantile(double p, double df);

/* One statistic over repeated runs: the mean of the runs' values, their
 * sample stddev, the 95% Student-t interval of the mean (n - 1 degrees of
 * freedom: mean +- t(0.975, n-1) * stddev / sqrt(n)) and the coefficient of
 * variation stddev / |mean|. With n < 2 the interval is unknown (has_ci 0)
 * and stddev 0; with mean 0 the CV is unknown (has_cv 0). */
struct gp_repeat_stats {
    size_t n;
    double mean, stddev, ci_lo, ci_hi, cv;
    int has_ci, has_cv;
};
void gp_repeat_stats(const double *x, size_t n, struct gp_repeat_stats *out);

#endif
