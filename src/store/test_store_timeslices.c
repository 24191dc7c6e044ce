/* store/test_store_timeslices.c — unit tests of job_timeslices (migration 8)
 * on SQLite: a run whose _genperf.json carries "timeslices" (--timeslice-
 * duration) gets one row per slice with its figures (NULL for a slice without
 * a latency sample); a run without the block gets none; a malformed block is
 * a rejection naming the field, and nothing of that job is written.
 * Runs from the repo root (tests/fixtures/); scratch goes to $TMPDIR or /tmp.
 */
#include "core/test.h"

#include "core/error.h"
#include "store/db.h"
#include "store/store.h"
#include "store/test_store_util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[4096];

static json_t *two_slices(void)
{
    return json_pack("[{s:i, s:f, s:f, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f},"
                     " {s:i, s:f, s:f, s:i, s:i, s:i, s:f, s:f, s:n, s:n, s:n, s:n, s:n, s:n}]",
                     "index", 0, "start_s", 0.0, "end_s", 0.5, "requests", 5, "completed", 4, "failures", 1,
                     "request_throughput", 8.0, "output_token_throughput", 160.0, "ttft_p50_ms", 20.5,
                     "ttft_p99_ms", 30.25, "itl_p50_ms", 5.0, "itl_p99_ms", 6.0, "latency_p50_ms", 120.0,
                     "latency_p99_ms", 150.0, "index", 1, "start_s", 0.5, "end_s", 0.75, "requests", 1, "completed", 0,
                     "failures", 1, "request_throughput", 0.0, "output_token_throughput", 0.0, "ttft_p50_ms",
                     "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "latency_p50_ms", "latency_p99_ms");
}

/* The fixture run in scratch/name with "timeslices" = ts (taken) and
 * "timeslice_duration_s" = dur (< 0: left out). */
static int write_run(const char *name, json_t *ts, double dur, int pad)
{
    char dir[4200], file[4400];
    snprintf(dir, sizeof dir, "%s/%s", scratch, name);
    if (store_test_copy_run(dir, pad, "timeslices", ts))
        return -1;
    if (dur < 0)
        return 0;
    snprintf(file, sizeof file, "%s/m-openai-chat-concurrency2/profile_export_genperf.json", dir);
    json_t *g = json_load_file(file, 0, NULL);
    if (!g)
        return -1;
    json_object_set_new(g, "timeslice_duration_s", json_real(dur));
    json_object_set_new(g, "timeslice_origin_wall_ns", json_integer(1700000000000000000LL));
    int rc = json_dump_file(g, file, JSON_INDENT(2));
    json_decref(g);
    return rc;
}

static void test_timeslices(void)
{
    char path[4200], got[256];
    snprintf(path, sizeof path, "%s/slices.db", scratch);
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    CHECK_INT(write_run("plain", NULL, -1, 1), 0);
    CHECK_INT(store_test_ingest(db, scratch, "plain", NULL, &err), 0);
    store_test_q1(db, "SELECT COUNT(*) FROM job_timeslices", got, sizeof got);
    CHECK_STR(got, "0"); /* no flag: no rows */

    CHECK_INT(write_run("sliced", two_slices(), 0.5, 2), 0);
    CHECK_INT(store_test_ingest(db, scratch, "sliced", NULL, &err), 0);
    store_test_q1(db, "SELECT COUNT(*) || '/' || SUM(requests) || '/' || SUM(completed) || '/' || SUM(failures) "
                      "FROM job_timeslices WHERE job_id = 2", got, sizeof got);
    CHECK_STR(got, "2/6/4/2");
    store_test_q1(db, "SELECT duration_s || '/' || origin_wall_ns || '/' || start_s || '/' || ttft_p50_ms || '/' || "
                      "latency_p99_ms FROM job_timeslices WHERE slice_index = 0", got, sizeof got);
    CHECK_STR(got, "0.5/1700000000000000000/0.0/20.5/150.0");
    store_test_q1(db, "SELECT (ttft_p50_ms IS NULL) || '/' || end_s FROM job_timeslices WHERE slice_index = 1", got,
                  sizeof got);
    CHECK_STR(got, "1/0.75");

    /* rejections name the field; the store keeps 2 jobs and 2 slice rows */
    static const struct {
        const char *key, *val, *msg;
    } bad[] = {
        {"completed", "3", "field 'timeslices[1]': completed (3) + failures (1) is not requests (1)"},
        {"index", "0", "field 'timeslices[1].index': index 0 given twice"},
        {"end_s", "0.25", "field 'timeslices[1]': start_s and end_s must be seconds with start_s <= end_s"},
        {"requests", "\"one\"", "field 'timeslices[1].requests': expected an integer, got a string"},
        {"ttft_p50_ms", "-1", "field 'timeslices[1].ttft_p50_ms': -1 is negative"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *ts = two_slices();
        json_object_set_new(json_array_get(ts, 1), bad[i].key, json_loads(bad[i].val, JSON_DECODE_ANY, NULL));
        char name[32];
        snprintf(name, sizeof name, "bad%zu", i);
        CHECK_INT(write_run(name, ts, 0.5, 3 + (int)i), 0);
        gp_err_clear(&err);
        CHECK(store_test_ingest(db, scratch, name, NULL, &err) < 0);
        if (!strstr(err.msg, bad[i].msg))
            fprintf(stderr, "  want: %s\n  got:  %s\n", bad[i].msg, err.msg);
        CHECK(strstr(err.msg, bad[i].msg) != NULL);
    }
    /* slices without their length */
    CHECK_INT(write_run("nodur", two_slices(), -1, 9), 0);
    gp_err_clear(&err);
    CHECK(store_test_ingest(db, scratch, "nodur", NULL, &err) < 0);
    CHECK(strstr(err.msg, "field 'timeslice_duration_s': expected seconds > 0 beside 'timeslices'") != NULL);
    store_test_q1(db, "SELECT (SELECT COUNT(*) FROM jobs) || '/' || (SELECT COUNT(*) FROM job_timeslices)", got,
                  sizeof got);
    CHECK_STR(got, "2/2");
    gp_db_close(db);
}

int main(void)
{
    if (!gp_test_mkdtemp(scratch, sizeof scratch, "gp-store-slices")) {
        perror("mkdtemp");
        return 1;
    }
    GP_RUN(test_timeslices);
    gp_test_rmtree(scratch);
    return gp_test_summary();
}
