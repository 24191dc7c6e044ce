/* core/stats.c — statistics computed bit-for-bit as NumPy computes them.
 *
 * GenAI-Perf calls np.mean, np.std and np.percentile on Python lists; the
 * numbers in its JSON are those doubles printed with repr(). To reproduce
 * them exactly we mirror NumPy's pairwise summation (8 accumulators, blocks
 * of 128) and its `_lerp` (which switches to b - (b-a)(1-t) for t >= 0.5).
 * Mean and std use the caller's order (pairwise summation is order
 * dependent); percentiles sort afterwards with an LSD radix sort, because a
 * million-request run sorts a handful of 1M arrays and qsort's indirect
 * compare would dominate post-processing.
 */
#include "core/stats.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NPY_BUFSIZE 8192

const int gp_pct_levels[GP_NPCT] = {1, 5, 10, 25, 50, 75, 90, 95, 99};

static double pairwise_sum(const double *a, size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        for (int k = 0; k < 8; k++)
            r[k] = a[k];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++)
                r[k] += a[i + k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* pairwise sum of (a[i]-mean)^2 without a temporary array: same grouping as
 * pairwise_sum over the squared deviations. */
static double pairwise_sq(const double *a, size_t n, double m)
{
#define SQ(i) ((a[i] - m) * (a[i] - m))
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; i++)
            res += SQ(i);
        return res;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        for (int k = 0; k < 8; k++)
            r[k] = SQ(k);
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++)
                r[k] += SQ(i + k);
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += SQ(i);
        return res;
    }
#undef SQ
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sq(a, n2, m) + pairwise_sq(a + n2, n - n2, m);
}

static inline uint64_t dkey(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

static inline double kdbl(uint64_t k)
{
    uint64_t u = (k & 0x8000000000000000ull) ? (k & ~0x8000000000000000ull) : ~k;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int gp_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 8-byte loads/stores through memcpy: the keys are written over the
 * caller's double array, and memcpy keeps that free of aliasing UB. */
static inline uint64_t ld8(const void *p, size_t i)
{
    uint64_t v;
    memcpy(&v, (const unsigned char *)p + 8 * i, 8);
    return v;
}
static inline void st8(void *p, size_t i, uint64_t v) { memcpy((unsigned char *)p + 8 * i, &v, 8); }

static inline uint32_t ld4(const unsigned char *p, size_t i)
{
    uint32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
}
static inline void st4(unsigned char *p, size_t i, uint32_t v) { memcpy(p + 4 * i, &v, 4); }

/* A radix pass's digit counts become each digit's first output slot. */
static void counts_to_starts(size_t *cnt, size_t nb)
{
    size_t s = 0;
    for (size_t k = 0; k < nb; k++) {
        size_t c = cnt[k];
        cnt[k] = s;
        s += c;
    }
}

/* Integral values in [0, 2^53) spread over less than 2^32 (nanosecond
 * latencies, token counts: nearly every metric) sort as 32-bit offsets from
 * their minimum, inside the caller's array: the keys in its first half, the
 * ping-pong buffer in its second, 11 bits a pass (a cache-sized count table)
 * and only as many passes as the spread needs. No scratch memory: fresh
 * pages are slow on the VMs we run on. 0 (x untouched) when the values do
 * not qualify. The result is the same bits as any sort's: equal doubles
 * here are equal bit patterns (-0.0 is refused). */
static int sort_small_ints(double *x, size_t n)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i];
        if (!(d >= 0 && d < 9007199254740992.0)) /* NaN fails too */
            return 0;
        uint64_t u = (uint64_t)d;
        if ((double)u != d || (u == 0 && signbit(d)))
            return 0;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    if (hi - lo > UINT32_MAX)
        return 0;
    enum { BITS = 11, NB = 1 << BITS };
    unsigned char *a = (unsigned char *)x, *b = a + 4 * n;
    /* key i (bytes 4i..) is written after x[i] (bytes 8i..) is read, and
     * never over an x[j] still to read (4i + 4 <= 8j for j > i) */
    for (size_t i = 0; i < n; i++) {
        double d;
        memcpy(&d, a + 8 * i, 8);
        st4(a, i, (uint32_t)((uint64_t)d - lo));
    }
    int bits = 0;
    while (bits < 32 && ((hi - lo) >> bits))
        bits++;
    size_t cnt[NB];
    for (int sh = 0; sh < bits; sh += BITS) {
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(ld4(a, i) >> sh) & (NB - 1)]++;
        counts_to_starts(cnt, NB);
        for (size_t i = 0; i < n; i++) {
            uint32_t v = ld4(a, i);
            st4(b, cnt[(v >> sh) & (NB - 1)]++, v);
        }
        unsigned char *t = a;
        a = b;
        b = t;
    }
    /* back to doubles, never over a key still to read: from the end when
     * the keys are in the first half, from the start when in the second */
    if (a == (unsigned char *)x) {
        for (size_t i = n; i-- > 0;) {
            double d = (double)(ld4(a, i) + lo);
            memcpy(&x[i], &d, 8);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            double d = (double)(ld4(a, i) + lo);
            memcpy(&x[i], &d, 8);
        }
    }
    return 1;
}

