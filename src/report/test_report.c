/* report/test_report.c — unit tests: escaping, the page builder, JSON
 * endpoint answers (store and artifact sources), routing, the report file. */
#include "core/test.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "report/report.h"
#include "store/db.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *esc(const char *s, size_t n)
{
    struct gp_buf b = {0};
    gp_html_escape(&b, s, n);
    return gp_buf_steal(&b);
}

static void test_html_escape(void)
{
    char *e = esc("<script>alert(1)</script>", 25);
    CHECK_STR(e, "&lt;script&gt;alert(1)&lt;/script&gt;");
    free(e);
    e = esc("a&b \"q\" 'x'", 11);
    CHECK_STR(e, "a&amp;b &quot;q&quot; &#39;x&#39;");
    free(e);
    e = esc("caf\xc3\xa9 \xff\xfe ok", 11);
    CHECK_STR(e, "caf\xc3\xa9 \xEF\xBF\xBD\xEF\xBF\xBD ok");
    free(e);
    e = esc("a\0b", 3); /* NUL cannot hide the rest */
    CHECK_STR(e, "a\xEF\xBF\xBD" "b");
    free(e);
    e = esc("\xed\xa0\x80", 3); /* a UTF-16 surrogate is not UTF-8 */
    CHECK_STR(e, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    free(e);
    e = esc("", 0);
    CHECK_STR(e, "");
    free(e);
}

static void test_json_script_escape(void)
{
    json_t *j = json_pack("{s:s}", "m", "</script><!--x&y\xe2\x80\xa8");
    char *t = json_dumps(j, JSON_COMPACT);
    struct gp_buf b = {0};
    CHECK_INT(gp_json_script_escape(&b, t, strlen(t)), 0);
    CHECK(strstr(b.data, "</") == NULL);
    CHECK(strchr(b.data, '<') == NULL && strchr(b.data, '>') == NULL && strchr(b.data, '&') == NULL);
    CHECK(strstr(b.data, "\\u2028") != NULL);
    json_t *back = json_loads(b.data, 0, NULL); /* still JSON, same value */
    CHECK(back && json_equal(back, j));
    json_decref(back);
    json_decref(j);
    free(t);
    gp_buf_free(&b);
}

static void test_sanitize_py(void)
{
    const char *in = "{\"a\": NaN, \"b\": -Infinity, \"c\": Infinity, \"s\": \"NaN \\\" Infinity\"}";
    char *o = gp_json_sanitize_py(in, strlen(in));
    CHECK_STR(o, "{\"a\": null, \"b\": null, \"c\": null, \"s\": \"NaN \\\" Infinity\"}");
    free(o);
    o = gp_json_sanitize_py("", 0);
    CHECK_STR(o, "");
    free(o);
}

/* Where asset name's text (its first 80 bytes) starts in page, or -1: the
 * report inlines the scripts, so their order is the order of their text. */
static long asset_at(const struct gp_buf *page, const char *name)
{
    size_t len = 0;
    const unsigned char *a = gp_page_asset(name, &len, NULL);
    if (!a || len < 80)
        return -1;
    const char *p = memmem(page->data, page->len, a, 80);
    return p ? (long)(p - page->data) : -1;
}

static void test_page(void)
{
    struct gp_buf b = {0};
    const char *bundle = "{\"api\":{\"/api/jobs\":{\"jobs\":[{\"model\":\"</script><script>alert(1)</script>\"}]}}}";
    CHECK_INT(gp_page_build(&b, GP_PAGE_REPORT, "<b>t</b>", bundle), 0);
    CHECK(strstr(b.data, "<title>&lt;b&gt;t&lt;/b&gt;</title>") != NULL);
    CHECK(strstr(b.data, "alert(1)</script>") == NULL);
    CHECK(strstr(b.data, "id=\"gp-bundle\"") != NULL);
    CHECK(strstr(b.data, "src=\"/assets/") == NULL); /* self-contained */
    /* inlined in the order the UI loads them: app.js, compare.js, jobparts.js */
    long at_app = asset_at(&b, "app.js"), at_cmp = asset_at(&b, "compare.js"), at_job = asset_at(&b, "jobparts.js");
    CHECK(at_app >= 0 && at_cmp > at_app && at_job > at_cmp);
    gp_buf_reset(&b);
    CHECK_INT(gp_page_build(&b, GP_PAGE_UI, "Benchmarks", NULL), 0);
    CHECK(strstr(b.data, "<script src=\"/assets/app.js\"></script>") != NULL);
    /* compare.js and jobparts.js after app.js: they take app.js's helpers from window.gpPage */
    CHECK(strstr(b.data, "<script src=\"/assets/app.js\"></script>\n<script src=\"/assets/compare.js\"></script>\n"
                         "<script src=\"/assets/jobparts.js\"></script>\n") != NULL);
    CHECK(strstr(b.data, "<script>") == NULL); /* nothing inline: the CSP forbids it */
    gp_buf_free(&b);
    size_t len = 0;
    const char *ct = NULL;
    const unsigned char *js = gp_page_asset("uPlot.min.js", &len, &ct);
    CHECK(js && len > 10000 && strstr(ct, "javascript"));
    /* Inlined in reports: no embedded script may contain its own end tag. */
    CHECK(js && !strstr((const char *)js, "</script"));
    js = gp_page_asset("app.js", &len, &ct);
    CHECK(js && !strstr((const char *)js, "</script") && !strstr((const char *)js, "innerHTML ="));
    js = gp_page_asset("compare.js", &len, &ct);
    CHECK(js && !strstr((const char *)js, "</script") && !strstr((const char *)js, "innerHTML =") &&
          strstr(ct, "javascript"));
    js = gp_page_asset("jobparts.js", &len, &ct);
    CHECK(js && !strstr((const char *)js, "</script") && !strstr((const char *)js, "innerHTML =") &&
          strstr(ct, "javascript"));
    CHECK(gp_page_asset("../etc/passwd", &len, &ct) == NULL);
}

static void test_downsample(void)
{
    json_t *series = json_pack("[{s:[],s:[]}]", "t_s", "v");
    json_t *t = json_object_get(json_array_get(series, 0), "t_s"), *v = json_object_get(json_array_get(series, 0), "v");
    for (int i = 0; i < 10000; i++) {
        json_array_append_new(t, json_real(i * 0.1));
        json_array_append_new(v, json_real(i == 5001 ? 1000.0 : i == 7777 ? -5.0 : 1.0));
    }
    gp_series_downsample(series, 100);
    json_t *s0 = json_array_get(series, 0);
    size_t n = json_array_size(json_object_get(s0, "v"));
    CHECK(n <= 100 && n >= 50);
    CHECK_INT(json_integer_value(json_object_get(s0, "downsampled_from")), 10000);
    int spike = 0, dip = 0;
    double prev = -1;
    for (size_t i = 0; i < n; i++) {
        double x = json_number_value(json_array_get(json_object_get(s0, "v"), i));
        double ts = json_number_value(json_array_get(json_object_get(s0, "t_s"), i));
        spike |= x == 1000.0;
        dip |= x == -5.0;
        CHECK(ts > prev); /* still in time order */
        prev = ts;
    }
    CHECK(spike && dip);
    json_decref(series);
}

static json_t *jobs_fixture(void)
{
    return json_loads("[{\"id\":1,\"model\":\"a\",\"framework\":\"vllm\",\"created_at\":\"2026-12-01T10:00:00Z\","
                      "\"metrics\":{\"request_latency.p99\":30.5}},"
                      "{\"id\":2,\"model\":\"b\",\"framework\":\"sglang\",\"created_at\":\"2026-12-03T10:00:00Z\","
                      "\"metrics\":{\"request_latency.p99\":10}},"
                      "{\"id\":3,\"model\":\"a\",\"framework\":\"vllm\",\"created_at\":\"2026-12-02T10:00:00Z\","
                      "\"metrics\":{}}]",
                      0, NULL);
}

static void test_jobs_filter(void)
{
    json_t *j = jobs_fixture();
    struct gp_jobs_filter f = {.model = "a"};
    CHECK_INT(gp_jobs_filter_apply(j, &f, NULL), 0);
    CHECK_INT(json_array_size(j), 2);
    json_decref(j);

    j = jobs_fixture();
    struct gp_jobs_filter f2 = {.from = "2026-12-02", .to = "2026-12-02"};
    gp_jobs_filter_apply(j, &f2, NULL);
    CHECK_INT(json_array_size(j), 1);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(j, 0), "id")), 3);
    json_decref(j);

    j = jobs_fixture();
    struct gp_jobs_filter f3 = {.sort = "request_latency.p99", .desc = 0};
    gp_jobs_filter_apply(j, &f3, NULL);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(j, 0), "id")), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(j, 1), "id")), 1);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(j, 2), "id")), 3); /* missing last */
    f3.desc = 1;
    gp_jobs_filter_apply(j, &f3, NULL);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(j, 0), "id")), 1);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(j, 2), "id")), 3);
    struct gp_jobs_filter f4 = {.sort = "created_at", .desc = 1};
    gp_jobs_filter_apply(j, &f4, NULL);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(j, 0), "id")), 2);
    struct gp_error err = {0};
    struct gp_jobs_filter bad = {.sort = "nonsense"};
    CHECK_INT(gp_jobs_filter_apply(j, &bad, &err), -GP_EINVAL);
    CHECK(strstr(err.msg, "sort=nonsense") != NULL);
    json_decref(j);
}

