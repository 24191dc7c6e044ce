/* store/test_store.c — unit tests of the store on SQLite: sha256, '?'->$n,
 * number formatting, db.h semantics, ingest validation and idempotency,
 * the stop flag of an interrupted ingest, read-only connections.
 * (PostgreSQL is covered by tests/e2e/store_pg.sh.) Runs from the repo root,
 * where tests/fixtures/ lives; scratch files go to $TMPDIR or /tmp.
 */
#include "core/test.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "store/db.h"
#include "store/db_impl.h"
#include "store/store.h"
#include "store/test_store_util.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[4096];

static void scratch_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", scratch, name);
}

static void test_sha256(void)
{
    char h[65];
    gp_sha256_hex("", 0, h);
    CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    gp_sha256_hex("abc", 3, h);
    CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gp_sha256_hex(m, strlen(m), h);
    CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    gp_sha256_hex(a, 1000000, h);
    CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

static void test_placeholders(void)
{
    struct gp_buf b = {0};
    int n = gp_db_pg_placeholders("SELECT ?, '?''?', \"a?\" -- ?\n, /* ? */ ? FROM t WHERE x = ?", &b);
    CHECK_INT(n, 3);
    CHECK_STR(b.data, "SELECT $1, '?''?', \"a?\" -- ?\n, /* ? */ $2 FROM t WHERE x = $3");
    gp_buf_reset(&b);
    CHECK_INT(gp_db_pg_placeholders("SELECT 1", &b), 0);
    CHECK_STR(b.data, "SELECT 1");
    gp_buf_free(&b);
}

struct rows {
    int n;
    char first[256];
    char names[256];
};

static int rows_cb(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    struct rows *r = ctx;
    if (r->n == 0) {
        snprintf(r->first, sizeof r->first, "%s", values[0] ? values[0] : "(null)");
        for (int i = 0; i < ncols; i++) {
            strncat(r->names, names[i], sizeof r->names - strlen(r->names) - 2);
            strcat(r->names, ",");
        }
    }
    r->n++;
    return 0;
}

static int stop_cb(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    (void)ncols, (void)names, (void)values;
    ++*(int *)ctx;
    return 1;
}

static void test_db_basics(void)
{
    char path[4200];
    scratch_path(path, sizeof path, "basics.db");
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    char url[4300];
    snprintf(url, sizeof url, "sqlite://%s", path);
    CHECK_INT(gp_db_open(url, &db, &err), 0);
    if (!db)
        return;
    CHECK_INT(gp_db_engine(db), GP_DB_SQLITE);
    struct rows r = {0};
    const char *p[] = {"7", NULL, "x'y"};
    CHECK_INT(gp_db_query(db, "SELECT ? + 1 AS a, ? IS NULL AS b, ? AS c", p, 3, rows_cb, &r, &err), 0);
    CHECK_INT(r.n, 1);
    CHECK_STR(r.first, "8");
    CHECK_STR(r.names, "a,b,c,");
    int n = 0;
    CHECK_INT(gp_db_query(db, "SELECT code FROM metric_templates", NULL, 0, stop_cb, &n, &err), 0);
    CHECK_INT(n, 1);
    /* wrong parameter count and bad SQL are errors with the query in the message */
    CHECK(gp_db_query(db, "SELECT ?", NULL, 0, NULL, NULL, &err) < 0);
    CHECK(strstr(err.msg, "1 placeholders but 0 parameters") != NULL);
    CHECK(gp_db_query(db, "SELEC 1", NULL, 0, NULL, NULL, &err) < 0);
    CHECK(strstr(err.msg, "syntax error") != NULL);
    /* transactions */
    CHECK_INT(gp_db_exec(db, "CREATE TABLE t (x INTEGER)", &err), 0);
    CHECK_INT(gp_db_begin(db, &err), 0);
    CHECK_INT(gp_db_exec(db, "INSERT INTO t VALUES (1)", &err), 0);
    gp_db_rollback(db);
    memset(&r, 0, sizeof r);
    CHECK_INT(gp_db_query(db, "SELECT COUNT(*) FROM t", NULL, 0, rows_cb, &r, &err), 0);
    CHECK_STR(r.first, "0");
    gp_db_close(db);
    /* reopening applies nothing twice */
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    memset(&r, 0, sizeof r);
    CHECK_INT(gp_db_query(db, "SELECT COUNT(*) FROM schema_migrations", NULL, 0, rows_cb, &r, &err), 0);
    CHECK_STR(r.first, "13");
    gp_db_close(db);
    /* URLs */
    CHECK(gp_db_open("mysql://x/y", &db, &err) < 0);
    CHECK(strstr(err.msg, "unknown scheme") != NULL);
    CHECK(gp_db_open("/nonexistent-dir/x/y.db", &db, &err) < 0);
    CHECK(strstr(err.msg, "cannot open SQLite database") != NULL);
    CHECK(gp_db_open("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", &db, &err) < 0);
    CHECK(strstr(err.msg, "cannot connect to PostgreSQL") != NULL);
    /* a password never reaches a message */
    CHECK(gp_db_open("postgresql://u:s3cret@127.0.0.1:1/none?connect_timeout=2", &db, &err) < 0);
    CHECK(strstr(err.msg, "s3cret") == NULL);
    CHECK(strstr(err.msg, "postgresql://u:***@127.0.0.1:1/none") != NULL);
}

static void test_ingest_fixtures(void)
{
    char path[4200];
    scratch_path(path, sizeof path, "ingest.db");
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    struct gp_ingest_result res = {0};
    int r = gp_store_ingest_dir(db, "tests/fixtures/genai-perf", NULL, &res, &err);
    CHECK_INT(r, 0);
    if (r)
        fprintf(stderr, "  %s\n", err.msg);
    CHECK_INT(res.jobs_found, 4);
    CHECK_INT(res.jobs_added, 4);
    gp_ingest_result_free(&res);

    struct rows rw = {0};
    CHECK_INT(gp_db_query(db,
                          "SELECT p90 FROM v_genai_perf_outputs WHERE model = 'test-model' AND metric = "
                          "'request_latency'",
                          NULL, 0, rows_cb, &rw, &err),
              0);
    CHECK_STR(rw.first, "83.39999999999999");

    /* metadata flags win over the artifacts; same artifact again = nothing new */
    struct gp_ingest_meta meta = GP_INGEST_META_INIT;
    meta.framework = "vllm";
    memset(&res, 0, sizeof res);
    CHECK_INT(gp_store_ingest_dir(db, "tests/fixtures/genai-perf/real-genai-perf", &meta, &res, &err), 0);
    CHECK_INT(res.jobs_added, 0);
    CHECK_INT(res.jobs_existing, 1);
    CHECK(res.last_job_id > 0);
    CHECK(res.messages.data && strstr(res.messages.data, "already ingested as job"));
    gp_ingest_result_free(&res);

    /* a copy with one change is a new job; --model etc. are applied */
    char dir[4200], sub[4300], file[4400];
    scratch_path(dir, sizeof dir, "copy");
    snprintf(sub, sizeof sub, "%s/run1", dir);
    CHECK_INT(gp_mkdir_p(sub, &err), 0);
    char *text;
    size_t len;
    CHECK_INT(gp_read_file("tests/fixtures/genai-perf/real-genai-perf/test-model-openai-chat-concurrency2/"
                           "profile_export_genai_perf.json",
                           &text, &len, &err),
              0);
    snprintf(file, sizeof file, "%s/run1/x_genai_perf.json", dir);
    struct gp_buf b = {0};
    gp_buf_append(&b, text, len);
    gp_buf_puts(&b, "\n");
    CHECK_INT(gp_write_file_atomic(file, b.data, b.len, &err), 0);
    meta.model = "other-model";
    meta.tp = 4;
    meta.hardware = "4xA100";
    memset(&res, 0, sizeof res);
    CHECK_INT(gp_store_ingest_dir(db, dir, &meta, &res, &err), 0);
    CHECK_INT(res.jobs_added, 1);
    gp_ingest_result_free(&res);
    memset(&rw, 0, sizeof rw);
    CHECK_INT(gp_db_query(db, "SELECT framework || '/' || tp || '/' || hardware FROM v_jobs WHERE model = 'other-model'",
                          NULL, 0, rows_cb, &rw, &err),
              0);
    CHECK_STR(rw.first, "vllm/4/4xA100");

    /* validation: a string where a number belongs; nothing is written */
    char *bad = strstr(text, "\"avg\": 72.5");
    CHECK(bad != NULL);
    if (bad) {
        memcpy(bad, "\"avg\": \"no\"", 11);
        snprintf(file, sizeof file, "%s/run1/y_genai_perf.json", dir);
        CHECK_INT(gp_write_file_atomic(file, text, len, &err), 0);
        memset(&res, 0, sizeof res);
        gp_err_clear(&err);
        CHECK(gp_store_ingest_dir(db, dir, &meta, &res, &err) < 0);
        if (!strstr(err.msg, "y_genai_perf.json: field")) fprintf(stderr, "  got: %s\n", err.msg);
        CHECK(strstr(err.msg, "y_genai_perf.json: field 'request_latency.avg': expected a number, got a string"));
        CHECK_INT(res.jobs_rejected, 1);
        CHECK_INT(res.jobs_existing, 1);
        gp_ingest_result_free(&res);
        unlink(file);
    }
    free(text);
    gp_buf_free(&b);
    memset(&rw, 0, sizeof rw);
    CHECK_INT(gp_db_query(db, "SELECT COUNT(*) FROM jobs", NULL, 0, rows_cb, &rw, &err), 0);
    CHECK_STR(rw.first, "5");

    /* results printers */
    char out[4200];
    scratch_path(out, sizeof out, "results.csv");
    FILE *fp = fopen(out, "w+");
    CHECK(fp != NULL);
    if (fp) {
        CHECK_INT(gp_store_print_results(db, NULL, GP_OUT_CSV, 0, fp, &err), 0);
        CHECK_INT(gp_store_print_results(db, "1", GP_OUT_JSON, 0, fp, &err), 0);
        CHECK(gp_store_print_results(db, "77", GP_OUT_TABLE, 0, fp, &err) < 0);
        CHECK(strstr(err.msg, "no job 77") != NULL);
        CHECK(gp_store_print_results(db, "x1", GP_OUT_TABLE, 0, fp, &err) < 0);
        rewind(fp);
        char line[512];
        CHECK(fgets(line, sizeof line, fp) && !strncmp(line, "job_id,label,model,", 19));
        fclose(fp);
    }
    gp_db_close(db);
}

/* Per-host telemetry (mpirun across hosts): lines with "host" land in
 * telemetry_samples.host and v_telemetry_job_summary has one row per host x
 * device; a file without "host" (one host) keeps host NULL. */
static void test_telemetry_hosts(void)
{
    char db_path[4200], dir[4200], file[4300];
    scratch_path(db_path, sizeof db_path, "hosts.db");
    scratch_path(dir, sizeof dir, "hosts");
    unlink(db_path);
    struct gp_error err = {0};
    CHECK_INT(gp_mkdir_p(dir, &err), 0);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT(gp_read_file("tests/fixtures/genai-perf/real-genai-perf/test-model-openai-chat-concurrency2/"
                           "profile_export_genai_perf.json", &text, &len, &err), 0);
    snprintf(file, sizeof file, "%s/x_genai_perf.json", dir);
    CHECK_INT(gp_write_file_atomic(file, text, len, &err), 0);
    free(text);
    static const char tel[] =
        "{\"t_ns\":1,\"wall_ns\":1,\"host\":\"node-b\",\"device\":\"gpu\",\"metric\":\"unavailable\",\"reason\":\"x\"}\n"
        "{\"t_ns\":10,\"wall_ns\":10,\"host\":\"node-a\",\"device\":\"host\",\"metric\":\"cpu_util_pct\",\"value\":10}\n"
        "{\"t_ns\":20,\"wall_ns\":20,\"host\":\"node-a\",\"device\":\"host\",\"metric\":\"cpu_util_pct\",\"value\":30}\n"
        "{\"t_ns\":12,\"wall_ns\":99,\"host\":\"node-b\",\"device\":\"host\",\"metric\":\"cpu_util_pct\",\"value\":50}\n";
    snprintf(file, sizeof file, "%s/x_telemetry.jsonl", dir);
    CHECK_INT(gp_write_file_atomic(file, tel, sizeof tel - 1, &err), 0);
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(db_path, &db, &err), 0);
    if (!db)
        return;
    struct gp_ingest_meta meta = GP_INGEST_META_INIT;
    struct gp_ingest_result res = {0};
    CHECK_INT(gp_store_ingest_dir(db, dir, &meta, &res, &err), 0);
    gp_ingest_result_free(&res);
    struct rows rw = {0};
    CHECK_INT(gp_db_query(db, "SELECT group_concat(host || ':' || sample_count || ':' || cpu_avg_pct, ' ') FROM "
                              "(SELECT * FROM v_telemetry_job_summary WHERE device = 'host' ORDER BY host)",
                          NULL, 0, rows_cb, &rw, &err), 0);
    CHECK_STR(rw.first, "node-a:2:20.0 node-b:1:50.0");
    /* the old columns come first, in their old order; host is the last */
    memset(&rw, 0, sizeof rw);
    CHECK_INT(gp_db_query(db, "SELECT * FROM v_telemetry_job_summary LIMIT 1", NULL, 0, rows_cb, &rw, &err), 0);
    CHECK(strncmp(rw.names, "job_id,device,source,sample_count,", 34) == 0);
    CHECK(strlen(rw.names) > 6 && !strcmp(rw.names + strlen(rw.names) - 6, ",host,"));
    /* a line whose host is not a string is refused with the field named */
    static const char bad[] = "{\"t_ns\":1,\"host\":7,\"device\":\"host\",\"metric\":\"load1\",\"value\":1}\n";
    scratch_path(dir, sizeof dir, "hosts_bad");
    CHECK_INT(gp_mkdir_p(dir, &err), 0);
    snprintf(file, sizeof file, "%s/x_genai_perf.json", dir);
    CHECK_INT(gp_read_file("tests/fixtures/genai-perf/real-genai-perf/test-model-openai-chat-concurrency2/"
                           "profile_export_genai_perf.json", &text, &len, &err), 0);
    /* a byte more, so it is not the job already stored */
    struct gp_buf b = {0};
    gp_buf_append(&b, text, len);
    gp_buf_puts(&b, "\n");
    free(text);
    CHECK_INT(gp_write_file_atomic(file, b.data, b.len, &err), 0);
    gp_buf_free(&b);
    snprintf(file, sizeof file, "%s/x_telemetry.jsonl", dir);
    CHECK_INT(gp_write_file_atomic(file, bad, sizeof bad - 1, &err), 0);
    memset(&res, 0, sizeof res);
    CHECK(gp_store_ingest_dir(db, dir, &meta, &res, &err) < 0);
    CHECK(strstr(err.msg, "field 'line 1: host': expected a string") != NULL);
    gp_ingest_result_free(&res);
    gp_db_close(db);
}

