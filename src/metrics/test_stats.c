/* metrics/test_stats.c — core/stats.c: NumPy-exact statistics, checked against the
 * literal numbers of genai-perf-profile.md §7.1 (printed with repr). */
#include "core/buf.h"
#include "core/test.h"
#include "core/pytext.h"
#include "core/stats.h"
#include "metrics/metrics.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *repr(double v)
{
    static char b[8][64];
    static int k;
    k = (k + 1) % 8;
    gp_py_float_repr(v, b[k], sizeof b[k]);
    return b[k];
}

static void check_stats(const double *in, size_t n, double scale, const char *const exp[13])
{
    double x[64];
    for (size_t i = 0; i < n; i++)
        x[i] = in[i];
    struct gp_stats s;
    gp_stats_compute(x, n, &s);
    gp_stats_scale(&s, scale);
    CHECK_STR(repr(s.avg), exp[0]);
    for (int i = 0; i < GP_NPCT; i++)
        CHECK_STR(repr(s.p[i]), exp[1 + i]);
    CHECK_STR(repr(s.min), exp[10]);
    CHECK_STR(repr(s.max), exp[11]);
    CHECK_STR(repr(s.std), exp[12]);
}

/* request_latency of the spec example: 58, 70, 75, 87 ms (as ns) */
static void test_spec_request_latency(void)
{
    const double ns[] = {58e6, 70e6, 75e6, 87e6};
    const char *exp[13] = {"72.5", "58.36", "59.8", "61.599999999999994", "67.0", "72.5", "78.0",
                           "83.39999999999999", "85.2", "86.64", "58.0", "87.0", "10.404326023342406"};
    check_stats(ns, 4, 1 / 1e6, exp);
}

static void test_spec_ttft(void)
{
    /* min 40 max 49 avg 44.5 p25 42.25 p75 46.75 -> 40, 43, 46, 49 */
    const double ns[] = {40e6, 43e6, 46e6, 49e6};
    const char *exp[13] = {"44.5", "40.089999999999996", "40.449999999999996", "40.9", "42.25", "44.5", "46.75",
                           "48.099999999999994", "48.55", "48.91", "40.0", "49.0", "3.3541019662496843"};
    check_stats(ns, 4, 1 / 1e6, exp);
}

static void test_spec_ttst(void)
{
    const double ns[] = {10e6, 11e6, 12e6, 13e6};
    const char *exp[13] = {"11.5", "10.03", "10.15", "10.299999999999999", "10.75", "11.5", "12.25", "12.7",
                           "12.85", "12.969999999999999", "10.0", "13.0", "1.1180339887498947"};
    check_stats(ns, 4, 1 / 1e6, exp);
}

static void test_spec_osl(void)
{
    const double v[] = {2, 3, 4, 5};
    const char *exp[13] = {"3.5", "2.03", "2.15", "2.3", "2.75", "3.5", "4.25", "4.7", "4.85", "4.97",
                           "2.0", "5.0", "1.118033988749895"};
    check_stats(v, 4, 1, exp);
}

/* TPS/user = 1e9/ITL of ITLs 10,11,12,13 ms (in request order 13,12,11,10? any order
 * gives the same percentiles; mean/std here are order independent to the ulp) */
static void test_spec_tps(void)
{
    double v[4];
    const double itl[] = {10e6, 11e6, 12e6, 13e6};
    for (int i = 0; i < 4; i++)
        v[i] = 1 / (itl[i] / 1e9);
    struct gp_stats s;
    gp_stats_compute(v, 4, &s);
    CHECK_STR(repr(s.max), "100.0");
    CHECK_STR(repr(s.min), "76.92307692307692");
    CHECK_STR(repr(s.p[4]), "87.12121212121212");
    CHECK_STR(repr(s.avg), "87.79137529137529");
    CHECK_STR(repr(s.std), "8.613430145287785");
    CHECK_STR(repr(s.p[0]), "77.11538461538461");
    CHECK_STR(repr(s.p[8]), "99.72727272727272");
}

static void test_percentile_edges(void)
{
    double one[] = {5};
    struct gp_stats s;
    gp_stats_compute(one, 1, &s);
    CHECK(s.present && s.avg == 5 && s.p[0] == 5 && s.p[8] == 5 && s.std == 0);
    gp_stats_compute(one, 0, &s);
    CHECK(!s.present);
    /* a large array exercises the radix sort and pairwise blocks */
    size_t n = 100001;
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)((i * 7919) % n);
    gp_stats_compute(x, n, &s);
    CHECK(s.min == 0 && s.max == (double)(n - 1));
    CHECK_NEAR(s.p[4], 50000, 0);
    CHECK_NEAR(s.p[0], 1000, 0);
    CHECK_NEAR(s.avg, 50000, 1e-9);
    for (size_t i = 1; i < n; i++)
        if (x[i - 1] > x[i]) {
            CHECK(!"sorted");
            break;
        }
    free(x);
    double neg[] = {-3, 2, -1.5, 0};
    gp_stats_compute(neg, 4, &s);
    CHECK(s.min == -3 && s.max == 2);
}