/* Query arguments for gp_ui_route from a NULL-terminated key/value list. */
static const char *kv_get(void *ctx, const char *key)
{
    const char *const *kv = ctx;
    for (; kv && kv[0]; kv += 2)
        if (!strcmp(kv[0], key))
            return kv[1];
    return NULL;
}

static json_t *route_json(const struct gp_ui_src *src, const char *path, const char *const *kv, int *status)
{
    struct gp_buf body = {0};
    const char *ct = NULL;
    const unsigned char *sb = NULL;
    size_t sl = 0;
    CHECK_INT(gp_ui_route(src, path, kv_get, (void *)kv, status, &ct, &body, &sb, &sl), 0);
    CHECK_STR(ct, "application/json; charset=utf-8");
    json_t *j = json_loads(body.data ? body.data : "", 0, NULL);
    CHECK(j != NULL);
    gp_buf_free(&body);
    return j;
}

static void test_artifact_bundle(void)
{
    json_t *b = NULL;
    struct gp_error err = {0};
    CHECK_INT(gp_artifact_bundle("tests/fixtures/report/sweep", &b, &err), 0);
    if (!b) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    json_t *api = json_object_get(b, "api");
    json_t *jobs = json_object_get(json_object_get(api, "/api/jobs"), "jobs");
    CHECK_INT(json_array_size(jobs), 2);
    json_t *j1 = json_array_get(jobs, 0);
    CHECK_STR(json_string_value(json_object_get(j1, "model")), "<script>alert(1)</script>");
    CHECK_INT(json_integer_value(json_object_get(j1, "concurrency")), 1);
    CHECK_NEAR(json_number_value(json_object_get(json_object_get(j1, "metrics"), "time_to_first_token.avg")), 25.5, 1e-9);
    /* NaN in the artifact (Python json) arrives as null, not a parse error */
    json_t *job = json_object_get(api, "/api/job?id=1");
    json_t *m1 = json_array_get(json_object_get(job, "metrics"), 1);
    CHECK_STR(json_string_value(json_object_get(m1, "metric")), "request_latency");
    CHECK(json_is_null(json_object_get(m1, "std")));
    json_t *req = json_object_get(api, "/api/job/requests?id=1");
    CHECK_INT(json_array_size(json_object_get(req, "ttft_ms")), 12);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(req, "ttft_ms"), 0)), 20.0, 1e-9);
    json_t *ip = json_object_get(req, "itl_by_position");
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(ip, "avg_ms"), 0)), 6.0, 1e-9);
    CHECK_INT(json_integer_value(json_array_get(json_object_get(ip, "count"), 4)), 4);
    json_t *tel = json_object_get(json_object_get(api, "/api/job/telemetry?id=1"), "series");
    CHECK_INT(json_array_size(tel), 4); /* the status line is skipped */
    json_t *t0 = json_array_get(tel, 0);
    CHECK_STR(json_string_value(json_object_get(t0, "metric")), "power_w");
    CHECK_INT(json_array_size(json_object_get(t0, "t_s")), 20);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(t0, "t_s"), 1)), 0.25, 1e-9);
    CHECK_INT(json_array_size(json_object_get(json_object_get(api, "/api/job/telemetry?id=2"), "series")), 0);
    CHECK(json_object_get(api, "/api/compare?ids=1,2") != NULL);
    CHECK(json_object_get(api, "/api/compare?scenario=sweep") != NULL);
    CHECK_STR(json_string_value(json_object_get(b, "start")), "#/");

    /* The same answers through the router, as the server gives them. */
    struct gp_ui_src src = gp_ui_bundle_src(b);
    int st = 0;
    const char *kv1[] = {"id", "2", NULL};
    json_t *a = route_json(&src, "/api/job", kv1, &st);
    CHECK_INT(st, 200);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(a, "job"), "id")), 2);
    json_decref(a);
    const char *kv2[] = {"id", "9", NULL};
    a = route_json(&src, "/api/job", kv2, &st);
    CHECK_INT(st, 404);
    CHECK(json_string_value(json_object_get(a, "error")) != NULL);
    json_decref(a);
    const char *kv3[] = {"sort", "request_latency.p50", "order", "desc", NULL};
    a = route_json(&src, "/api/jobs", kv3, &st);
    CHECK_INT(st, 200);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(a, "jobs"), 0), "id")), 2);
    json_decref(a);
    /* Filtering and sorting work on copies: the bundle's own list stays whole
     * and in order for the next request (it was emptied by ?model=nope). */
    const char *kv5[] = {"model", "nope", NULL};
    a = route_json(&src, "/api/jobs", kv5, &st);
    CHECK_INT(json_array_size(json_object_get(a, "jobs")), 0);
    json_decref(a);
    a = route_json(&src, "/api/jobs", NULL, &st);
    CHECK_INT(json_array_size(json_object_get(a, "jobs")), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(a, "jobs"), 0), "id")), 1);
    json_decref(a);
    const char *kv4[] = {"ids", "1,2", NULL};
    a = route_json(&src, "/api/compare", kv4, &st);
    CHECK_INT(st, 200);
    CHECK_INT(json_array_size(json_object_get(a, "points")), 2);
    json_decref(a);
    {
        struct gp_buf body = {0};
        const char *ct = NULL;
        const unsigned char *sb = NULL;
        size_t sl = 0;
        CHECK_INT(gp_ui_route(&src, "/report", kv_get, NULL, &st, &ct, &body, &sb, &sl), 0);
        CHECK_INT(st, 200);
        CHECK(body.data && strstr(body.data, "id=\"gp-bundle\"") && strstr(ct, "text/html"));
        gp_buf_free(&body);
    }
    a = route_json(&src, "/api/nope", NULL, &st);
    CHECK_INT(st, 404);
    json_decref(a);
    a = route_json(&src, "/api/compare", NULL, &st);
    CHECK_INT(st, 400);
    json_decref(a);
    json_decref(b);

    /* genperf run's layout (scenario/cell/run) with genperf_run.json, from the store's fixtures */
    if (gp_is_dir("tests/fixtures/genai-perf/genperf-run")) {
        CHECK_INT(gp_artifact_bundle("tests/fixtures/genai-perf/genperf-run/", &b, &err), 0);
        json_t *r0 = json_array_get(json_object_get(json_object_get(json_object_get(b, "api"), "/api/jobs"), "jobs"), 0);
        CHECK_STR(json_string_value(json_object_get(r0, "scenario")), "sweep-demo");
        CHECK_STR(json_string_value(json_object_get(r0, "hardware")), "2xH100-SXM");
        CHECK(json_object_get(json_object_get(b, "api"), "/api/compare?scenario=sweep-demo") != NULL);
        json_decref(b);
    }
    if (gp_is_dir("tests/fixtures/genai-perf/real-genai-perf-csv")) {
        CHECK_INT(gp_artifact_bundle("tests/fixtures/genai-perf/real-genai-perf-csv", &b, &err), -GP_ENOTSUP);
        CHECK(strstr(err.msg, "genperf ingest") != NULL);
    }
    CHECK(gp_artifact_bundle("tests/fixtures/report/nonexistent", &b, &err) < 0);
    CHECK(strstr(err.msg, "nonexistent") != NULL);
    CHECK(gp_artifact_bundle("src/core", &b, &err) < 0);
    CHECK(strstr(err.msg, "_genai_perf.json") != NULL);
}

