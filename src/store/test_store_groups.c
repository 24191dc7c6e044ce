/* store/test_store_groups.c — unit tests of repeat groups (migration 11) on
 * SQLite: the runs of one RUN_DIR/run_K/<run>/ layout become one group whose
 * statistics are the mean, stddev, Student-t 95% interval and CV of the
 * runs' values; ingesting again changes nothing; run_1 ingested alone makes
 * a group of one (no interval) that the later runs join; a run outside a
 * run_K directory, or in one not named run_<number>, is in no group; the
 * aggregate file beside the runs is recorded.
 * Runs from the repo root (tests/fixtures/); scratch goes to $TMPDIR or /tmp.
 */
#include "core/test.h"

#include "core/error.h"
#include "core/fsutil.h"
#include "store/db.h"
#include "store/store.h"
#include "store/test_store_util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[4096];

/* scratch/rel: a copy of the fixture run (as m-openai-chat-concurrency2)
 * whose time_to_first_token avg is ttft and request_throughput avg rps. */
static int write_run(const char *rel, double ttft, double rps)
{
    char dir[4200], file[4400];
    snprintf(dir, sizeof dir, "%s/%s", scratch, rel);
    if (store_test_copy_run(dir, 0, NULL, NULL))
        return -1;
    snprintf(file, sizeof file, "%s/m-openai-chat-concurrency2/profile_export_genai_perf.json", dir);
    json_t *g = json_load_file(file, JSON_PRESERVE_ORDER, NULL);
    if (!g)
        return -1;
    json_t *t = json_object_get(g, "time_to_first_token");
    json_object_set_new(t, "avg", json_real(ttft));
    /* ingest refuses a min above or a max below the avg (issue 40 item 2) */
    json_object_set_new(t, "min", json_real(fmin(ttft, json_number_value(json_object_get(t, "min")))));
    json_object_set_new(t, "max", json_real(fmax(ttft, json_number_value(json_object_get(t, "max")))));
    json_object_set_new(json_object_get(g, "request_throughput"), "avg", json_real(rps));
    int r = json_dump_file(g, file, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
    json_decref(g);
    return r;
}

static double q_double(struct gp_db *db, const char *sql)
{
    char got[128];
    store_test_q1(db, sql, got, sizeof got);
    return strcmp(got, "(null)") && got[0] ? strtod(got, NULL) : NAN;
}

static void test_num_runs_group(void)
{
    char path[4200], got[512];
    snprintf(path, sizeof path, "%s/groups.db", scratch);
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    CHECK_INT(write_run("rep/run_1", 10.0, 4.0), 0);
    CHECK_INT(write_run("rep/run_2", 12.0, 4.0), 0);
    CHECK_INT(write_run("rep/run_3", 14.0, 4.0), 0);
    char agg[4300];
    snprintf(agg, sizeof agg, "%s/rep/profile_export_genperf_aggregate.json", scratch);
    CHECK_INT(gp_write_file_atomic(agg, "{}\n", 3, &err), 0);
    struct gp_ingest_result res;
    CHECK_INT(store_test_ingest(db, scratch, "rep", &res, &err), 0);
    CHECK(res.messages.data && strstr(res.messages.data, "; run 3 of repeat group 1") != NULL);
    gp_ingest_result_free(&res);
    store_test_q1(db, "SELECT COUNT(*) || '/' || MIN(n_runs) || '/' || MIN(label) FROM repeat_groups", got, sizeof got);
    CHECK_STR(got, "1/3/rep");
    store_test_q1(db, "SELECT group_concat(x, ' ') FROM (SELECT job_id || ':' || group_id || ':' || repeat_index AS x "
                      "FROM repeat_group_jobs ORDER BY job_id)", got, sizeof got);
    CHECK_STR(got, "1:1:1 2:1:2 3:1:3");
    store_test_q1(db, "SELECT aggregate_file FROM repeat_groups", got, sizeof got);
    CHECK(strstr(got, "/rep/profile_export_genperf_aggregate.json") != NULL);
    /* 10, 12, 14: mean 12, stddev 2, t(0.975, 2) = 4.302652729911275 */
    const char *w = " FROM v_repeat_groups WHERE metric = 'time_to_first_token' AND stat = 'avg'";
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT mean%s", w);
    CHECK(fabs(q_double(db, sql) - 12.0) < 1e-12);
    snprintf(sql, sizeof sql, "SELECT stddev%s", w);
    CHECK(fabs(q_double(db, sql) - 2.0) < 1e-12);
    double half = 4.302652729911275 * 2.0 / sqrt(3.0);
    snprintf(sql, sizeof sql, "SELECT ci95_low%s", w);
    CHECK(fabs(q_double(db, sql) - (12.0 - half)) < 1e-7);
    snprintf(sql, sizeof sql, "SELECT ci95_high%s", w);
    CHECK(fabs(q_double(db, sql) - (12.0 + half)) < 1e-7);
    snprintf(sql, sizeof sql, "SELECT ci95_half_width%s", w);
    CHECK(fabs(q_double(db, sql) - half) < 1e-7);
    snprintf(sql, sizeof sql, "SELECT cv%s", w);
    CHECK(fabs(q_double(db, sql) - 2.0 / 12.0) < 1e-12);
    /* the same in every run: stddev 0, a zero-width interval */
    CHECK(fabs(q_double(db, "SELECT ci95_half_width FROM v_repeat_groups WHERE metric = 'request_throughput' "
                            "AND stat = 'avg'")) < 1e-12);
    store_test_q1(db, "SELECT COUNT(*) FROM repeat_group_stats", got, sizeof got);
    char nstats[32];
    snprintf(nstats, sizeof nstats, "%s", got);
    CHECK(atoi(nstats) > 50);

    /* again: the jobs exist, so nothing changes (the group neither) */
    CHECK_INT(store_test_ingest(db, scratch, "rep", &res, &err), 0);
    CHECK_INT((int)res.jobs_existing, 3);
    gp_ingest_result_free(&res);
    store_test_q1(db, "SELECT COUNT(*) || '/' || SUM(n_runs) FROM repeat_groups", got, sizeof got);
    CHECK_STR(got, "1/3");
    store_test_q1(db, "SELECT COUNT(*) FROM repeat_group_stats", got, sizeof got);
    CHECK_STR(got, nstats);
    gp_db_close(db);
}

static void test_one_run_then_the_rest(void)
{
    char path[4200], got[512];
    snprintf(path, sizeof path, "%s/groups2.db", scratch);
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    CHECK_INT(write_run("later/run_1", 20.0, 5.0), 0);
    CHECK_INT(write_run("later/run_2", 30.0, 6.0), 0);
    CHECK_INT(write_run("plain", 25.0, 5.0), 0);
    CHECK_INT(write_run("odd/run_x", 26.0, 5.0), 0);
    CHECK_INT(write_run("odd/run_07", 27.0, 5.0), 0);
    /* run_1 alone (its run directory given): a group of one, no interval yet */
    CHECK_INT(store_test_ingest(db, scratch, "later/run_1/m-openai-chat-concurrency2", NULL, &err), 0);
    store_test_q1(db, "SELECT n_runs || '/' || COALESCE(aggregate_file, 'none') FROM repeat_groups", got, sizeof got);
    CHECK_STR(got, "1/none");
    store_test_q1(db, "SELECT COALESCE(ci95_low, 'null') || '/' || mean FROM v_repeat_groups WHERE metric = "
                      "'time_to_first_token' AND stat = 'avg'", got, sizeof got);
    CHECK_STR(got, "null/20.0");
    /* then the whole directory: run_2 joins the same group */
    CHECK_INT(store_test_ingest(db, scratch, "later", NULL, &err), 0);
    store_test_q1(db, "SELECT COUNT(*) || '/' || MIN(n_runs) FROM repeat_groups", got, sizeof got);
    CHECK_STR(got, "1/2");
    CHECK(fabs(q_double(db, "SELECT mean FROM v_repeat_groups WHERE metric = 'time_to_first_token' AND stat = 'avg'") -
               25.0) < 1e-12);
    /* not a repeat layout: jobs, but no group */
    CHECK_INT(store_test_ingest(db, scratch, "plain", NULL, &err), 0);
    CHECK_INT(store_test_ingest(db, scratch, "odd", NULL, &err), 0);
    store_test_q1(db, "SELECT COUNT(*) || '/' || (SELECT COUNT(*) FROM repeat_group_jobs) FROM jobs", got, sizeof got);
    CHECK_STR(got, "5/2");
    gp_db_close(db);
}

int main(void)
{
    if (!gp_test_mkdtemp(scratch, sizeof scratch, "gp-store-groups")) {
        perror("mkdtemp");
        return 1;
    }
    GP_RUN(test_num_runs_group);
    GP_RUN(test_one_run_then_the_rest);
    gp_test_rmtree(scratch);
    return gp_test_summary();
}
