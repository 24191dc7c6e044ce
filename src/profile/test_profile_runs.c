/* profile/test_profile_runs.c — --num-runs (profile_runs.c): the statistics
 * over runs (core/stats.h gp_repeat_stats) against values worked by hand, the
 * aggregate of three runs' <stem>_genai_perf.json objects (which statistics,
 * n where a run lacks one, the CV warning only for key statistics past the
 * threshold), and the two flags' parsing. */
#include "profile/profile_config.h"
#include "profile/profile_runs.h"
#include "core/error.h"
#include "core/stats.h"
#include "core/test.h"
#include "profile/test_support.h"

#include <jansson.h>

/* {10, 12, 14}: mean 12, sample stddev sqrt((4 + 0 + 4) / 2) = 2,
 * t(0.975, 2) = 4.302653, half-width 4.302653 * 2 / sqrt(3) = 4.968275,
 * CV 2 / 12 = 0.1666667. */
static void test_repeat_stats_by_hand(void)
{
    double x[] = {10, 12, 14};
    struct gp_repeat_stats rs;
    gp_repeat_stats(x, 3, &rs);
    CHECK_INT(rs.n, 3);
    CHECK_NEAR(rs.mean, 12.0, 1e-12);
    CHECK_NEAR(rs.stddev, 2.0, 1e-12);
    CHECK_INT(rs.has_ci, 1);
    CHECK_NEAR(rs.ci_lo, 12 - 4.968275, 1e-5);
    CHECK_NEAR(rs.ci_hi, 12 + 4.968275, 1e-5);
    CHECK_INT(rs.has_cv, 1);
    CHECK_NEAR(rs.cv, 1.0 / 6, 1e-12);
    /* {1, 3}: mean 2, stddev sqrt(2), t(0.975, 1) = 12.7062: half 12.7062 */
    double y[] = {1, 3};
    gp_repeat_stats(y, 2, &rs);
    CHECK_NEAR(rs.ci_hi - rs.mean, 12.7062, 1e-4);
    /* one run: no interval, stddev 0, CV 0 */
    gp_repeat_stats(x, 1, &rs);
    CHECK_INT(rs.has_ci, 0);
    CHECK_NEAR(rs.stddev, 0.0, 0);
    CHECK_INT(rs.has_cv, 1);
    CHECK_NEAR(rs.cv, 0.0, 0);
    /* a mean of 0 has no CV */
    double z[] = {-1, 1};
    gp_repeat_stats(z, 2, &rs);
    CHECK_INT(rs.has_cv, 0);
    CHECK_NEAR(rs.stddev, sqrt(2.0), 1e-12);
}

static json_t *run(double ttft_avg, double ttft_p99, int with_p99, double osl_avg)
{
    json_t *r = json_pack("{s:{s:s,s:f},s:{s:s,s:f},s:{s:s,s:f},s:{s:s}}", "time_to_first_token", "unit", "ms", "avg",
                          ttft_avg, "request_throughput", "unit", "requests/sec", "avg", 5.0, "output_sequence_length",
                          "unit", "tokens", "avg", osl_avg, "input_config", "model_names", "m");
    if (with_p99)
        json_object_set_new(json_object_get(r, "time_to_first_token"), "p99", json_real(ttft_p99));
    return r;
}