/* GenAI-Perf's session and fixed-schedule stimuli: a session run's job has
 * its session concurrency as concurrency (as the store records it), a trace
 * replay neither a concurrency nor a rate. */
static void test_artifact_schedule_stimulus(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], run[700];
    snprintf(dir, sizeof dir, "%s/gp-report-stim-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    const char *names[2] = {"m-openai-chat-fixed_schedule", "m-openai-chat-session_concurrency3"};
    struct gp_error err = {0};
    for (int i = 0; i < 2; i++) {
        json_t *g = json_load_file("tests/fixtures/genai-perf/genperf-profile/sim-model-openai-chat-concurrency2/"
                                   "profile_export_genai_perf.json",
                                   JSON_PRESERVE_ORDER, NULL);
        json_t *pa = json_object_get(json_object_get(g, "input_config"), "perf_analyzer");
        snprintf(run, sizeof run, "%s/%s", dir, names[i]);
        CHECK(pa != NULL);
        CHECK_INT(gp_mkdir_p(run, &err), 0);
        if (pa)
            json_object_set_new(pa, "stimulus", i ? json_pack("{s:i}", "session_concurrency", 3)
                                                  : json_pack("{s:n}", "fixed_schedule"));
        snprintf(run, sizeof run, "%s/%s/profile_export_genai_perf.json", dir, names[i]);
        CHECK_INT(json_dump_file(g, run, JSON_INDENT(2) | JSON_PRESERVE_ORDER), 0);
        json_decref(g);
    }
    json_t *b = NULL;
    CHECK_INT(gp_artifact_bundle(dir, &b, &err), 0);
    json_t *jobs = json_object_get(json_object_get(json_object_get(b, "api"), "/api/jobs"), "jobs");
    CHECK_INT(json_array_size(jobs), 2);
    json_t *fixed = json_array_get(jobs, 0), *sess = json_array_get(jobs, 1);
    CHECK(json_is_null(json_object_get(fixed, "concurrency")));
    CHECK(json_is_null(json_object_get(fixed, "request_rate")));
    CHECK_INT(json_integer_value(json_object_get(sess, "concurrency")), 3);
    CHECK(json_is_null(json_object_get(sess, "request_rate")));
    json_decref(b);
    gp_test_rmtree(dir);
}

