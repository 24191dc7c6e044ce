/* store/cmd_results.c — `genperf results --db URL [--job ID] [--format table|csv|json]`.
 *
 * Owns nothing beyond its connection. Without --job: one line per job with
 * its scenario and headline numbers; with --job: every metric of that job
 * (the rows of v_genai_perf_outputs).
 */
#include "commands.h"
#include "store/db.h"
#include "store/store.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp, "usage: genperf results --db URL [--job ID] [--telemetry] [--format table|csv|json]\n"
                "Prints the jobs in the results store, or every metric of one job.\n"
                "  --telemetry    print v_telemetry_job_summary instead (all jobs, or --job ID)\n"
                "  --db URL       sqlite:///path.db, a file path, or postgresql://... (default: $GENPERF_DB)\n"
                "  --job ID       one job's metrics (ids from the listing)\n"
                "  --format F     table (default), csv or json\n");
}

int cmd_results(int argc, char **argv)
{
    const char *url = getenv("GENPERF_DB"), *job = NULL, *fmt_s = "table";
    int telemetry = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--telemetry")) {
            telemetry = 1;
        } else if (!strcmp(a, "--db") && i + 1 < argc) {
            url = argv[++i];
        } else if (!strcmp(a, "--job") && i + 1 < argc) {
            job = argv[++i];
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            fmt_s = argv[++i];
        } else {
            fprintf(stderr, "genperf results: unknown argument '%s' (or missing value); see --help\n", a);
            return 2;
        }
    }
    enum gp_out_format fmt;
    if (gp_store_parse_format(fmt_s, &fmt)) {
        fprintf(stderr, "genperf results: --format '%s' is not one of table, csv, json\n", fmt_s);
        return 2;
    }
    if (!url || !*url) {
        fprintf(stderr, "genperf results: no database; pass --db URL (or set GENPERF_DB)\n");
        return 2;
    }
    struct gp_error err = {0};
    struct gp_db *db;
    if (gp_db_open(url, &db, &err)) {
        fprintf(stderr, "genperf results: %s\n", err.msg);
        return 1;
    }
    int r = telemetry ? gp_store_print_telemetry(db, job, fmt, stdout, &err)
                      : gp_store_print_results(db, job, fmt, stdout, &err);
    gp_db_close(db);
    if (r) {
        fprintf(stderr, "genperf results: %s\n", err.msg);
        return 1;
    }
    return 0;
}
