/* client/test_backoff.c — the reconnect back-off: doubling from the base,
 * the cap, the jitter staying in [d/2, d] and actually varying, the reset,
 * and which curl results count as connection-level failures. */
#include "client/backoff.h"
#include "core/test.h"

#include <curl/curl.h>

static void test_doubling_within_jitter(void)
{
    struct gp_rng rng;
    gp_rng_seed(&rng, 1);
    struct gp_backoff b = {0};
    uint64_t d = GP_BACKOFF_BASE_NS;
    for (int i = 0; i < 7; i++, d *= 2) { /* 10, 20, ... 640 ms */
        uint64_t w = gp_backoff_next(&b, &rng, 0, 0);
        CHECK(w >= d / 2 && w <= d);
    }
    /* 1280 ms would pass the cap: every later delay is within [500 ms, 1 s] */
    for (int i = 0; i < 50; i++) {
        uint64_t w = gp_backoff_next(&b, &rng, 0, 0);
        CHECK(w >= GP_BACKOFF_MAX_NS / 2 && w <= GP_BACKOFF_MAX_NS);
    }
    CHECK(b.level <= 8); /* the level stops growing at the cap */
    gp_backoff_reset(&b);
    uint64_t w = gp_backoff_next(&b, &rng, 0, 0);
    CHECK(w >= GP_BACKOFF_BASE_NS / 2 && w <= GP_BACKOFF_BASE_NS);
}

static void test_jitter_varies_and_is_seeded(void)
{
    struct gp_rng r1, r2;
    gp_rng_seed(&r1, 7);
    gp_rng_seed(&r2, 7);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < 200; i++) {
        struct gp_backoff a = {0}, c = {0};
        uint64_t x = gp_backoff_next(&a, &r1, 1000, 0), y = gp_backoff_next(&c, &r2, 1000, 0);
        CHECK_INT(x, y);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    CHECK(lo >= 500 && hi <= 1000);
    CHECK(hi - lo > 300); /* 200 draws spread over the [500, 1000] range */
}

static void test_custom_bounds(void)
{
    struct gp_rng rng;
    gp_rng_seed(&rng, 3);
    struct gp_backoff b = {0};
    /* base above max is clamped to max */
    uint64_t w = gp_backoff_next(&b, &rng, 5000, 2000);
    CHECK(w >= 1000 && w <= 2000);
    /* huge levels never overflow */
    b.level = 200;
    w = gp_backoff_next(&b, &rng, 1, UINT64_MAX / 2);
    CHECK(w >= UINT64_MAX / 4 && w <= UINT64_MAX / 2);
}

static void test_classification(void)
{
    CHECK(gp_backoff_is_connection_failure(CURLE_COULDNT_CONNECT));
    CHECK(gp_backoff_is_connection_failure(CURLE_RECV_ERROR));
    CHECK(gp_backoff_is_connection_failure(CURLE_GOT_NOTHING));
    CHECK(gp_backoff_is_connection_failure(CURLE_PARTIAL_FILE));
    CHECK(!gp_backoff_is_connection_failure(CURLE_OK));
    CHECK(!gp_backoff_is_connection_failure(CURLE_OPERATION_TIMEDOUT));
    CHECK(!gp_backoff_is_connection_failure(CURLE_WRITE_ERROR)); /* our byte cap / out of memory */
}

int main(void)
{
    GP_RUN(test_doubling_within_jitter);
    GP_RUN(test_jitter_varies_and_is_seeded);
    GP_RUN(test_custom_bounds);
    GP_RUN(test_classification);
    return gp_test_summary();
}
