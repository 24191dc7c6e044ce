/* core/stats.h — NumPy-exact summary statistics (mean, std, percentiles) and
 * Python's round(), shared by metrics/ (request metrics) and telemetry/
 * (GPU and server metrics), which must print the very same doubles
 * GenAI-Perf prints.
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

#endif