/* An interrupt (stop flag set) before the first job: nothing is counted or
 * written and the call says -GP_EINTR; counting the jobs reads no file. */
static void test_ingest_stop_and_count(void)
{
    CHECK_INT((int)gp_store_count_jobs("tests/fixtures/genai-perf"), 4);
    CHECK_INT((int)gp_store_count_jobs("tests/fixtures/genai-perf/real-genai-perf/"), 1);
    CHECK_INT((int)gp_store_count_jobs("tests/fixtures/no-such-dir"), 0);
    char path[4200];
    scratch_path(path, sizeof path, "stop.db");
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    volatile sig_atomic_t stop = 1;
    struct gp_ingest_meta meta = GP_INGEST_META_INIT;
    meta.stop = &stop;
    struct gp_ingest_result res = {0};
    CHECK_INT(gp_store_ingest_dir(db, "tests/fixtures/genai-perf", &meta, &res, &err), -GP_EINTR);
    CHECK_INT(res.jobs_found, 0);
    CHECK_INT(res.jobs_rejected, 0);
    gp_ingest_result_free(&res);
    struct rows rw = {0};
    CHECK_INT(gp_db_query(db, "SELECT COUNT(*) FROM jobs", NULL, 0, rows_cb, &rw, &err), 0);
    CHECK_STR(rw.first, "0");
    stop = 0;
    memset(&res, 0, sizeof res);
    CHECK_INT(gp_store_ingest_dir(db, "tests/fixtures/genai-perf", &meta, &res, &err), 0);
    CHECK_INT(res.jobs_added, 4);
    gp_ingest_result_free(&res);
    gp_db_close(db);

    /* the same file read-only: SELECT works, writes are refused */
    CHECK_INT(gp_db_open_readonly(path, &db, &err), 0);
    if (!db)
        return;
    memset(&rw, 0, sizeof rw);
    CHECK_INT(gp_db_query(db, "SELECT COUNT(*) FROM jobs", NULL, 0, rows_cb, &rw, &err), 0);
    CHECK_STR(rw.first, "4");
    CHECK(gp_db_query(db, "DELETE FROM jobs", NULL, 0, NULL, NULL, &err) < 0);
    CHECK(strstr(err.msg, "read-only") != NULL);
    gp_db_close(db);
    scratch_path(path, sizeof path, "absent.db");
    CHECK(gp_db_open_readonly(path, &db, &err) < 0);
    CHECK(access(path, F_OK) != 0);
}

