/* store/test_store_values.c — unit tests of the ingest's value checks
 * (issue 26 item 9): a negative concurrency or request count, a negative
 * metric in _genai_perf.json or .csv, a negative or reversed time in the
 * records or the profile export is a rejection naming the file and the
 * field, and nothing is stored. Runs from the repo root (tests/fixtures/);
 * scratch goes to $TMPDIR or /tmp.
 */
#include "core/test.h"

#include "core/buf.h"
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
static int npad;

static void run_file(const char *name, const char *file, char *out, size_t n)
{
    snprintf(out, n, "%s/%s/m-openai-chat-concurrency2/%s", scratch, name, file);
}

/* scratch/name: a fresh copy of the fixture run (a new job each time). */
static int copy_run(const char *name)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", scratch, name);
    return store_test_copy_run(dir, ++npad, "genperf_version", NULL);
}

/* The first `from` in the file becomes `to`. 0 or -1 (not found). */
static int edit_text(const char *path, const char *from, const char *to)
{
    char *text;
    size_t len;
    struct gp_error err = {0};
    if (gp_read_file(path, &text, &len, &err))
        return -1;
    char *at = strstr(text, from);
    int r = -1;
    if (at) {
        struct gp_buf b = {0};
        gp_buf_append(&b, text, (size_t)(at - text));
        gp_buf_puts(&b, to);
        gp_buf_puts(&b, at + strlen(from));
        r = gp_write_file_atomic(path, b.data, b.len, &err);
        gp_buf_free(&b);
    }
    free(text);
    return r;
}

/* obj[key] (obj = the file's root, or root[parent]) becomes v (taken). */
static int edit_json(const char *path, const char *parent, const char *key, json_t *v)
{
    json_t *root = json_load_file(path, JSON_PRESERVE_ORDER, NULL);
    json_t *o = root && parent ? json_object_get(root, parent) : root;
    int r = -1;
    if (json_is_object(o) && !json_object_set_new(o, key, v))
        r = json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    else
        json_decref(v);
    json_decref(root);
    return r;
}


/* ingest refuses scratch/name with a message holding file and want */
static void expect_reject(struct gp_db *db, const char *name, const char *file, const char *want)
{
    struct gp_error err = {0};
    CHECK(store_test_ingest(db, scratch, name, NULL, &err) < 0);
    char path[4400], msg[4800];
    run_file(name, file, path, sizeof path);
    snprintf(msg, sizeof msg, "%s: %s", path, want);
    if (!strstr(err.msg, msg))
        fprintf(stderr, "      want: %s\n      got:  %s\n", msg, err.msg);
    CHECK(strstr(err.msg, msg) != NULL);
}

static void test_negative_values(void)
{
    char path[4400], got[64];
    snprintf(path, sizeof path, "%s/values.db", scratch);
    unlink(path);
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    CHECK_INT(gp_db_open(path, &db, &err), 0);
    if (!db)
        return;
    const char *gj = "profile_export_genai_perf.json";

    CHECK_INT(copy_run("conc"), 0);
    run_file("conc", gj, path, sizeof path);
    CHECK_INT(edit_text(path, "\"concurrency\": 2", "\"concurrency\": -1"), 0);
    expect_reject(db, "conc", gj, "field 'input_config.perf_analyzer.stimulus.concurrency': -1 is negative");

    CHECK_INT(copy_run("ttft"), 0);
    run_file("ttft", gj, path, sizeof path);
    CHECK_INT(edit_json(path, "time_to_first_token", "avg", json_real(-3.5)), 0);
    expect_reject(db, "ttft", gj, "field 'time_to_first_token.avg': -3.5 is negative");

    CHECK_INT(copy_run("count"), 0);
    run_file("count", gj, path, sizeof path);
    CHECK_INT(edit_json(path, "request_count", "avg", json_integer(-10)), 0);
    expect_reject(db, "count", gj, "field 'request_count.avg': -10 is negative");

    CHECK_INT(copy_run("summary"), 0);
    run_file("summary", "profile_export_genperf.json", path, sizeof path);
    CHECK_INT(edit_text(path, "\"ok\": 8,", "\"ok\": -8,"), 0);
    expect_reject(db, "summary", "profile_export_genperf.json", "field 'requests.ok': -8 is negative");

    const char *rj = "profile_export_records.jsonl";
    CHECK_INT(copy_run("recttft"), 0);
    run_file("recttft", rj, path, sizeof path);
    CHECK_INT(edit_text(path, "\"ttft_ns\":null", "\"ttft_ns\":-5"), 0);
    expect_reject(db, "recttft", rj, "field 'line 1: ttft_ns': -5 is negative");

    CHECK_INT(copy_run("recrev"), 0);
    run_file("recrev", rj, path, sizeof path);
    CHECK_INT(edit_text(path, "\"t_end_ns\":1796221412163415395", "\"t_end_ns\":1796221412000000000"), 0);
    expect_reject(db, "recrev", rj, "field 'line 1: t_end_ns': 1796221412000000000 is before t_start_ns");

    /* perf_analyzer's export beside the summary: the checks process-export-files makes */
    CHECK_INT(copy_run("export"), 0);
    char *text;
    size_t len;
    CHECK_INT(gp_read_file(STORE_FIXTURE "/profile_export.json", &text, &len, &err), 0);
    run_file("export", "profile_export.json", path, sizeof path);
    CHECK_INT(gp_write_file_atomic(path, text, len, &err), 0);
    free(text);
    json_t *pe = json_load_file(path, JSON_PRESERVE_ORDER, NULL);
    json_t *rq = json_array_get(json_object_get(json_array_get(json_object_get(pe, "experiments"), 0), "requests"), 1);
    CHECK(json_is_object(rq));
    json_object_set_new(rq, "timestamp", json_integer(-1));
    CHECK_INT(json_dump_file(pe, path, JSON_COMPACT), 0);
    json_decref(pe);
    expect_reject(db, "export", "profile_export.json", "field 'experiments[0].requests[1].timestamp': -1 is negative");

    /* a GenAI-Perf CSV alone */
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/csv/m-openai-chat-concurrency2", scratch);
    CHECK_INT(gp_mkdir_p(dir, &err), 0);
    CHECK_INT(gp_read_file(STORE_FIXTURE "/profile_export_genai_perf.csv", &text, &len, &err), 0);
    run_file("csv", "profile_export_genai_perf.csv", path, sizeof path);
    CHECK_INT(gp_write_file_atomic(path, text, len, &err), 0);
    free(text);
    CHECK_INT(edit_text(path, "Time To First Token (ms),10.57,", "Time To First Token (ms),-10.57,"), 0);
    expect_reject(db, "csv", "profile_export_genai_perf.csv",
                  "line 2: field 'avg' of 'Time To First Token (ms)': -10.57 is negative");

    store_test_q1(db, "SELECT COUNT(*) FROM jobs", got, sizeof got);
    CHECK_STR(got, "0");
    /* the fixture as it is still ingests */
    CHECK_INT(copy_run("whole"), 0);
    CHECK_INT(store_test_ingest(db, scratch, "whole", NULL, &err), 0);
    store_test_q1(db, "SELECT COUNT(*) FROM jobs", got, sizeof got);
    CHECK_STR(got, "1");
    gp_db_close(db);
}

int main(void)
{
    if (!gp_test_mkdtemp(scratch, sizeof scratch, "gp-store-values")) {
        perror("mkdtemp");
        return 1;
    }
    GP_RUN(test_negative_values);
    gp_test_rmtree(scratch);
    return gp_test_summary();
}
