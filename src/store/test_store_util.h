/* store/test_store_util.h — what the store's unit tests (test_store.c,
 * test_store_interrupted.c, test_store_incomplete.c, test_store_values.c,
 * test_store_timeslices.c)
 * share: a one-value query, a copy of the profile fixture run with one field
 * of its _genperf.json set, and the ingest of a run under a scratch folder. Test
 * binaries only; static inline so each test takes what it uses. Paths are
 * relative to the repo root, where the tests run.
 */
#ifndef GP_STORE_TEST_STORE_UTIL_H
#define GP_STORE_TEST_STORE_UTIL_H

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "store/db.h"
#include "store/store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_FIXTURE "tests/fixtures/genai-perf/genperf-profile/sim-model-openai-chat-concurrency2"

struct store_test_q1 {
    char *out;
    size_t n;
    int seen;
};

static inline int store_test_q1_cb(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    (void)ncols, (void)names;
    struct store_test_q1 *q = ctx;
    if (!q->seen++)
        snprintf(q->out, q->n, "%s", values[0] ? values[0] : "(null)");
    return 0;
}

/* One-row query -> its first column ("(null)" for NULL, "" for no row). */
static inline void store_test_q1(struct gp_db *db, const char *sql, char *out, size_t n)
{
    struct store_test_q1 q = {out, n, 0};
    struct gp_error err = {0};
    out[0] = '\0';
    if (gp_db_query(db, sql, NULL, 0, store_test_q1_cb, &q, &err))
        fprintf(stderr, "  %s: %s\n", sql, err.msg);
}

/* A copy of STORE_FIXTURE in dir/m-openai-chat-concurrency2 whose
 * _genai_perf.json ends in `pad` spaces (each copy a new job to the store's
 * checksum), with the fixture's records, and whose _genperf.json has `key`
 * set to v (taken; NULL: the file as it is). 0 or -1. */
static inline int store_test_copy_run(const char *dir, int pad, const char *key, json_t *v)
{
    char run[4300], file[4400];
    struct gp_error err = {0};
    snprintf(run, sizeof run, "%s/m-openai-chat-concurrency2", dir);
    char *text;
    size_t len;
    if (gp_mkdir_p(run, &err) || gp_read_file(STORE_FIXTURE "/profile_export_genai_perf.json", &text, &len, &err))
        return json_decref(v), -1;
    struct gp_buf b = {0};
    gp_buf_append(&b, text, len);
    for (int i = 0; i < pad; i++)
        gp_buf_putc(&b, ' ');
    snprintf(file, sizeof file, "%s/profile_export_genai_perf.json", run);
    int r = gp_write_file_atomic(file, b.data, b.len, &err);
    free(text);
    gp_buf_free(&b);
    /* the records and the CSV too: a _genperf.json without them is an
     * incomplete set (refused, or marked: ingest_checks.c) */
    static const char *const also[] = {"profile_export_records.jsonl", "profile_export_genai_perf.csv"};
    for (size_t i = 0; i < 2 && !r; i++) {
        char src[512];
        snprintf(src, sizeof src, "%s/%s", STORE_FIXTURE, also[i]);
        if (!(r = gp_read_file(src, &text, &len, &err))) {
            snprintf(file, sizeof file, "%s/%s", run, also[i]);
            r = gp_write_file_atomic(file, text, len, &err);
            free(text);
        }
    }
    json_t *g = json_load_file(STORE_FIXTURE "/profile_export_genperf.json", JSON_PRESERVE_ORDER, NULL);
    if (!g || r)
        return json_decref(g), json_decref(v), -1;
    if (v)
        json_object_set_new(g, key, v);
    snprintf(file, sizeof file, "%s/profile_export_genperf.json", run);
    r = json_dump_file(g, file, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(g);
    return r;
}

/* Ingests scratch/name (every run found under it). res NULL: the result is
 * freed here; otherwise the caller frees it (gp_ingest_result_free). */
static inline int store_test_ingest(struct gp_db *db, const char *scratch, const char *name,
                                    struct gp_ingest_result *res, struct gp_error *err)
{
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/%s", scratch, name);
    struct gp_ingest_result own = {0};
    struct gp_ingest_result *r = res ? res : &own;
    memset(r, 0, sizeof *r);
    int rc = gp_store_ingest_dir(db, dir, NULL, r, err);
    if (!res)
        gp_ingest_result_free(&own);
    return rc;
}

#endif
