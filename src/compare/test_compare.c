/* Unit tests: compare/compare.c — the --fail-on parser, the verdicts over
 * sides built in memory (repeats through Welch, a client-limited side, a
 * negligible change, a metric one side lacks) and the gate's states. */
#include "compare/compare.h"
#include "core/error.h"
#include "core/test.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_gate_parse(void)
{
    struct gp_cmp_gate g[GP_CMP_MAX_GATES];
    size_t n = 0;
    struct gp_error err = {0};
    char ok[] = "ttft_p99:+5%, output_token_throughput:-3%,failure_rate:+0.5%";
    CHECK_INT(gp_cmp_gate_parse(ok, g, &n, &err), 0);
    CHECK_INT(n, 3);
    CHECK_INT(g[0].metric, GP_CMP_TTFT_P99);
    CHECK_NEAR(g[0].threshold, 0.05, 1e-12);
    CHECK_INT(g[1].metric, GP_CMP_OUT_TPUT);
    CHECK_NEAR(g[1].threshold, -0.03, 1e-12);
    CHECK_STR(g[1].text, "output_token_throughput:-3%");
    CHECK_NEAR(g[2].threshold, 0.005, 1e-12);
    const char *bad[] = {"ttft_p99:5%", "ttft_p99", "ttft:+5%", "ttft_p99:+5", "ttft_p99:+x%", "", " , "};
    const char *want[] = {"signed percentage", "no threshold", "unknown metric 'ttft'", "signed percentage",
                          "signed percentage", "no terms", "no terms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", bad[i]);
        gp_err_clear(&err);
        CHECK_INT(gp_cmp_gate_parse(buf, g, &n, &err), -GP_EINVAL);
        CHECK(strstr(err.msg, want[i]) != NULL);
    }
}

/* A side of n runs whose metric m takes the values v. */
static struct gp_cmp_side *side(int m, const double *v, size_t n)
{
    struct gp_cmp_side *s = calloc(1, sizeof *s);
    s->runs = calloc(n, sizeof *s->runs);
    s->n_runs = n;
    snprintf(s->path, sizeof s->path, "side");
    for (size_t i = 0; i < n; i++) {
        s->runs[i].has[m] = 1;
        s->runs[i].value[m] = v[i];
    }
    return s;
}

static const struct gp_cmp_row *row_of(const struct gp_cmp_result *r, int m)
{
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].metric == m)
            return &r->rows[i];
    return NULL;
}

static void test_repeats(void)
{
    /* TTFT p99 runs 10,11,12 against 13,14,15: +3 ms on 11 = +27.3%, Welch
     * df 4, half width 2.776445 * sqrt(2/3) = 2.266958 ms = 20.61% of 11 */
    const double a[] = {10, 11, 12}, b[] = {13, 14, 15};
    struct gp_cmp_side *sa = side(GP_CMP_TTFT_P99, a, 3), *sb = side(GP_CMP_TTFT_P99, b, 3);
    struct gp_cmp_opts o = {.iters = 100, .seed = 0, .min_change = 0.01};
    struct gp_cmp_result r;
    struct gp_error err = {0};
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    CHECK_INT(r.method, GP_CMP_RUNS);
    CHECK_INT(r.n_rows, 1);   /* metrics neither side has are not rows */
    const struct gp_cmp_row *row = row_of(&r, GP_CMP_TTFT_P99);
    CHECK(row != NULL);
    if (row) {
        CHECK_NEAR(row->change.est, 3.0 / 11, 1e-12);
        CHECK_NEAR(row->change.lo, (3 - 2.266958) / 11, 1e-6);
        CHECK_NEAR(row->change.hi, (3 + 2.266958) / 11, 1e-6);
        CHECK_INT(row->verdict, GP_CMP_WORSE);
        CHECK(row->real);
        CHECK_STR(row->how, "runs");
    }
    struct gp_cmp_gate g = {GP_CMP_TTFT_P99, 0.05, "ttft_p99:+5%"};
    CHECK_INT(gp_cmp_gate_eval(&g, &r), GP_GATE_FAIL);
    g.threshold = 0.30;   /* +27.3% is not past +30% */
    CHECK_INT(gp_cmp_gate_eval(&g, &r), GP_GATE_PASS);
    g.threshold = -0.05;  /* a fall was asked; it rose */
    CHECK_INT(gp_cmp_gate_eval(&g, &r), GP_GATE_PASS);
    g.metric = GP_CMP_OUT_TPUT;
    CHECK_INT(gp_cmp_gate_eval(&g, &r), GP_GATE_MISSING);
    /* the same change, NEW client-limited: no verdict and the gate does not fail */
    sb->client_limited = 1;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    CHECK_INT(r.limited, 2);
    row = row_of(&r, GP_CMP_TTFT_P99);
    CHECK(row && row->excludes_zero && !row->real && row->verdict == GP_CMP_NO_CHANGE);
    g.metric = GP_CMP_TTFT_P99;
    g.threshold = 0.05;
    CHECK_INT(gp_cmp_gate_eval(&g, &r), GP_GATE_LIMITED);
    gp_cmp_side_free(sa);
    gp_cmp_side_free(sb);
}