static void test_aggregate_of_three_runs(void)
{
    json_t *runs[3] = {run(10, 20, 1, 10), run(12, 0, 0, 20), run(14, 30, 1, 30)};
    json_t *a = gp_profile_aggregate(runs, 3, 0.1);
    CHECK(a != NULL);
    CHECK_INT(json_integer_value(json_object_get(a, "runs")), 3);
    json_t *m = json_object_get(a, "metrics");
    CHECK(json_object_get(m, "input_config") == NULL); /* not a metric: no unit */
    json_t *t = json_object_get(json_object_get(m, "time_to_first_token"), "avg");
    CHECK_STR(json_string_value(json_object_get(json_object_get(m, "time_to_first_token"), "unit")), "ms");
    CHECK_INT(json_integer_value(json_object_get(t, "n")), 3);
    CHECK_NEAR(json_real_value(json_object_get(t, "mean")), 12.0, 1e-12);
    CHECK_NEAR(json_real_value(json_object_get(t, "stddev")), 2.0, 1e-12);
    CHECK_NEAR(json_real_value(json_object_get(t, "ci95_low")), 7.031725, 1e-5);
    CHECK_NEAR(json_real_value(json_object_get(t, "ci95_high")), 16.968275, 1e-5);
    CHECK_NEAR(json_real_value(json_object_get(t, "cv")), 1.0 / 6, 1e-12);
    CHECK_INT(json_array_size(json_object_get(t, "values")), 3);
    /* p99 is in two runs of three: n 2, mean 25 */
    json_t *p = json_object_get(json_object_get(m, "time_to_first_token"), "p99");
    CHECK_INT(json_integer_value(json_object_get(p, "n")), 2);
    CHECK_NEAR(json_real_value(json_object_get(p, "mean")), 25.0, 1e-12);
    /* the same value every run: stddev 0, the interval is the point */
    json_t *rt = json_object_get(json_object_get(m, "request_throughput"), "avg");
    CHECK_NEAR(json_real_value(json_object_get(rt, "stddev")), 0.0, 0);
    CHECK_NEAR(json_real_value(json_object_get(rt, "ci95_low")), 5.0, 1e-12);
    CHECK_NEAR(json_real_value(json_object_get(rt, "cv")), 0.0, 0);
    /* warnings: TTFT avg (CV 0.167) and p99 (CV 0.283), key statistics;
     * output_sequence_length avg (CV 0.5) is not a key statistic */
    json_t *w = json_object_get(a, "warnings");
    CHECK_INT(json_array_size(w), 2);
    CHECK(strstr(json_string_value(json_array_get(w, 0)), "time_to_first_token avg: CV 0.167 over 3 runs") != NULL);
    CHECK(strstr(json_string_value(json_array_get(w, 1)), "time_to_first_token p99: CV 0.283 over 2 runs") != NULL);
    json_decref(a);
    /* a looser threshold: no warning */
    a = gp_profile_aggregate(runs, 3, 0.3);
    CHECK_INT(json_array_size(json_object_get(a, "warnings")), 0);
    json_decref(a);
    /* one run: no interval (null) */
    a = gp_profile_aggregate(runs, 1, 0.1);
    t = json_object_get(json_object_get(json_object_get(a, "metrics"), "time_to_first_token"), "avg");
    CHECK(json_is_null(json_object_get(t, "ci95_low")));
    CHECK_NEAR(json_real_value(json_object_get(t, "mean")), 10.0, 0);
    json_decref(a);
    for (int i = 0; i < 3; i++)
        json_decref(runs[i]);
}

static void test_flags(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "m", NULL), 0);
    CHECK_INT(c.num_runs, 1);
    CHECK_NEAR(c.cv_warn, 0.1, 0);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--num-runs", "3", "--cv-warn", "0.05", NULL), 0);
    CHECK_INT(c.num_runs, 3);
    CHECK_NEAR(c.cv_warn, 0.05, 0);
    gp_profile_config_free(&c);
    /* the last value given wins: what the runs' children rely on */
    CHECK_INT(parse(&c, &e, "-m", "m", "--num-runs", "3", "--artifact-dir", "a", "--num-runs", "1", "--artifact-dir",
                    "b/run_1", NULL), 0);
    CHECK_INT(c.num_runs, 1);
    CHECK_STR(c.artifact_dir, "b/run_1");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--num-runs", "0", NULL) < 0);
    CHECK(strstr(e.msg, "--num-runs 0: must be >= 1") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--cv-warn", "0", NULL) < 0);
    CHECK(strstr(e.msg, "--cv-warn 0: must be a positive") != NULL);
    gp_profile_config_free(&c);
}

int main(void)
{
    GP_RUN(test_repeat_stats_by_hand);
    GP_RUN(test_aggregate_of_three_runs);
    GP_RUN(test_flags);
    return gp_test_summary();
}