static struct gp_db *fixture_db(char *path, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, n, "%s/gp-report-test-%d.db", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    unlink(path);
    struct gp_db *db = NULL;
    struct gp_error err = {0};
    char *sql = NULL;
    if (gp_db_open(path, &db, &err) < 0 || gp_read_file("tests/fixtures/report/store.sql", &sql, NULL, &err) < 0 ||
        gp_db_exec(db, sql, &err) < 0) {
        fprintf(stderr, "  fixture db: %s\n", err.msg);
        free(sql);
        if (db)
            gp_db_close(db);
        return NULL;
    }
    free(sql);
    return db;
}

static void test_rdb(void)
{
    char path[256];
    struct gp_db *db = fixture_db(path, sizeof path);
    CHECK(db != NULL);
    if (!db)
        return;
    struct gp_error err = {0};
    json_t *j = NULL;
    struct gp_jobs_filter f = {0};
    CHECK_INT(gp_rdb_jobs(db, &f, &j, &err), 0);
    json_t *jobs = json_object_get(j, "jobs");
    CHECK_INT(json_array_size(jobs), 2);
    json_t *j1 = json_array_get(jobs, 0);
    CHECK_INT(json_integer_value(json_object_get(j1, "id")), 1);
    CHECK_STR(json_string_value(json_object_get(j1, "model")), "<script>alert(1)</script>");
    CHECK_STR(json_string_value(json_object_get(j1, "hardware")), "test-hw");
    CHECK_STR(json_string_value(json_object_get(j1, "scenario")), "sweep-a");
    CHECK_STR(json_string_value(json_object_get(j1, "created_at")), "2026-12-01T10:00:00.000Z");
    CHECK_NEAR(json_number_value(json_object_get(json_object_get(j1, "metrics"), "request_latency.p99")), 70.25, 1e-9);
    json_decref(j);

    CHECK_INT(gp_rdb_job(db, "1", &j, &err), 0);
    json_t *ms = json_object_get(j, "metrics");
    CHECK(json_array_size(ms) == 6);
    CHECK_STR(json_string_value(json_object_get(json_array_get(ms, 0), "metric")), "request_throughput");
    json_t *lat = json_array_get(ms, 1);
    CHECK_STR(json_string_value(json_object_get(lat, "metric")), "request_latency");
    CHECK_NEAR(json_number_value(json_object_get(lat, "avg")), 51.0, 1e-9);
    CHECK(json_is_null(json_object_get(lat, "p5")));
    CHECK_INT(json_array_size(json_object_get(j, "telemetry_summary")), 3);
    CHECK(json_is_null(json_object_get(json_object_get(j, "job"), "fidelity"))); /* no genperf_summary */
    json_decref(j);
    /* the fidelity verdict comes from the kept <stem>_genperf.json */
    CHECK_INT(gp_db_exec(db, "UPDATE jobs SET genperf_summary = '{\"fidelity\":{\"client_limited\":true,"
                             "\"verdict\":\"limiting\",\"reasons\":[\"sends were late\"],\"inputs\":{}}}' "
                             "WHERE id = 1", &err), 0);
    CHECK_INT(gp_rdb_job(db, "1", &j, &err), 0);
    json_t *fid = json_object_get(json_object_get(j, "job"), "fidelity");
    CHECK_STR(json_string_value(json_object_get(fid, "verdict")), "limiting");
    CHECK_STR(json_string_value(json_array_get(json_object_get(fid, "reasons"), 0)), "sends were late");
    json_decref(j);
    CHECK_INT(gp_rdb_job(db, "77", &j, &err), -GP_ENOENT);
    CHECK_INT(gp_rdb_job(db, "1 OR 1=1", &j, &err), -GP_EINVAL);

    CHECK_INT(gp_rdb_requests(db, "1", &j, &err), 0);
    CHECK_INT(json_array_size(json_object_get(j, "ttft_ms")), 10); /* the failed one is left out */
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(j, "ttft_ms"), 0)), 16.0, 1e-9);
    json_t *io = json_object_get(j, "itl_vs_osl");
    CHECK_INT(json_integer_value(json_array_get(json_object_get(io, "osl"), 0)), 5);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(io, "itl_ms"), 0)), (41.0 - 16.0) / 4, 1e-9);
    /* job 1 was "ingested" from the fixture run dir, still on disk: exact ITL by position */
    json_t *ip = json_object_get(j, "itl_by_position");
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(ip, "avg_ms"), 0)), 6.0, 1e-9);
    json_decref(j);
    CHECK_INT(gp_rdb_requests(db, "2", &j, &err), 0);
    CHECK(json_is_null(json_object_get(j, "itl_by_position"))); /* its artifact dir is gone */
    json_decref(j);

    CHECK_INT(gp_rdb_telemetry(db, "1", &j, &err), 0);
    json_t *series = json_object_get(j, "series");
    CHECK_INT(json_array_size(series), 6);
    json_t *s0 = json_array_get(series, 0);
    CHECK_STR(json_string_value(json_object_get(s0, "device")), "gpu0");
    CHECK_INT(json_array_size(json_object_get(s0, "t_s")), 30);
    CHECK_NEAR(json_number_value(json_array_get(json_object_get(s0, "t_s"), 1)), 0.5, 1e-9);
    json_decref(j);
    CHECK_INT(gp_rdb_telemetry(db, "2", &j, &err), 0);
    CHECK_INT(json_array_size(json_object_get(j, "series")), 0);
    json_decref(j);

    CHECK_INT(gp_rdb_compare(db, "2,1", NULL, &j, &err), 0);
    json_t *pts = json_object_get(j, "points");
    CHECK_INT(json_array_size(pts), 2);
    json_t *p0 = json_array_get(pts, 0);
    CHECK_INT(json_integer_value(json_object_get(p0, "concurrency")), 1);
    CHECK_NEAR(json_number_value(json_object_get(p0, "request_latency_p50")), 50.5, 1e-9);
    CHECK_NEAR(json_number_value(json_object_get(p0, "output_token_throughput")), 100.0, 1e-9);
    json_decref(j);
    CHECK_INT(gp_rdb_compare(db, NULL, "sweep-a", &j, &err), 0);
    CHECK_INT(json_array_size(json_object_get(j, "points")), 2);
    json_decref(j);
    CHECK_INT(gp_rdb_compare(db, "1,x", NULL, &j, &err), -GP_EINVAL);

    CHECK_INT(gp_rdb_bundle(db, "1", &j, &err), 0);
    json_t *api = json_object_get(j, "api");
    CHECK_INT(json_array_size(json_object_get(json_object_get(api, "/api/jobs"), "jobs")), 1);
    CHECK(json_object_get(api, "/api/job/telemetry?id=1") != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "start")), "#/job/1");

    json_decref(j);
    CHECK_INT(gp_rdb_bundle(db, "2,1", &j, &err), 0);
    api = json_object_get(j, "api");
    CHECK_INT(json_array_size(json_object_get(json_object_get(api, "/api/jobs"), "jobs")), 2);
    CHECK_INT(json_array_size(json_object_get(json_object_get(api, "/api/compare?ids=2,1"), "points")), 2);
    CHECK(json_object_get(api, "/api/job/requests?id=2") != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "start")), "#/");
    json_decref(j);
    CHECK_INT(gp_rdb_bundle(db, "1,99", &j, &err), -GP_ENOENT);
    CHECK_INT(gp_rdb_bundle(db, "1", &j, &err), 0);

    char out[300];
    snprintf(out, sizeof out, "%s.html", path);
    CHECK_INT(gp_report_write(out, "<x>", j, &err), 0);
    char *html = NULL;
    CHECK_INT(gp_read_file(out, &html, NULL, &err), 0);
    CHECK(html && strstr(html, "<title>&lt;x&gt;</title>") && !strstr(html, "<script>alert(1)"));
    free(html);
    unlink(out);
    json_decref(j);

    struct gp_ui_src src = gp_rdb_src(db);
    int st = 0;
    const char *kv[] = {"model", "nope", NULL};
    json_t *a = route_json(&src, "/api/jobs", kv, &st);
    CHECK_INT(st, 200);
    CHECK_INT(json_array_size(json_object_get(a, "jobs")), 0);
    json_decref(a);
    const char *kv2[] = {"id", "abc", NULL};
    a = route_json(&src, "/api/job/requests", kv2, &st);
    CHECK_INT(st, 400);
    json_decref(a);
    gp_db_close(db);
    unlink(path);
}

