/* store/test_store_interrupted.c — unit tests of jobs.interrupted (migration
 * 7) on SQLite: a run whose _genperf.json says "interrupted": true is stored
 * with interrupted = 1 and v_jobs.status 'interrupted' (jobs.status keeps the
 * request outcome), a non-boolean value is a rejection naming the field, and
 * a store written before migration 7 learns the flag from genperf_summary.
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

/* A copy of the fixture run in scratch/name whose _genperf.json has
 * "interrupted" set to v (taken; NULL: left out) and whose _genai_perf.json
 * ends in `pad` spaces. */
static int write_run(const char *name, json_t *v, int pad)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", scratch, name);
    return store_test_copy_run(dir, pad, "interrupted", v);
}


static void test_interrupted_flag(void)
{
    char path[4200], got[256];
    snprintf(path, sizeof path, "%s/interrupted.db", scratch);
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    CHECK_INT(write_run("plain", NULL, 1), 0);
    CHECK_INT(write_run("stopped", json_true(), 2), 0);
    CHECK_INT(write_run("finished", json_false(), 3), 0);
    CHECK_INT(store_test_ingest(db, scratch, "plain", NULL, &err), 0);
    CHECK_INT(store_test_ingest(db, scratch, "stopped", NULL, &err), 0);
    CHECK_INT(store_test_ingest(db, scratch, "finished", NULL, &err), 0);
    store_test_q1(db, "SELECT group_concat(s, ' ') FROM (SELECT j.interrupted || '/' || j.status || '/' || v.status AS s "
           "FROM jobs j JOIN v_jobs v ON v.job_id = j.id ORDER BY j.id)", got, sizeof got);
    CHECK_STR(got, "0/completed/completed 1/completed/interrupted 0/completed/completed");
    store_test_q1(db, "SELECT interrupted FROM v_jobs WHERE status = 'interrupted'", got, sizeof got);
    CHECK_STR(got, "1");

    /* not a boolean: the job is rejected with the field named, nothing written */
    CHECK_INT(write_run("bad", json_string("yes"), 4), 0);
    CHECK(store_test_ingest(db, scratch, "bad", NULL, &err) < 0);
    CHECK(strstr(err.msg, "field 'interrupted': expected true or false, got a string") != NULL);
    store_test_q1(db, "SELECT COUNT(*) FROM jobs", got, sizeof got);
    CHECK_STR(got, "3");

    /* A store from before migration 7: drop what it and the later ones
     * added (8: job_timeslices, 9: job_models, 10: v_energy_cost, 11: the repeat group tables and view,
     * 12: jobs.incomplete, 13: jobs.trace_file/trace_speedup), forget
     * they ran, and open again; the flag
     * comes back from genperf_summary. */
    struct gp_error e2 = {0};
    CHECK_INT(gp_db_exec(db, "DROP VIEW v_repeat_groups; DROP TABLE repeat_group_stats; DROP TABLE repeat_group_jobs; "
                             "DROP TABLE repeat_groups; ALTER TABLE jobs DROP COLUMN trace_file; "
                             "ALTER TABLE jobs DROP COLUMN trace_speedup; "
                             "DROP VIEW v_energy_cost; DROP VIEW v_model_breakdown; DROP TABLE job_models; "
                             "DROP VIEW v_jobs; ALTER TABLE jobs DROP COLUMN incomplete; "
                             "ALTER TABLE jobs DROP COLUMN interrupted; DROP TABLE job_timeslices; "
                             "DELETE FROM schema_migrations WHERE version >= 7",
                         &e2),
              0);
    gp_db_close(db);
    db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    store_test_q1(db, "SELECT group_concat(s, ' ') FROM (SELECT interrupted || '/' || status AS s FROM v_jobs ORDER BY job_id)",
                  got, sizeof got);
    CHECK_STR(got, "0/completed 1/interrupted 0/completed");
    store_test_q1(db, "SELECT COUNT(*) FROM schema_migrations", got, sizeof got);
    CHECK_STR(got, "13");
    gp_db_close(db);
}

int main(void)
{
    if (!gp_test_mkdtemp(scratch, sizeof scratch, "gp-store-intr")) {
        perror("mkdtemp");
        return 1;
    }
    GP_RUN(test_interrupted_flag);
    gp_test_rmtree(scratch);
    return gp_test_summary();
}