/* Ascending sort; NaNs are not expected (metrics never produce them). */
static void sort_doubles(double *x, size_t n)
{
    if (n < 2048) {
        qsort(x, n, sizeof *x, gp_cmp_double);
        return;
    }
    if (sort_small_ints(x, n))
        return;
    enum { BITS = 16, NB = 1 << BITS };
    void *b = malloc(n * 8);
    size_t *cnt = malloc(NB * sizeof *cnt);
    if (!b || !cnt) {
        free(b);
        free(cnt);
        qsort(x, n, sizeof *x, gp_cmp_double);
        return;
    }
    void *a = x, *orig = x;
    for (size_t i = 0; i < n; i++)
        st8(a, i, dkey(x[i]));
    for (int pass = 0; pass < 64 / BITS; pass++) {
        int sh = pass * BITS;
        /* skip a pass where every key has the same digit (common: high bits) */
        uint64_t d0 = (ld8(a, 0) >> sh) & (NB - 1);
        size_t i = 1;
        while (i < n && ((ld8(a, i) >> sh) & (NB - 1)) == d0)
            i++;
        if (i == n)
            continue;
        memset(cnt, 0, NB * sizeof *cnt);
        for (i = 0; i < n; i++)
            cnt[(ld8(a, i) >> sh) & (NB - 1)]++;
        counts_to_starts(cnt, NB);
        for (i = 0; i < n; i++) {
            uint64_t v = ld8(a, i);
            st8(b, cnt[(v >> sh) & (NB - 1)]++, v);
        }
        void *t = a;
        a = b;
        b = t;
    }
    if (a != orig) {
        memcpy(orig, a, n * 8);
        b = a; /* the malloc'd buffer, freed below */
    }
    for (size_t i = 0; i < n; i++)
        x[i] = kdbl(ld8(orig, i));
    free(cnt);
    free(b);
}

double gp_percentile_sorted(const double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    /* sorted ascending (stats.h), checked O(1): the ends here, the pair
     * interpolated below; written !(b < a) so NaN, which sorts apart, passes */
    assert(!(x[n - 1] < x[0]));
    double qq = q / 100.0;               /* np.true_divide(q, 100) */
    double vi = (double)(n - 1) * qq;    /* method "linear": (n-1)*q */
    if (vi >= (double)(n - 1))
        return x[n - 1];
    if (vi < 0)
        return x[0];
    double lo = floor(vi);
    size_t il = (size_t)lo;
    double a = x[il], b = x[il + 1];
    assert(!(b < a));
    double t = vi - lo;
    double d = b - a;
    /* numpy _lerp: add(a, d*t), then subtract(b, d*(1-t)) where t >= 0.5 */
    if (t >= 0.5)
        return b - d * (1.0 - t);
    return a + d * t;
}

void gp_stats_compute(double *x, size_t n, struct gp_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    out->present = 1;
    out->n = n;
    /* np.add.reduce runs its inner loop over buffer-sized blocks (8192
     * elements) and accumulates the blocks' pairwise sums in order */
    double sum = 0;
    for (size_t o = 0; o < n; o += NPY_BUFSIZE)
        sum += pairwise_sum(x + o, n - o < NPY_BUFSIZE ? n - o : NPY_BUFSIZE);
    double mean = sum / (double)n;
    out->avg = mean;
    double sq = 0;
    for (size_t o = 0; o < n; o += NPY_BUFSIZE)
        sq += pairwise_sq(x + o, n - o < NPY_BUFSIZE ? n - o : NPY_BUFSIZE, mean);
    out->std = sqrt(sq / (double)n);
    sort_doubles(x, n);
    out->min = x[0];
    out->max = x[n - 1];
    for (int i = 0; i < GP_NPCT; i++)
        out->p[i] = gp_percentile_sorted(x, n, (double)gp_pct_levels[i]);
}

void gp_stats_scale(struct gp_stats *s, double factor)
{
    s->avg *= factor;
    s->min *= factor;
    s->max *= factor;
    s->std *= factor;
    for (int i = 0; i < GP_NPCT; i++)
        s->p[i] *= factor;
}

double gp_round_half_even(double x)
{
    /* the default rounding mode is round-to-nearest-even, which is Python's round() */
    return nearbyint(x);
}

/* Sample moments and Student's t (moved here from compare/cmpstats.c so that
 * compare/ and profile/'s --num-runs aggregate share one implementation).
 * The t distribution goes through the regularized incomplete beta function
 * (a continued fraction, evaluated by the modified Lentz method), so any
 * degrees of freedom work, fractional ones included: Welch's df is rarely an
 * integer and a table would have to round it. */
double gp_mean(const double *x, size_t n)
{
    if (!n)
        return 0;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

double gp_sample_std(const double *x, size_t n)
{
    if (n < 2)
        return 0;
    double m = gp_mean(x, n), s = 0;
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

double gp_t_cdf(double t, double df)
{
    /* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
    double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

double gp_t_quantile(double p, double df)
{
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -gp_t_quantile(1 - p, df);
    /* The quantile for p < 1 is finite; 1e6 bounds every p this code asks
     * (0.975 at df 0.1 is about 3e5), and 100 halvings narrow it below 1e-9. */
    double lo = 0, hi = 1e6;
    for (int i = 0; i < 200 && hi - lo > 1e-10; i++) {
        double mid = 0.5 * (lo + hi);
        if (gp_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void gp_repeat_stats(const double *x, size_t n, struct gp_repeat_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->mean = gp_mean(x, n);
    out->stddev = gp_sample_std(x, n);
    if (n >= 2) {
        double half = gp_t_quantile(0.975, (double)(n - 1)) * out->stddev / sqrt((double)n);
        out->ci_lo = out->mean - half;
        out->ci_hi = out->mean + half;
        out->has_ci = 1;
    }
    if (n && out->mean != 0) {
        out->cv = out->stddev / fabs(out->mean);
        out->has_cv = 1;
    }
}