static void test_overlap_and_negligible(void)
{
    /* 10,12 against 11,13: +1 on 11, interval holds 0: no detectable change */
    const double a[] = {10, 12}, b[] = {11, 13};
    struct gp_cmp_side *sa = side(GP_CMP_OUT_TPUT, a, 2), *sb = side(GP_CMP_OUT_TPUT, b, 2);
    struct gp_cmp_opts o = {.iters = 100, .seed = 0, .min_change = 0.01};
    struct gp_cmp_result r;
    struct gp_error err = {0};
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    const struct gp_cmp_row *row = row_of(&r, GP_CMP_OUT_TPUT);
    CHECK(row && !row->excludes_zero && row->verdict == GP_CMP_NO_CHANGE);
    gp_cmp_side_free(sa);
    gp_cmp_side_free(sb);
    /* 1000,1000.2 against 1005,1005.2: +0.5% with a tight interval: the
     * interval excludes 0, but under --min-change 1% it is negligible; with
     * --min-change 0.1% it is real, and better (throughput rose) */
    const double c[] = {1000, 1000.2}, d[] = {1005, 1005.2};
    sa = side(GP_CMP_OUT_TPUT, c, 2);
    sb = side(GP_CMP_OUT_TPUT, d, 2);
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    row = row_of(&r, GP_CMP_OUT_TPUT);
    CHECK(row && row->excludes_zero && row->negligible && !row->real && row->verdict == GP_CMP_NO_CHANGE);
    o.min_change = -1;   /* the default with repeats is 1% */
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    CHECK_NEAR(r.min_change, 0.01, 0);
    CHECK(row_of(&r, GP_CMP_OUT_TPUT)->negligible);
    o.min_change = 0.001;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    row = row_of(&r, GP_CMP_OUT_TPUT);
    CHECK(row && row->real && row->verdict == GP_CMP_BETTER);
    /* a metric only one side has is a row with verdict n/a */
    sb->runs[1].has[GP_CMP_OUT_TPUT] = 0;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    row = row_of(&r, GP_CMP_OUT_TPUT);
    CHECK(row && row->verdict == GP_CMP_NA && row->has_base && !row->has_new);
    gp_cmp_side_free(sa);
    gp_cmp_side_free(sb);
}

