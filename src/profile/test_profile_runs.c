/* profile/test_profile_runs.c — --num-runs (profile_runs.c): the statistics
 * over runs (core/stats.h gp_repeat_stats) against values worked by hand, the
 * aggregate of three runs' <stem>_genai_perf.json objects (which statistics,
 * n where a run lacks one, the CV warning only for key statistics past the
 * threshold), the runs left out of it (issue 38 item 11: a run that completed
 * nothing, was interrupted, killed or stopped early) and the two flags'
 * parsing. */
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

/* A run's artifacts as the aggregate reads them: request_count and
 * request_throughput in <stem>_genai_perf.json, the request counts in
 * <stem>_genperf.json. */
static void outcome(struct gp_profile_run_outcome *o, int rc, double count, double rps, int failed, const char *dir)
{
    o->rc = rc;
    o->genai = json_pack("{s:{s:s,s:f},s:{s:s,s:f}}", "request_count", "unit", "count", "avg", count,
                         "request_throughput", "unit", "requests/sec", "avg", rps);
    o->genperf = json_pack("{s:{s:i,s:i,s:i}}", "requests", "measured", (int)count + failed, "ok", (int)count,
                           "failed", failed);
    o->dir = dir;
}

static const char *reason(json_t *agg, size_t i)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(agg, "failed_runs"), i), "reason"));
}

/* The server died after run 1 (issue 38 item 11): run 2 completed nothing
 * and exited 1, so run 3 was never made. The mean is run 1's alone, not
 * (40 + 0) / 2 req/s; run 2 is named with why. */
static void test_aggregate_leaves_out_failed_runs(void)
{
    struct gp_profile_run_outcome o[4];
    outcome(&o[0], 0, 40, 40.0, 0, "run_1/x");
    outcome(&o[1], 1, 0, 0.0, 8, "run_2/x");
    json_t *a = gp_profile_aggregate_runs(o, 2, 3, 0.1);
    CHECK(a != NULL);
    CHECK_INT(json_integer_value(json_object_get(a, "runs_asked")), 3);
    CHECK_INT(json_integer_value(json_object_get(a, "runs_made")), 2);
    CHECK_INT(json_integer_value(json_object_get(a, "runs")), 1);
    json_t *f = json_object_get(a, "failed_runs");
    CHECK_INT(json_array_size(f), 1);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(f, 0), "run")), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(f, 0), "directory")), "run_2/x");
    CHECK_STR(reason(a, 0), "no request completed (8 of 8 measured failed); it exited 1");
    json_t *rt = json_object_get(json_object_get(json_object_get(a, "metrics"), "request_throughput"), "avg");
    CHECK_INT(json_integer_value(json_object_get(rt, "n")), 1);
    CHECK_NEAR(json_real_value(json_object_get(rt, "mean")), 40.0, 0);
    CHECK_INT(json_array_size(json_object_get(a, "run_directories")), 1);
    CHECK_STR(json_string_value(json_array_get(json_object_get(a, "run_directories"), 0)), "run_1/x");
    /* the console names the run left out and the runs made */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gp_profile_aggregate_print(a, out, out);
    fclose(out);
    CHECK(strstr(text, "warning: run 2 left out of the aggregate: no request completed (8 of 8") != NULL);
    CHECK(strstr(text, "warning: 2 of the 3 runs asked were made; 1 run is in the aggregate") != NULL);
    CHECK(strstr(text, "genperf: over 1 run: mean") != NULL);
    free(text);
    json_decref(a);

    /* Ctrl-C during run 2 (exit 130, 12 requests measured), run 3 never
     * made: the part-run is left out; so is a run whose genperf.json says
     * interrupted, one killed by a signal, one that left no artifacts and
     * one stopped by the memory budget; 3 (--max-failure-rate) counts */
    json_decref(o[1].genai);
    json_decref(o[1].genperf);
    outcome(&o[1], 130, 12, 30.0, 0, "run_2/x");
    a = gp_profile_aggregate_runs(o, 2, 3, 0.1);
    CHECK_INT(json_integer_value(json_object_get(a, "runs")), 1);
    CHECK(strncmp(reason(a, 0), "interrupted", 11) == 0);
    json_decref(a);
    json_object_set_new(o[1].genperf, "interrupted", json_true());
    o[1].rc = 0;
    outcome(&o[2], 137, 0, 0, 0, NULL);
    json_decref(o[2].genai);
    json_decref(o[2].genperf);
    o[2].genai = o[2].genperf = NULL;
    outcome(&o[3], 3, 20, 20.0, 4, "run_4/x");
    a = gp_profile_aggregate_runs(o, 4, 4, 0.1);
    CHECK_INT(json_integer_value(json_object_get(a, "runs")), 2);
    CHECK(strncmp(reason(a, 0), "interrupted", 11) == 0);
    CHECK_STR(reason(a, 1), "killed by signal 9");
    CHECK(json_is_null(json_object_get(json_array_get(json_object_get(a, "failed_runs"), 1), "directory")));
    rt = json_object_get(json_object_get(json_object_get(a, "metrics"), "request_throughput"), "avg");
    CHECK_NEAR(json_real_value(json_object_get(rt, "mean")), 30.0, 1e-12); /* (40 + 20) / 2 */
    json_decref(a);
    o[2].rc = 1;
    json_object_set_new(o[3].genperf, "incomplete", json_true());
    json_object_set_new(o[3].genperf, "incomplete_reason", json_string("memory_budget"));
    a = gp_profile_aggregate_runs(o, 4, 4, 0.1);
    CHECK_INT(json_integer_value(json_object_get(a, "runs")), 1);
    CHECK_STR(reason(a, 1), "left no *_genai_perf.json; it exited 1");
    CHECK_STR(reason(a, 2), "stopped early (memory_budget)");
    json_decref(a);

    /* no run counts: the aggregate still says what happened, with no metric */
    a = gp_profile_aggregate_runs(o + 1, 3, 3, 0.1);
    CHECK_INT(json_integer_value(json_object_get(a, "runs")), 0);
    CHECK_INT(json_array_size(json_object_get(a, "failed_runs")), 3);
    CHECK_INT(json_object_size(json_object_get(a, "metrics")), 0);
    text = NULL;
    out = open_memstream(&text, &len);
    gp_profile_aggregate_print(a, out, out);
    fclose(out);
    CHECK(strstr(text, "no run to aggregate: every run made was left out") != NULL);
    free(text);
    json_decref(a);
    for (int i = 0; i < 4; i++) {
        json_decref(o[i].genai);
        json_decref(o[i].genperf);
    }
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
    GP_RUN(test_aggregate_leaves_out_failed_runs);
    GP_RUN(test_flags);
    return gp_test_summary();
}
