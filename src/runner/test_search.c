/* Unit tests for runner/search.c: the search driven against model servers
 * in virtual time (a step-function SLO limit, saturation, caps). */
#include "runner/search.h"
#include "core/test.h"

/* A server that meets the SLOs up to `limit` and whose throughput grows
 * linearly up to `knee`, then stays flat while latency grows. */
struct model {
    double limit, knee;
};

static struct gp_search_cell measure(const struct model *m, double v)
{
    struct gp_search_cell c = {0};
    c.value = v;
    c.requests = 100;
    c.good = v <= m->limit ? 100 : 80;
    c.share = c.good / 100.0;
    double eff = v < m->knee ? v : m->knee;
    c.req_thr = 10 * eff;
    c.lat_avg = 100 * v / eff;
    return c;
}

static int drive(struct gp_search *s, const struct model *m, double *tried)
{
    int n = 0;
    double v;
    while ((v = gp_search_next(s)) > 0) {
        tried[n++] = v;
        struct gp_search_cell c = measure(m, v);
        gp_search_record(s, &c);
    }
    return n;
}

static void test_bracket_then_bisect(void)
{
    struct gp_search s;
    gp_search_init(&s, 0);
    struct model m = {6, 1e9};
    double t[64];
    int n = drive(&s, &m, t);
    /* 1, 2, 4, 8 (misses), then 6 (meets), 7 (misses) */
    CHECK_INT(n, 6);
    double want[] = {1, 2, 4, 8, 6, 7};
    for (int i = 0; i < n && i < 6; i++)
        CHECK_NEAR(t[i], want[i], 0);
    CHECK_NEAR(gp_search_limit(&s), 6, 0);
    CHECK_INT(s.stop, GP_SEARCH_CONVERGED);
    CHECK_STR(s.why, "converged: concurrency 6 meets the target, 7 does not");
    CHECK(s.cells[3].meets == 0 && s.cells[4].meets == 1);
}

static void test_limits_at_every_value(void)
{
    /* the search finds every limit exactly, within 2*log2 cells */
    for (int lim = 1; lim <= 100; lim++) {
        struct gp_search s;
        gp_search_init(&s, 0);
        s.max_cells = 64;
        struct model m = {lim, 1e9};
        double t[64];
        int n = drive(&s, &m, t);
        CHECK_NEAR(gp_search_limit(&s), lim, 0);
        CHECK(n <= 15);
        CHECK_INT(s.stop, GP_SEARCH_CONVERGED);
    }
}

static void test_start_above_limit_and_none(void)
{
    struct gp_search s;
    gp_search_init(&s, 0);
    s.start = 16;
    struct model m = {5, 1e9};
    double t[64];
    drive(&s, &m, t);
    CHECK_NEAR(t[0], 16, 0);
    CHECK_NEAR(t[1], 8, 0);
    CHECK_NEAR(gp_search_limit(&s), 5, 0);

    gp_search_init(&s, 0);
    struct model none = {0.5, 1e9};
    int n = drive(&s, &none, t);
    CHECK_INT(n, 1);
    CHECK_INT(s.stop, GP_SEARCH_NONE_MEETS);
    CHECK_NEAR(gp_search_limit(&s), 0, 0);
}

static void test_saturation(void)
{
    struct gp_search s;
    gp_search_init(&s, 0);
    struct model m = {1e9, 2}; /* flat throughput from 2 on */
    double t[64];
    int n = drive(&s, &m, t);
    CHECK_INT(n, 3); /* 1, 2, 4: 4 gains nothing over 2 */
    CHECK_INT(s.stop, GP_SEARCH_SATURATED);
    CHECK_NEAR(gp_search_limit(&s), 4, 0);
    CHECK(strstr(s.why, "saturated at concurrency 4") == s.why);
}

static void test_caps_and_max(void)
{
    struct gp_search s;
    gp_search_init(&s, 0);
    s.max_cells = 3;
    struct model m = {1e9, 1e9};
    double t[64];
    CHECK_INT(drive(&s, &m, t), 3);
    CHECK_INT(s.stop, GP_SEARCH_CELL_CAP);

    gp_search_init(&s, 0);
    s.max = 6;
    CHECK_INT(drive(&s, &m, t), 4); /* 1 2 4 6 */
    CHECK_NEAR(t[3], 6, 0);
    CHECK_INT(s.stop, GP_SEARCH_REACHED_MAX);

    gp_search_init(&s, 0);
    CHECK_NEAR(gp_search_next(&s), 1, 0);
    gp_search_halt(&s, GP_SEARCH_TIME_CAP, "time");
    CHECK_NEAR(gp_search_next(&s), 0, 0);
    CHECK_STR(gp_search_stop_name(s.stop), "time_cap");
}

static void test_rate(void)
{
    struct gp_search s;
    gp_search_init(&s, 1);
    s.start = 2;
    s.max_cells = 64;
    struct model m = {13.3, 1e9};
    double t[64];
    int n = drive(&s, &m, t);
    double lim = gp_search_limit(&s);
    CHECK(lim <= 13.3 && lim >= 13.3 * 0.9 - 0.01);
    CHECK_INT(s.stop, GP_SEARCH_CONVERGED);
    CHECK(n < 12);
    char b[48];
    gp_search_fmt(&s, 12.5, b, sizeof b);
    CHECK_STR(b, "12.5");
}

int main(void)
{
    GP_RUN(test_bracket_then_bisect);
    GP_RUN(test_limits_at_every_value);
    GP_RUN(test_start_above_limit_and_none);
    GP_RUN(test_saturation);
    GP_RUN(test_caps_and_max);
    GP_RUN(test_rate);
    return gp_test_summary();
}
