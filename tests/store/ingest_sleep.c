/* tests/store/ingest_sleep.c — the test-only genperf that can pause an
 * ingest inside its write transaction.
 *
 * Linked (src/store/module.mk) from genperf's own main and library with
 * -Wl,--wrap=ig_insert_records: every call the ingest makes to that step
 * comes here first. It runs after the job, scenario, metric and telemetry
 * stat rows are written and before the records and samples, so a pause here
 * is a window in which the transaction is open and half full. The store
 * tests use it to kill -9 an ingest mid-transaction, to widen the race of
 * concurrent ingests, and to interrupt an ingest of several jobs.
 *
 * GENPERF_TEST_INGEST_SLEEP_MS=N pauses N ms per job (a signal ends the
 * pause early, as it would end any wait of a real ingest). Production
 * genperf has no such variable: this file is never part of it.
 */
#include "store/ingest_internal.h"

#include <stdlib.h>
#include <time.h>

int __real_ig_insert_records(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err);
int __wrap_ig_insert_records(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err);

int __wrap_ig_insert_records(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err)
{
    const char *s = getenv("GENPERF_TEST_INGEST_SLEEP_MS");
    long ms = s ? strtol(s, NULL, 10) : 0;
    if (ms > 0) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return __real_ig_insert_records(db, j, job_id, err);
}