static void test_bootstrap_one_run(void)
{
    /* one run each: latencies through the per-request bootstrap. 200 TTFTs of
     * 20 +- 1 ms against the same shifted to 30 ms: worse, real, and the shown
     * change is the files' (20 -> 30 = +50%) */
    const double v20 = 20, v30 = 30;
    struct gp_cmp_side *sa = side(GP_CMP_TTFT_P50, &v20, 1), *sb = side(GP_CMP_TTFT_P50, &v30, 1);
    sa->ttft.v = malloc(200 * sizeof(double));
    sb->ttft.v = malloc(200 * sizeof(double));
    for (int i = 0; i < 200; i++) {
        sa->ttft.v[i] = 19 + (i % 21) / 10.0;
        sb->ttft.v[i] = 29 + (i % 21) / 10.0;
    }
    sa->ttft.n = sb->ttft.n = 200;
    struct gp_cmp_opts o = {.iters = 500, .seed = 0, .min_change = 0.01};
    struct gp_cmp_result r;
    struct gp_error err = {0};
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    CHECK_INT(r.method, GP_CMP_BOOTSTRAP);
    const struct gp_cmp_row *row = row_of(&r, GP_CMP_TTFT_P50);
    CHECK(row && row->verdict == GP_CMP_WORSE && row->real);
    if (row) {
        CHECK_NEAR(row->change.est, 0.5, 1e-12);
        CHECK(row->change.lo > 0.45 && row->change.hi < 0.55);
        CHECK_STR(row->how, "requests");
    }
    /* 20 -> 20.6 ms (+3%) with the same shift in every request: the interval
     * excludes 0, but one run each defaults --min-change to 5% */
    for (int i = 0; i < 200; i++)
        sb->ttft.v[i] = 19.6 + (i % 21) / 10.0;
    sb->runs[0].value[GP_CMP_TTFT_P50] = 20.6;
    o.min_change = -1;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    CHECK_NEAR(r.min_change, 0.05, 0);
    row = row_of(&r, GP_CMP_TTFT_P50);
    CHECK(row && row->excludes_zero && row->negligible && row->verdict == GP_CMP_NO_CHANGE);
    o.min_change = 0.01;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    row = row_of(&r, GP_CMP_TTFT_P50);
    CHECK(row && row->real && row->verdict == GP_CMP_WORSE);
    /* no per-request samples on a side: no interval, never real */
    free(sb->ttft.v);
    sb->ttft.v = NULL;
    sb->ttft.n = 0;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    row = row_of(&r, GP_CMP_TTFT_P50);
    CHECK(row && row->verdict == GP_CMP_NO_CHANGE && !row->real && isinf(row->change.lo));
    gp_cmp_side_free(sa);
    gp_cmp_side_free(sb);
}

/* Issue 38 item 10 (b): a relative change of a non-negative quantity cannot
 * fall past -100%, nor a failure rate below 0 or above 1. BASE runs at 10 and
 * 1000 ms, NEW at 1 and 1: Welch's interval is -99.8% +- 1245% (df 1). */
static void test_interval_clamped(void)
{
    const double a[] = {10, 1000}, b[] = {1, 1};
    struct gp_cmp_side *sa = side(GP_CMP_TTFT_P50, a, 2), *sb = side(GP_CMP_TTFT_P50, b, 2);
    struct gp_cmp_opts o = {.iters = 100, .seed = 0, .min_change = 0.01};
    struct gp_cmp_result r;
    struct gp_error err = {0};
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    const struct gp_cmp_row *row = row_of(&r, GP_CMP_TTFT_P50);
    CHECK(row && row->change.lo == -1 && row->change.hi > 10 && row->verdict == GP_CMP_NO_CHANGE);
    gp_cmp_side_free(sa);
    gp_cmp_side_free(sb);
    /* failure rates 0 and 50% against 0 and 0: -25 points, interval cut at -25 */
    const double fa[] = {0, 0.5}, fb[] = {0, 0.01};
    sa = side(GP_CMP_FAIL_RATE, fa, 2);
    sb = side(GP_CMP_FAIL_RATE, fb, 2);
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    row = row_of(&r, GP_CMP_FAIL_RATE);
    CHECK(row && row->change.lo >= -0.25 && row->change.hi <= 0.75);
    gp_cmp_side_free(sa);
    gp_cmp_side_free(sb);
}

/* Issue 38 item 10 (c): a run of one request has no spread; its rows and gate
 * terms are not judged (a bootstrap of 1 request is a point interval that
 * would call +100% real). */