/* A CSV that repeats a stat column, a metric row or a GPU row was "valid"
 * under --check and then failed the write with a raw UNIQUE error (found by
 * store_fuzz_artifacts): both --check and a real ingest must refuse it. */
static void test_csv_duplicates(void)
{
    static const char *const bodies[] = {
        "Metric,avg,avg,max\nTime To First Token (ms),1.0,2.0,3.0\n\nMetric,Value\n"
        "Request Throughput (per sec),2.48\nRequest Count (count),25.00\n",
        "Metric,avg,max\nTime To First Token (ms),1.0,3.0\nTime To First Token (ms),1.0,3.0\n\n"
        "Metric,Value\nRequest Throughput (per sec),2.48\nRequest Count (count),25.00\n",
        "Metric,avg\nTime To First Token (ms),1.0\n\nMetric,Value\nRequest Throughput (per sec),2.48\n\n"
        "Metric,GPU,avg,p10,p10\nGPU Power Usage (W),0,1.0,2.0,3.0\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        char dir[4200], run[4300], file[4400], dbp[4200];
        snprintf(dir, sizeof dir, "%s/dup%zu", scratch, i);
        snprintf(run, sizeof run, "%s/run-x", dir);
        snprintf(file, sizeof file, "%s/p_genai_perf.csv", run);
        scratch_path(dbp, sizeof dbp, "dup.db");
        struct gp_error err = {0};
        CHECK_INT(gp_mkdir_p(run, &err), 0);
        FILE *f = fopen(file, "w");
        CHECK(f != NULL);
        if (!f)
            return;
        fputs(bodies[i], f);
        fclose(f);
        struct gp_db *db = NULL;
        CHECK_INT(gp_db_open(dbp, &db, &err), 0);
        if (!db)
            return;
        for (int check = 1; check >= 0; check--) {
            struct gp_ingest_meta meta = GP_INGEST_META_INIT;
            meta.validate_only = check;
            struct gp_ingest_result res = {0};
            CHECK(gp_store_ingest_dir(db, dir, &meta, &res, &err) < 0);
            CHECK_INT(res.jobs_rejected, 1);
            CHECK(res.messages.data && strstr(res.messages.data, "given twice") != NULL);
            gp_ingest_result_free(&res);
        }
        gp_db_close(db);
    }
}

