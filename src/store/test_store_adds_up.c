/* store/test_store_adds_up.c — unit tests of ingest's cross-file checks
 * (issue 40 item 2, store/ingest_checks.c), each on a copy of the fixture
 * run changed one way: refused (exit non-zero, nothing written) for a
 * statistic with min > avg or avg > max, a count beyond the measured
 * requests, more measured records than the summary counts; stored but
 * marked incomplete, naming what is missing, for a set without its CSV and
 * telemetry (where _genperf.json says it sampled), a records file with
 * fewer rows than the summary's requests, and a repeat aggregate that
 * averages a run that is not there. Runs from the repo root; scratch goes
 * to $TMPDIR or /tmp.
 */
#include "core/test.h"

#include "core/error.h"
#include "core/fsutil.h"
#include "store/db.h"
#include "store/store.h"
#include "store/test_store_util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[4096];
static int pad; /* each copy a new job to the store's checksum */

#define RUN "m-openai-chat-concurrency2"

/* scratch/name/RUN: the fixture set whose _genperf.json has key = v. */
static int copy(const char *name, const char *key, json_t *v)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", scratch, name);
    return store_test_copy_run(dir, ++pad, key, v);
}

/* Sets stat of metric in scratch/name/RUN/profile_export_genai_perf.json. */
static int set_stat(const char *name, const char *metric, const char *stat, double v)
{
    char file[4400];
    snprintf(file, sizeof file, "%s/%s/" RUN "/profile_export_genai_perf.json", scratch, name);
    json_t *g = json_load_file(file, JSON_PRESERVE_ORDER, NULL);
    if (!g)
        return -1;
    json_object_set_new(json_object_get(g, metric), stat, json_real(v));
    int r = json_dump_file(g, file, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(g);
    return r;
}

static void rm(const char *name, const char *file)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s/" RUN "/%s", scratch, name, file);
    unlink(path);
}

static struct gp_db *open_db(const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.db", scratch, name);
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    return db;
}

/* ingest of scratch/name refused with a message holding want; no job. */
static void refused(struct gp_db *db, const char *name, const char *want)
{
    struct gp_error err = {0};
    struct gp_ingest_result res;
    char got[64];
    CHECK(store_test_ingest(db, scratch, name, &res, &err) < 0);
    CHECK(strstr(err.msg, want) != NULL);
    if (!strstr(err.msg, want))
        fprintf(stderr, "  %s: got '%s'\n", name, err.msg);
    CHECK_INT((int)res.jobs_rejected, 1);
    gp_ingest_result_free(&res);
    store_test_q1(db, "SELECT COUNT(*) FROM jobs", got, sizeof got);
    CHECK_STR(got, "0");
}

static void test_refused(void)
{
    struct gp_db *db = open_db("refused");
    if (!db)
        return;
    CHECK_INT(copy("minavg", NULL, NULL), 0);
    CHECK_INT(set_stat("minavg", "time_to_first_token", "min", 11.0), 0);
    refused(db, "minavg", "field 'time_to_first_token': min 11 above avg 10.5745");

    CHECK_INT(copy("avgmax", NULL, NULL), 0);
    CHECK_INT(set_stat("avgmax", "request_latency", "avg", 1e9), 0);
    refused(db, "avgmax", "field 'request_latency': max");

    json_t *req = json_pack("{s:i, s:i, s:i, s:i, s:i}", "measured", 8, "ok", 8, "failed", 0, "counted", 12, "sent", 10);
    CHECK_INT(copy("counted", "requests", req), 0);
    refused(db, "counted", "field 'requests.counted': 12 is more than the 8 measured requests");

    CHECK_INT(copy("rc", NULL, NULL), 0);
    CHECK_INT(set_stat("rc", "request_count", "avg", 9), 0);
    refused(db, "rc", "field 'request_count': 9 is more than the 8 requests");

    json_t *fail = json_pack("{s:i, s:i}", "transport", 5, "http", 6);
    CHECK_INT(copy("failures", "failures", fail), 0);
    refused(db, "failures", "field 'failures': its counts add up to 11, more than the 8 measured");
    gp_db_close(db);
}

/* The fixture's records with its measured line `drop` (0-based among the
 * non-warmup lines) left out, or with that line written twice under a new
 * request_index (dup). */