/* A search's CSV (as cmd_search writes it, CRLF, a quoted reason) marks the
 * limit and the cells that missed; points are matched by value. */
static void test_search_decorate(void)
{
    char dir[] = "/tmp/gp-search-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512], cell[512];
    snprintf(path, sizeof path, "%s/search_export_genperf.csv", dir);
    snprintf(cell, sizeof cell, "%s/m-openai-chat-concurrency4", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("Cell,Search Type,Value,Meets Target,Good Share,Requests,Good Requests\r\n"
          "1,concurrency,2,yes,1.0000,10,10\r\n2,concurrency,4,yes,0.9500,20,19\r\n"
          "3,concurrency,8,no,0.2500,16,4\r\n\r\nLimit,4\r\nStopped,converged\r\n"
          "Reason,\"converged: concurrency 4 meets the target, 5 does not\"\r\nGoodput Target,0.9\r\n"
          "SLOs,time_to_first_token:30\r\nCells,3\r\n", f);
    fclose(f);
    json_t *ans = json_pack("{s:[{s:i,s:s,s:{s:f}},{s:i,s:s},{s:i}]}", "points", "concurrency", 4, "artifact_dir",
                            cell, "slos", "time_to_first_token", 30.0, "concurrency", 8, "artifact_dir", cell,
                            "concurrency", 3);
    gp_compare_decorate(ans);
    json_t *s = json_object_get(ans, "search"), *pts = json_object_get(ans, "points");
    CHECK(json_is_object(s));
    CHECK(json_number_value(json_object_get(s, "limit")) == 4.0);
    CHECK(json_number_value(json_object_get(s, "goodput_target")) == 0.9);
    const char *reason = json_string_value(json_object_get(s, "reason"));
    CHECK(reason && !strcmp(reason, "converged: concurrency 4 meets the target, 5 does not"));
    CHECK(json_object_get(s, "file") == NULL); /* no server path in the answer */
    CHECK_INT(json_array_size(json_object_get(s, "cells")), 3);
    CHECK(json_is_true(json_object_get(json_array_get(pts, 0), "limit")));
    CHECK(json_is_true(json_object_get(json_array_get(pts, 0), "meets")));
    CHECK(json_is_false(json_object_get(json_array_get(pts, 1), "meets")));
    CHECK(json_is_false(json_object_get(json_array_get(pts, 1), "limit")));
    CHECK(json_object_get(json_array_get(pts, 2), "meets") == NULL); /* not a cell of the search */
    CHECK(json_number_value(json_object_get(json_object_get(ans, "slos"), "time_to_first_token")) == 30.0);
    json_decref(ans);
    /* No CSV next to the cells: SLOs only, no search. */
    unlink(path);
    ans = json_pack("{s:[{s:i,s:s}]}", "points", "concurrency", 4, "artifact_dir", cell);
    gp_compare_decorate(ans);
    CHECK(json_object_get(ans, "search") == NULL && json_is_null(json_object_get(ans, "slos")));
    json_decref(ans);
    CHECK(gp_search_csv_load(path) == NULL);
    rmdir(dir);
}

/* DNS rebinding: the Host header's name decides, never a prefix of it. */
static void test_host_check(void)
{
    const char *const allow[] = {"bench.internal", "[fe80::1]"};
    struct gp_ui_opts o = {0};
    static const char *const yes[] = {"localhost:8080", "127.0.0.1:8080", "[::1]:8080", "LOCALHOST:1",
                                      "localhost", "127.0.0.1:65535"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK(gp_ui_host_ok(&o, 1, yes[i]) && gp_ui_host_ok(&o, 0, yes[i]));
    static const char *const no[] = {NULL, "", "127.attacker.example:8080", "127.0.0.1.attacker.example",
                                     "localhost.attacker.example:8080", "127.1:8080", "localhost.:8080",
                                     "localhost:", "localhost:0", "localhost:65536", "localhost:123456",
                                     "localhost:80x", "localhost:80@evil.example", "[::1]x:80", "[::1",
                                     "localhost 8080", "bench.internal:8080", "[::2]:80"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(!gp_ui_host_ok(&o, 1, no[i]));
    /* Exposed beyond loopback: IP literals are not names an attacker can re-point. */
    CHECK(gp_ui_host_ok(&o, 0, "10.0.0.5:8080"));
    CHECK(gp_ui_host_ok(&o, 0, "[2001:db8::5]:8080"));
    CHECK(!gp_ui_host_ok(&o, 1, "10.0.0.5:8080"));
    CHECK(!gp_ui_host_ok(&o, 0, "10.0.0.5.attacker.example:8080"));
    CHECK(!gp_ui_host_ok(&o, 0, "1.2.3.4.5"));
    CHECK(!gp_ui_host_ok(&o, 0, "bench.internal"));
    o.allow_hosts = allow;
    o.n_allow_hosts = 2;
    CHECK(gp_ui_host_ok(&o, 1, "bench.internal:8080"));
    CHECK(gp_ui_host_ok(&o, 1, "Bench.Internal"));
    CHECK(gp_ui_host_ok(&o, 1, "[FE80::1]:80"));
    CHECK(!gp_ui_host_ok(&o, 1, "bench.internal.attacker.example:8080"));
    CHECK(!gp_ui_host_ok(&o, 1, "bench.interna:8080"));

    struct gp_error e = {0};
    CHECK_INT(gp_ui_allow_host_check("bench.internal", &e), 0);
    CHECK_INT(gp_ui_allow_host_check("[fe80::1]", &e), 0);
    CHECK(gp_ui_allow_host_check("bench.internal:80", &e) < 0);
    CHECK(strstr(e.msg, "--allow-host bench.internal:80: ") == e.msg);
    CHECK(gp_ui_allow_host_check("", &e) < 0);
    CHECK(gp_ui_allow_host_check("a b", &e) < 0);
}

int main(void)
{
    GP_RUN(test_html_escape);
    GP_RUN(test_json_script_escape);
    GP_RUN(test_sanitize_py);
    GP_RUN(test_page);
    GP_RUN(test_jobs_filter);
    GP_RUN(test_downsample);
    GP_RUN(test_artifact_bundle);
    GP_RUN(test_artifact_schedule_stimulus);
    GP_RUN(test_rdb);
    GP_RUN(test_search_decorate);
    GP_RUN(test_host_check);
    return gp_test_summary();
}