/* A copy of our profile fixture whose genperf.json carries scale_out (eps
 * NULL = none; not taken) and whose genai_perf.json ends in `pad` spaces. */
static int write_ep_run(const char *dir, json_t *eps, int pad)
{
    json_t *so = eps ? json_pack("{s:i, s:i, s:O}", "workers", 1, "ranks", 1, "endpoints", eps) : NULL;
    return store_test_copy_run(dir, pad, "scale_out", so);
}

/* Several --url: scale_out.endpoints becomes job_endpoints rows in the same
 * transaction; the url loses its password; a one-URL run adds no row; a bad
 * block rejects the job and writes nothing. */
static void test_ingest_endpoints(void)
{
    char path[4200], dir[4200], got[256];
    scratch_path(path, sizeof path, "endpoints.db");
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    struct gp_ingest_result res = {0};
    CHECK_INT(gp_store_ingest_dir(db, STORE_FIXTURE, NULL, &res, &err), 0);
    CHECK_INT(res.jobs_added, 1);
    gp_ingest_result_free(&res);
    store_test_q1(db, "SELECT COUNT(*) FROM job_endpoints", got, sizeof got);
    CHECK_STR(got, "0"); /* one --url: no breakdown rows */

    json_t *eps = json_pack("[{s:i, s:s, s:i, s:i, s:f, s:f, s:{s:f, s:f}, s:{s:f, s:f}},"
                            " {s:i, s:s, s:i, s:i, s:f, s:f, s:{s:f, s:f}, s:n}]",
                            "endpoint", 0, "url", "http://alice:s3cret@10.0.0.1:8000/v1/chat/completions",
                            "requests", 6, "failed", 1, "request_throughput", 2.5, "output_token_throughput", 40.0,
                            "time_to_first_token_ms", "p50", 5.25, "p99", 9.5, "inter_token_latency_ms", "p50", 1.0,
                            "p99", 2.0, "endpoint", 1, "url", "http://10.0.0.2:8000/v1/chat/completions",
                            "requests", 2, "failed", 0, "request_throughput", 1.0, "output_token_throughput", 16.0,
                            "time_to_first_token_ms", "p50", 20.0, "p99", 30.0, "inter_token_latency_ms");
    CHECK(eps != NULL);
    scratch_path(dir, sizeof dir, "eps-ok");
    CHECK_INT(write_ep_run(dir, eps, 1), 0);
    memset(&res, 0, sizeof res);
    CHECK_INT(gp_store_ingest_dir(db, dir, NULL, &res, &err), 0);
    CHECK_INT(res.jobs_added, 1);
    gp_ingest_result_free(&res);
    store_test_q1(db, "SELECT COUNT(*) || '/' || SUM(requests) || '/' || SUM(failed) FROM job_endpoints", got, sizeof got);
    CHECK_STR(got, "2/8/1");
    store_test_q1(db, "SELECT url FROM job_endpoints WHERE endpoint_index = 0", got, sizeof got);
    CHECK_STR(got, "http://alice:***@10.0.0.1:8000/v1/chat/completions");
    store_test_q1(db, "SELECT COUNT(*) FROM jobs WHERE genperf_summary LIKE '%s3cret%'", got, sizeof got);
    CHECK_STR(got, "0");
    store_test_q1(db, "SELECT COUNT(*) FROM jobs WHERE genperf_summary LIKE '%alice:***@%'", got, sizeof got);
    CHECK_STR(got, "1");
    store_test_q1(db, "SELECT request_share || '/' || requests_ok || '/' || ttft_p50_ms || '/' || model FROM "
           "v_endpoint_breakdown WHERE endpoint_index = 0", got, sizeof got);
    CHECK_STR(got, "0.75/5/5.25/sim-model");
    store_test_q1(db, "SELECT itl_p50_ms IS NULL AND itl_p99_ms IS NULL FROM job_endpoints WHERE endpoint_index = 1", got,
       sizeof got);
    CHECK_STR(got, "1");

    /* genperf results --endpoints */
    char out[4200], line[512];
    scratch_path(out, sizeof out, "endpoints.csv");
    FILE *fp = fopen(out, "w+");
    CHECK(fp != NULL);
    if (fp) {
        CHECK_INT(gp_store_print_endpoints(db, "2", GP_OUT_CSV, fp, &err), 0);
        CHECK_INT(gp_store_print_endpoints(db, "1", GP_OUT_CSV, fp, &err), 0); /* one --url: no row */
        CHECK(gp_store_print_endpoints(db, "9", GP_OUT_CSV, fp, &err) < 0);
        rewind(fp);
        int n = 0;
        while (fgets(line, sizeof line, fp))
            if (n++ == 2)
                CHECK(!strncmp(line, "2,1,http://10.0.0.2:8000/v1/chat/completions,2,0,0.25,1,16,20,30,,", 66));
        CHECK_INT(n, 3); /* header + 2 rows of job 2 */
        fclose(fp);
    }

    /* rejections name the field; the store keeps 2 jobs and 2 endpoint rows */
    static const struct {
        const char *key, *val, *msg;
    } bad[] = {
        {"requests", "\"ten\"", "field 'scale_out.endpoints[1].requests': expected an integer, got a string"},
        {"failed", "3", "field 'scale_out.endpoints[1].failed': 3 is not between 0 and requests (2)"},
        {"endpoint", "0", "field 'scale_out.endpoints[1].endpoint': index 0 given twice"},
        {"url", "null", "field 'scale_out.endpoints[1].url': expected a non-empty string, got null"},
        {"time_to_first_token_ms", "[1]", "field 'scale_out.endpoints[1].time_to_first_token_ms': expected an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *copy = json_deep_copy(eps);
        json_object_set_new(json_array_get(copy, 1), bad[i].key, json_loads(bad[i].val, JSON_DECODE_ANY, NULL));
        snprintf(dir, sizeof dir, "%s/eps-bad%zu", scratch, i);
        CHECK_INT(write_ep_run(dir, copy, 2), 0);
        json_decref(copy);
        memset(&res, 0, sizeof res);
        gp_err_clear(&err);
        CHECK(gp_store_ingest_dir(db, dir, NULL, &res, &err) < 0);
        CHECK_INT(res.jobs_rejected, 1);
        if (!strstr(err.msg, bad[i].msg))
            fprintf(stderr, "  want: %s\n  got:  %s\n", bad[i].msg, err.msg);
        CHECK(strstr(err.msg, bad[i].msg) != NULL);
        gp_ingest_result_free(&res);
    }
    store_test_q1(db, "SELECT (SELECT COUNT(*) FROM jobs) || '/' || (SELECT COUNT(*) FROM job_endpoints)", got, sizeof got);
    CHECK_STR(got, "2/2");
    json_decref(eps);
    gp_db_close(db);
}

/* A copy of our profile fixture in dir/name whose stimulus is `stim`. */
static int write_stim_run(const char *dir, const char *name, json_t *stim)
{
    char run[4300], file[4400];
    struct gp_error err = {0};
    snprintf(run, sizeof run, "%s/%s", dir, name);
    json_t *g = json_load_file(STORE_FIXTURE "/profile_export_genai_perf.json", JSON_PRESERVE_ORDER, NULL);
    json_t *pa = json_object_get(json_object_get(g, "input_config"), "perf_analyzer");
    if (!pa || gp_mkdir_p(run, &err) || json_object_set_new(pa, "stimulus", stim))
        return json_decref(g), -1;
    snprintf(file, sizeof file, "%s/profile_export_genai_perf.json", run);
    int r = json_dump_file(g, file, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(g);
    return r;
}

/* GenAI-Perf's session and fixed-schedule stimuli: a session run's scenario
 * concurrency is its session concurrency, a trace replay has neither figure
 * (and its run directory's name does not make one up). */
static void test_ingest_schedule_stimulus(void)
{
    char path[4200], dir[4200], got[256];
    scratch_path(path, sizeof path, "stimulus.db");
    scratch_path(dir, sizeof dir, "stimulus");
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    CHECK_INT(write_stim_run(dir, "m-openai-chat-session_concurrency3", json_pack("{s:i}", "session_concurrency", 3)),
              0);
    CHECK_INT(write_stim_run(dir, "m-openai-chat-fixed_schedule", json_pack("{s:n}", "fixed_schedule")), 0);
    struct gp_ingest_result res = {0};
    CHECK_INT(gp_store_ingest_dir(db, dir, NULL, &res, &err), 0);
    CHECK_INT(res.jobs_added, 2);
    gp_ingest_result_free(&res);
    store_test_q1(db,
       "SELECT group_concat(s, ' ') FROM (SELECT COALESCE(concurrency, 'null') || '/' || "
       "COALESCE(request_rate, 'null') AS s FROM v_jobs ORDER BY s)",
       got, sizeof got);
    CHECK_STR(got, "3/null null/null");
    /* a bad value is a rejection naming the field */
    CHECK_INT(write_stim_run(dir, "m-openai-chat-session_concurrencyx", json_pack("{s:s}", "session_concurrency", "x")),
              0);
    memset(&res, 0, sizeof res);
    CHECK(gp_store_ingest_dir(db, dir, NULL, &res, &err) < 0);
    CHECK(strstr(err.msg, "field 'input_config.perf_analyzer.stimulus.session_concurrency': expected an integer") !=
          NULL);
    gp_ingest_result_free(&res);
    gp_db_close(db);
}

int main(void)
{
    if (!gp_test_mkdtemp(scratch, sizeof scratch, "gp-store-test")) {
        perror("mkdtemp");
        return 1;
    }
    GP_RUN(test_sha256);
    GP_RUN(test_placeholders);
    GP_RUN(test_db_basics);
    GP_RUN(test_ingest_fixtures);
    GP_RUN(test_ingest_stop_and_count);
    GP_RUN(test_csv_duplicates);
    GP_RUN(test_ingest_endpoints);
    GP_RUN(test_ingest_schedule_stimulus);
    GP_RUN(test_telemetry_hosts);
    gp_test_rmtree(scratch);
    return gp_test_summary();
}
