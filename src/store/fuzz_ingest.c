/* store/fuzz_ingest.c — libFuzzer target: arbitrary bytes as a
 * *_genai_perf.json (first byte even) or *_genai_perf.csv (odd) through the
 * whole validate-and-write path into an in-memory SQLite store. Any input
 * must end in a clean rejection or a committed job, never a crash or leak.
 *
 * Build: make fuzz-store   (clang -fsanitize=fuzzer,address,undefined)
 * Run:   build/fuzz/store_ingest -max_total_time=60 tests/fixtures/genai-perf
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* one scratch dir and one in-memory database per process: the target is
     * the parser and the writer, not migrations */
    static char dir[256];
    static struct gp_db *db;
    struct gp_error err = {0};
    if (!db) {
        snprintf(dir, sizeof dir, "/tmp/gp-fuzz-store.%ld/run-openai-chat-concurrency1", (long)getpid());
        if (gp_mkdir_p(dir, &err) || gp_db_open(":memory:", &db, &err))
            abort();
    }
    char path[512], other[512];
    int csv = size > 0 && (data[0] & 1);
    snprintf(path, sizeof path, "%s/f_genai_perf.%s", dir, csv ? "csv" : "json");
    snprintf(other, sizeof other, "%s/f_genai_perf.%s", dir, csv ? "json" : "csv");
    unlink(other);
    if (gp_write_file_atomic(path, data, size, &err))
        return 0;
    struct gp_ingest_result res = {0};
    gp_store_ingest_dir(db, dir, NULL, &res, &err);
    gp_ingest_result_free(&res);
    return 0;
}
