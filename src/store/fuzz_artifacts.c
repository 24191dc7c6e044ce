/* store/fuzz_artifacts.c — libFuzzer target for every reader `genperf ingest`
 * runs on one job: the input is split on NUL bytes into up to six files,
 *   0  <stem>_genai_perf.json (when it starts with '{') or <stem>_genai_perf.csv
 *   1  <stem>.json            perf_analyzer profile export
 *   2  <stem>_records.jsonl   our per-request records
 *   3  <stem>_genperf.json    our summary
 *   4  <stem>_telemetry.jsonl our telemetry samples
 *   5  genperf_run.json       the runner's metadata, one directory up
 * (an empty part leaves that file out), then ingested twice through the
 * public store API: `--check` (validate only) and a real write into an
 * in-memory SQLite store. fuzz_ingest.c fuzzes the main artifact alone; this
 * one reaches the sibling readers and the cross-file checks.
 * Any input must end in a clean rejection or a committed job, never a crash
 * or leak. Build and run: make fuzz F=store. Seeds are made by
 * tests/fuzz/run.sh from tests/fixtures/genai-perf/.
 */
#include "core/error.h"
#include "core/fsutil.h"
#include "store/db.h"
#include "store/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPART 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* One scratch tree and one in-memory database per process, reopened now
     * and then so the committed jobs do not pile up over millions of runs. */
    static char top[128], run[256];
    static struct gp_db *db;
    static unsigned long iter;
    if (!top[0]) {
        snprintf(top, sizeof top, "/tmp/gp-fuzz-artifacts.%ld", (long)getpid());
        snprintf(run, sizeof run, "%s/m-openai-chat-concurrency1", top);
        if (gp_mkdir_p(run, NULL))
            abort();
    }
    if (!db || ++iter % 512 == 0) {
        gp_db_close(db);
        db = NULL;
        if (gp_db_open(":memory:", &db, NULL))
            abort();
    }

    const uint8_t *part[NPART] = {0};
    size_t len[NPART] = {0};
    size_t k = 0, start = 0;
    for (size_t i = 0; i <= size && k < NPART; i++) {
        if (i == size || data[i] == 0) {
            part[k] = data + start;
            len[k++] = i - start;
            start = i + 1;
        }
    }
    int csv = !(len[0] && part[0][0] == '{');
    char path[NPART][512];
    snprintf(path[0], sizeof path[0], "%s/p_genai_perf.%s", run, csv ? "csv" : "json");
    snprintf(path[1], sizeof path[1], "%s/p.json", run);
    snprintf(path[2], sizeof path[2], "%s/p_records.jsonl", run);
    snprintf(path[3], sizeof path[3], "%s/p_genperf.json", run);
    snprintf(path[4], sizeof path[4], "%s/p_telemetry.jsonl", run);
    snprintf(path[5], sizeof path[5], "%s/genperf_run.json", top);
    for (int i = 0; i < NPART; i++)
        if (len[i] && gp_write_file_atomic(path[i], part[i], len[i], NULL))
            len[i] = 0;

    struct gp_ingest_meta meta = GP_INGEST_META_INIT;
    meta.validate_only = 1;
    struct gp_ingest_result res = {0};
    struct gp_error err = {0};
    int rc_check = gp_store_ingest_dir(db, top, &meta, &res, &err);
    gp_ingest_result_free(&res);
    memset(&res, 0, sizeof res);
    int rc = gp_store_ingest_dir(db, top, NULL, &res, &err);
    /* --check promises exactly what the real ingest does */
    if ((rc_check == 0) != (rc == 0))
        abort();
    gp_ingest_result_free(&res);

    for (int i = 0; i < NPART; i++)
        unlink(path[i]);
    /* the other spelling of the main artifact, should a previous run have left it */
    snprintf(path[0], sizeof path[0], "%s/p_genai_perf.%s", run, csv ? "json" : "csv");
    unlink(path[0]);
    return 0;
}