static void test_too_few_requests(void)
{
    const double v20 = 20, v40 = 40;
    struct gp_cmp_side *sa = side(GP_CMP_TTFT_P50, &v20, 1), *sb = side(GP_CMP_TTFT_P50, &v40, 1);
    sa->ttft.v = malloc(sizeof(double));
    sb->ttft.v = malloc(sizeof(double));
    sa->ttft.v[0] = 20;
    sb->ttft.v[0] = 40;
    sa->ttft.n = sb->ttft.n = 1;
    struct gp_cmp_opts o = {.iters = 100, .seed = 0, .min_change = 0.01};
    struct gp_cmp_result r;
    struct gp_error err = {0};
    struct gp_cmp_gate g = {GP_CMP_TTFT_P50, 0.05, "ttft_p50:+5%"};
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    const struct gp_cmp_row *row = row_of(&r, GP_CMP_TTFT_P50);
    CHECK(row && row->too_few && !row->real && row->verdict == GP_CMP_NO_CHANGE);
    CHECK_INT(gp_cmp_gate_eval(&g, &r), GP_GATE_TOO_FEW);
    /* the run-level count says so too, whatever the samples: requests.measured 1 */
    sa->ttft.v = realloc(sa->ttft.v, 2 * sizeof(double));
    sb->ttft.v = realloc(sb->ttft.v, 2 * sizeof(double));
    sa->ttft.v[1] = 21;
    sb->ttft.v[1] = 41;
    sa->ttft.n = sb->ttft.n = 2;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    CHECK(!row_of(&r, GP_CMP_TTFT_P50)->too_few);
    sb->runs[0].n_req_known = 1;
    sb->runs[0].n_req = 1;
    CHECK_INT(gp_cmp_compute(sa, sb, &o, &r, &err), 0);
    CHECK(row_of(&r, GP_CMP_TTFT_P50)->too_few);
    CHECK_INT(gp_cmp_gate_eval(&g, &r), GP_GATE_TOO_FEW);
    gp_cmp_side_free(sa);
    gp_cmp_side_free(sb);
}

/* Issue 38 item 10 (a): what a run was asked to measure, and the differences. */
static void test_run_ident(void)
{
    json_t *ca = json_loads("{\"model_names\": [\"llama\"], \"endpoint\": {\"type\": \"chat\"},"
                            "\"perf_analyzer\": {\"stimulus\": {\"concurrency\": 16}}, \"input\": {\"file\": \"\","
                            "\"prompt_source\": \"synthetic\", \"synthetic_tokens\": {\"mean\": 512},"
                            "\"output_tokens\": {\"mean\": \"\"}}}", 0, NULL);
    json_t *cb = json_loads("{\"model_names\": [\"qwen\"], \"endpoint\": {\"type\": \"chat\"},"
                            "\"perf_analyzer\": {\"stimulus\": {\"concurrency\": 4.0}}, \"input\": {\"file\": \"\","
                            "\"synthetic_tokens\": {\"mean\": 64}, \"output_tokens\": {\"mean\": 128}}}", 0, NULL);
    struct gp_run_ident a, b;
    gp_run_ident_from_config(ca, NULL, &a);
    gp_run_ident_from_config(cb, NULL, &b);
    char buf[512];
    CHECK_INT(gp_run_ident_diff(&a, &b, buf, sizeof buf), 4);
    CHECK_STR(buf, "model: llama vs qwen; ISL: 512 vs 64; OSL: not set vs 128; concurrency: 16 vs 4");
    CHECK_INT(gp_run_ident_diff(&a, &a, buf, sizeof buf), 0);
    CHECK_STR(buf, "");
    /* 4 and 4.0 are one load; a field one side does not record is no difference */
    json_object_set_new(json_object_get(ca, "perf_analyzer"), "stimulus", json_pack("{s:i}", "concurrency", 4));
    json_object_set_new(json_object_get(ca, "input"), "synthetic_tokens", json_pack("{s:i}", "mean", 64));
    json_object_set_new(json_object_get(ca, "input"), "output_tokens", json_pack("{s:i}", "mean", 128));
    json_object_del(ca, "model_names");
    gp_run_ident_from_config(ca, NULL, &a);
    CHECK_INT(gp_run_ident_diff(&a, &b, buf, sizeof buf), 0);
    /* a rate against a concurrency, and an input file against synthetic prompts */
    json_object_set_new(json_object_get(cb, "perf_analyzer"), "stimulus", json_pack("{s:f}", "request_rate", 2.5));
    json_object_set_new(json_object_get(cb, "input"), "file", json_string("data.jsonl"));
    gp_run_ident_from_config(cb, NULL, &b);
    CHECK_INT(gp_run_ident_diff(&a, &b, buf, sizeof buf), 2);
    CHECK_STR(buf, "input: synthetic vs file data.jsonl; load: concurrency 4 vs request rate 2.5");
    json_decref(ca);
    json_decref(cb);
}

int main(void)
{
    GP_RUN(test_gate_parse);
    GP_RUN(test_repeats);
    GP_RUN(test_overlap_and_negligible);
    GP_RUN(test_bootstrap_one_run);
    GP_RUN(test_interval_clamped);
    GP_RUN(test_too_few_requests);
    GP_RUN(test_run_ident);
    return gp_test_summary();
}
