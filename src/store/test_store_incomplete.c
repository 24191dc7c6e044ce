/* store/test_store_incomplete.c — unit tests of the ingest's answer to an
 * incomplete genperf set (issue 26 item 8: a run on a full disk): a
 * _genperf.json without its _records.jsonl, records without the
 * _genperf.json, and a _genperf.json without the summary beside it are each
 * rejected with the missing file named, and nothing is written; the whole
 * set still ingests. Runs from the repo root (tests/fixtures/); scratch goes
 * to $TMPDIR or /tmp.
 */
#include "core/test.h"

#include "core/error.h"
#include "store/db.h"
#include "store/store.h"
#include "store/test_store_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[4096];

/* scratch/name: the fixture run with `drop` (a file name) removed, or whole. */
static int write_run(const char *name, const char *drop, int pad)
{
    char dir[4200], file[4400];
    snprintf(dir, sizeof dir, "%s/%s", scratch, name);
    if (store_test_copy_run(dir, pad, "genperf_version", NULL))
        return -1;
    if (!drop)
        return 0;
    snprintf(file, sizeof file, "%s/m-openai-chat-concurrency2/%s", dir, drop);
    return unlink(file);
}


static void test_incomplete_sets(void)
{
    char path[4200], got[256];
    snprintf(path, sizeof path, "%s/incomplete.db", scratch);
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    struct gp_ingest_result res;

    /* the records could not be written: the summary's 8 requests have no rows */
    CHECK_INT(write_run("norecords", "profile_export_records.jsonl", 1), 0);
    CHECK(store_test_ingest(db, scratch, "norecords", &res, &err) < 0);
    CHECK(strstr(err.msg, "incomplete set") != NULL);
    CHECK(strstr(err.msg, "norecords/m-openai-chat-concurrency2/profile_export_records.jsonl is missing") != NULL);
    CHECK_INT((int)res.jobs_rejected, 1);
    gp_ingest_result_free(&res);

    /* the records without the _genperf.json */
    CHECK_INT(write_run("nosummary", "profile_export_genperf.json", 2), 0);
    CHECK(store_test_ingest(db, scratch, "nosummary", &res, &err) < 0);
    CHECK(strstr(err.msg, "nosummary/m-openai-chat-concurrency2/profile_export_genperf.json is missing") != NULL);
    gp_ingest_result_free(&res);

    /* what a run on a full disk now leaves: no _genai_perf.json at all; the
     * _genperf.json is rejected by name instead of passed over */
    CHECK_INT(write_run("nomain", "profile_export_genai_perf.json", 3), 0);
    snprintf(path, sizeof path, "%s/nomain/m-openai-chat-concurrency2/profile_export_genai_perf.csv", scratch);
    CHECK_INT(unlink(path), 0); /* written with the summary, after everything else */
    snprintf(path, sizeof path, "%s/nomain", scratch);
    CHECK_INT((int)gp_store_count_jobs(path), 1);
    CHECK(store_test_ingest(db, scratch, "nomain", &res, &err) < 0);
    CHECK(strstr(err.msg, "profile_export_genperf.json: incomplete set: no profile_export_genai_perf.json beside it") !=
          NULL);
    CHECK_INT((int)res.jobs_found, 1);
    CHECK_INT((int)res.jobs_rejected, 1);
    gp_ingest_result_free(&res);

    store_test_q1(db, "SELECT COUNT(*) FROM jobs", got, sizeof got);
    CHECK_STR(got, "0");

    /* the whole set still ingests, with its request rows */
    CHECK_INT(write_run("whole", NULL, 4), 0);
    CHECK_INT(store_test_ingest(db, scratch, "whole", &res, &err), 0);
    CHECK_INT((int)res.jobs_added, 1);
    gp_ingest_result_free(&res);
    store_test_q1(db, "SELECT status || '/' || requests_ok FROM jobs", got, sizeof got);
    CHECK_STR(got, "completed/8");
    gp_db_close(db);
}

int main(void)
{
    if (!gp_test_mkdtemp(scratch, sizeof scratch, "gp-store-incomplete")) {
        perror("mkdtemp");
        return 1;
    }
    GP_RUN(test_incomplete_sets);
    gp_test_rmtree(scratch);
    return gp_test_summary();
}