static int edit_records(const char *name, int drop, int dup)
{
    char file[4400];
    snprintf(file, sizeof file, "%s/%s/" RUN "/profile_export_records.jsonl", scratch, name);
    char *text;
    struct gp_error err = {0};
    if (gp_read_file(file, &text, NULL, &err))
        return -1;
    FILE *fp = fopen(file, "w");
    int measured = 0;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        int warm = strstr(line, "\"warmup\":true") != NULL;
        if (!warm && measured++ == drop) {
            if (dup) {
                json_t *o = json_loads(line, 0, NULL);
                json_object_set_new(o, "request_index", json_integer(999));
                char *s = json_dumps(o, JSON_COMPACT);
                fprintf(fp, "%s\n%s\n", line, s);
                free(s);
                json_decref(o);
            }
            continue;
        }
        fprintf(fp, "%s\n", line);
    }
    free(text);
    return fclose(fp);
}

static void test_more_records_refused(void)
{
    struct gp_db *db = open_db("morerecs");
    if (!db)
        return;
    CHECK_INT(copy("morerecs", NULL, NULL), 0);
    CHECK_INT(edit_records("morerecs", 2, 1), 0);
    refused(db, "morerecs", "9 measured records, more than the 8 requests");
    gp_db_close(db);
}

static void test_marked(void)
{
    struct gp_db *db = open_db("marked");
    if (!db)
        return;
    struct gp_error err = {0};
    struct gp_ingest_result res;
    char got[2048];

    /* the run could not write its CSV and telemetry; _genperf.json says it sampled 10 times */
    CHECK_INT(copy("nofiles", "telemetry", json_pack("{s:i, s:f}", "samples", 10, "interval_s", 0.5)), 0);
    rm("nofiles", "profile_export_genai_perf.csv");
    CHECK_INT(store_test_ingest(db, scratch, "nofiles", &res, &err), 0);
    CHECK(res.messages.data && strstr(res.messages.data, "marked incomplete") != NULL);
    gp_ingest_result_free(&res);
    store_test_q1(db, "SELECT status FROM v_jobs", got, sizeof got);
    CHECK_STR(got, "incomplete");
    store_test_q1(db, "SELECT incomplete FROM jobs", got, sizeof got);
    CHECK(strstr(got, "nofiles/" RUN "/profile_export_genai_perf.csv is missing") != NULL);
    CHECK(strstr(got, "nofiles/" RUN "/profile_export_telemetry.jsonl is missing") != NULL);
    CHECK(strstr(got, "says 10 telemetry samples") != NULL);

    /* a records file with a measured row fewer than the summary's 8 */
    CHECK_INT(copy("fewer", NULL, NULL), 0);
    CHECK_INT(edit_records("fewer", 3, 0), 0);
    CHECK_INT(store_test_ingest(db, scratch, "fewer", NULL, &err), 0);
    store_test_q1(db, "SELECT incomplete FROM jobs ORDER BY id DESC LIMIT 1", got, sizeof got);
    CHECK(strstr(got, "fewer/" RUN "/profile_export_records.jsonl holds 7 measured records") != NULL);
    CHECK(strstr(got, "counts 8") != NULL);

    /* a repeat aggregate that averaged run_2, which is not there */
    CHECK_INT(copy("rep/run_1", NULL, NULL), 0);
    char agg[4300];
    snprintf(agg, sizeof agg, "%s/rep/profile_export_genperf_aggregate.json", scratch);
    const char *aj = "{\"runs_asked\": 2, \"runs_made\": 2, \"runs\": 2, \"failed_runs\": [], \"run_directories\": "
                     "[\"elsewhere/rep/run_1/" RUN "\", \"elsewhere/rep/run_2/" RUN "\"]}\n";
    CHECK_INT(gp_write_file_atomic(agg, aj, strlen(aj), &err), 0);
    CHECK_INT(store_test_ingest(db, scratch, "rep", NULL, &err), 0);
    store_test_q1(db, "SELECT incomplete FROM jobs ORDER BY id DESC LIMIT 1", got, sizeof got);
    CHECK(strstr(got, "averages ") != NULL && strstr(got, "rep/run_2/" RUN ", which is not there") != NULL);
    CHECK(strstr(got, "run_1/" RUN ",") == NULL);

    /* the whole set is whole */
    CHECK_INT(copy("whole", NULL, NULL), 0);
    CHECK_INT(store_test_ingest(db, scratch, "whole", NULL, &err), 0);
    store_test_q1(db, "SELECT COALESCE(incomplete, 'whole') || '/' || status FROM v_jobs ORDER BY job_id DESC LIMIT 1",
                  got, sizeof got);
    CHECK_STR(got, "whole/completed");
    gp_db_close(db);
}

int main(void)
{
    if (!gp_test_mkdtemp(scratch, sizeof scratch, "gp-store-addsup")) {
        perror("mkdtemp");
        return 1;
    }
    GP_RUN(test_refused);
    GP_RUN(test_more_records_refused);
    GP_RUN(test_marked);
    gp_test_rmtree(scratch);
    return gp_test_summary();
}
