/* Unit tests: the seeded RNG of core/rng.h (published reference values, the
 * fixed stream sequences the dataset's on-disk contract relies on, and the
 * distributions). */
#include "core/rng.h"
#include "core/test.h"

#include <stdint.h>

static void test_splitmix_reference(void)
{
    /* Published splitmix64 outputs for state 0 (Vigna's reference code). */
    uint64_t st = 0;
    CHECK(gp_splitmix64(&st) == 0xe220a8397b1dcdafull);
    CHECK(gp_splitmix64(&st) == 0x6e789e6aa1b965f4ull);
}

static void test_stream_golden(void)
{
    /* Locks the on-disk contract: these change only if the generator does. */
    struct gp_rng r;
    gp_rng_seed_stream(&r, 0, GP_RNG_TEXT, 0);
    uint64_t a = gp_rng_next(&r), b = gp_rng_next(&r);
    struct gp_rng r2;
    gp_rng_seed_stream(&r2, 0, GP_RNG_TEXT, 0);
    CHECK(gp_rng_next(&r2) == a);
    CHECK(gp_rng_next(&r2) == b);
    gp_rng_seed_stream(&r2, 0, GP_RNG_TEXT, 1);
    CHECK(gp_rng_next(&r2) != a);
    gp_rng_seed_stream(&r2, 1, GP_RNG_TEXT, 0);
    CHECK(gp_rng_next(&r2) != a);
    printf("golden text stream seed 0 entry 0: %016llx %016llx\n", (unsigned long long)a, (unsigned long long)b);
    CHECK(a == 0xc38125bf3b3642aeull);
    CHECK(b == 0x0344c076883a5e94ull);
}

static void test_below_and_normal(void)
{
    struct gp_rng r;
    gp_rng_seed(&r, 42);
    int hist[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint64_t v = gp_rng_below(&r, 7);
        CHECK(v < 7);
        hist[v]++;
    }
    for (int i = 0; i < 7; i++)
        CHECK(hist[i] > 9500 && hist[i] < 10500);
    double sum = 0, sq = 0;
    int n = 100000;
    for (int i = 0; i < n; i++) {
        double x = gp_rng_normal(&r);
        sum += x;
        sq += x * x;
    }
    CHECK_NEAR(sum / n, 0.0, 0.02);
    CHECK_NEAR(sq / n, 1.0, 0.02);
}

static void test_length(void)
{
    struct gp_rng r;
    gp_rng_seed(&r, 1);
    CHECK_INT(gp_rng_length(&r, 550, 0, 1), 550);
    long lo = 1000, hi = 0;
    double sum = 0;
    for (int i = 0; i < 20000; i++) {
        long v = gp_rng_length(&r, 5, 20, 1);
        CHECK(v >= 1);
        if (v < lo)
            lo = v;
        if (v > hi)
            hi = v;
        sum += (double)v;
    }
    CHECK_INT(lo, 1); /* clamped */
    CHECK(hi > 40);
    long v = 0;
    for (int i = 0; i < 20000; i++)
        v += gp_rng_length(&r, 1000, 100, 1);
    CHECK_NEAR(v / 20000.0, 1000.0, 3.0);
}

static void test_splitmix_double(void)
{
    /* The serve module's per-request draws: the top 53 bits of the next
     * splitmix64 output, so the value is fixed by the reference sequence. */
    uint64_t a = 0, b = 0;
    double d = gp_splitmix64_double(&a);
    CHECK(d == (double)(0xe220a8397b1dcdafull >> 11) * 0x1.0p-53);
    CHECK(gp_splitmix64(&b) == 0xe220a8397b1dcdafull);
    CHECK(a == b); /* one draw advances the state exactly as gp_splitmix64 does */
    uint64_t st = 7;
    for (int i = 0; i < 10000; i++) {
        double u = gp_splitmix64_double(&st);
        CHECK(u >= 0.0 && u < 1.0);
    }
}

int main(void)
{
    GP_RUN(test_splitmix_reference);
    GP_RUN(test_splitmix_double);
    GP_RUN(test_stream_golden);
    GP_RUN(test_below_and_normal);
    GP_RUN(test_length);
    return gp_test_summary();
}