static void test_round_half_even(void)
{
    CHECK(gp_round_half_even(3.5) == 4);
    CHECK(gp_round_half_even(2.5) == 2);
    CHECK(gp_round_half_even(1.6) == 2);
    CHECK(gp_round_half_even(-0.5) == 0);
}

static void test_repr(void)
{
    CHECK_STR(repr(4.0), "4.0");
    CHECK_STR(repr(1e-05), "1e-05");
    CHECK_STR(repr(0.0001), "0.0001");
    CHECK_STR(repr(1e16), "1e+16");
    CHECK_STR(repr(1234567890123456.0), "1234567890123456.0");
    CHECK_STR(repr(15.686274509803921), "15.686274509803921");
    CHECK_STR(repr(0.1 + 0.2), "0.30000000000000004");
    CHECK_STR(repr(-2.5e-7), "-2.5e-07");
    CHECK_STR(repr(1.5e300), "1.5e+300");
    CHECK_STR(repr(123.0), "123.0");
    struct gp_buf b = {0};
    gp_fmt_2f_commas(&b, 1915.4149);
    gp_buf_putc(&b, ' ');
    gp_fmt_2f_commas(&b, -1);
    gp_buf_putc(&b, ' ');
    gp_fmt_2f_commas(&b, 1234567.891);
    gp_buf_putc(&b, ' ');
    gp_fmt_2f_commas(&b, 999.999);
    CHECK_STR(b.data, "1,915.41 -1.00 1,234,567.89 1,000.00");
    gp_buf_reset(&b);
    { const char *t = "a\"\\\n\x01\xc3\xa9\xf0\x9f\x98\x80\xff/"; gp_json_str(&b, t, strlen(t), GP_JSON_PYTHON); }
    CHECK_STR(b.data, "\"a\\\"\\\\\\n\\u0001\\u00e9\\ud83d\\ude00\\ufffd/\"");
    gp_buf_free(&b);
}

/* The sort's paths (integral values sorted as 32-bit offsets in place,
 * the 64-bit radix otherwise) against qsort, bit for bit: the sorted array
 * and every percentile. Sizes above the small-array qsort cutoff. */
static void test_sort_paths_match_qsort(void)
{
    const size_t n = 50001;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    uint64_t r = 88172645463325252ull;
    for (int shape = 0; shape < 7; shape++) {
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            switch (shape) {
            case 0: x[i] = (double)(9000000 + r % 2000000); break;        /* ns gaps: 21 bits */
            case 1: x[i] = 550; break;                                     /* constant */
            case 2: x[i] = (double)((1ull << 52) + r % 4000000000u); break; /* big base, 32-bit spread */
            case 3: x[i] = (double)(r % (1ull << 40)); break;               /* spread > 32 bits */
            case 4: x[i] = (double)(r % 1000) + 0.5; break;                 /* not integral */
            case 5: x[i] = i == n / 2 ? -0.0 : (double)(r % 1000); break;  /* -0.0 among integers */
            case 6: x[i] = (double)(r % 1000) - 500; break;                 /* negatives */
            }
        }
        memcpy(y, x, n * sizeof *x);
        struct gp_stats s;
        gp_stats_compute(x, n, &s);
        qsort(y, n, sizeof *y, gp_cmp_double);
        if (shape == 5) {
            /* qsort may order -0.0 and 0.0 either way: equal values, and
             * the -0.0 kept (the 32-bit path refuses it) */
            size_t same = 0, neg0 = 0;
            for (size_t i = 0; i < n; i++) {
                same += x[i] == y[i];
                neg0 += x[i] == 0 && signbit(x[i]);
            }
            CHECK(same == n && neg0 == 1);
            continue;
        }
        CHECK(memcmp(x, y, n * sizeof *x) == 0);
        CHECK(memcmp(&s.min, &y[0], 8) == 0 && memcmp(&s.max, &y[n - 1], 8) == 0);
        for (int i = 0; i < GP_NPCT; i++) {
            double p = gp_percentile_sorted(y, n, (double)gp_pct_levels[i]);
            CHECK(memcmp(&s.p[i], &p, 8) == 0);
        }
    }
    free(x);
    free(y);
}

int main(void)
{
    GP_RUN(test_spec_request_latency);
    GP_RUN(test_spec_ttft);
    GP_RUN(test_spec_ttst);
    GP_RUN(test_spec_osl);
    GP_RUN(test_spec_tps);
    GP_RUN(test_percentile_edges);
    GP_RUN(test_round_half_even);
    GP_RUN(test_repr);
    GP_RUN(test_sort_paths_match_qsort);
    return gp_test_summary();
}
