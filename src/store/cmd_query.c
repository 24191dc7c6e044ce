/* store/cmd_query.c — `genperf query --db URL [--format F] "SQL"`.
 *
 * Owns nothing beyond its connection. Runs one statement with no parameters
 * and prints its rows; the schema is in docs/store.md. The database is opened
 * read-only (gp_db_open_readonly): a query can neither change nor create it.
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
    fprintf(fp, "usage: genperf query --db URL [--format table|csv|json] \"SQL\"\n"
                "Runs one SQL statement against the results store and prints its rows.\n"
                "  --db URL       sqlite:///path.db, a file path, or postgresql://user@host:port/db\n"
                "                 (default: $GENPERF_DB)\n"
                "  --format F     table (default), csv or json\n"
                "Tables and views: docs/store.md (v_genai_perf_outputs, v_telemetry_job_summary, v_jobs, ...).\n");
}

int cmd_query(int argc, char **argv)
{
    const char *url = getenv("GENPERF_DB"), *sql = NULL, *fmt_s = "table";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            url = argv[++i];
        } else if (!strncmp(argv[i], "--db=", 5)) {
            url = argv[i] + 5;
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            fmt_s = argv[++i];
        } else if (!strncmp(argv[i], "--format=", 9)) {
            fmt_s = argv[i] + 9;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "genperf query: unknown option '%s' (or missing value); see --help\n", argv[i]);
            return 2;
        } else if (!sql) {
            sql = argv[i];
        } else {
            fprintf(stderr, "genperf query: give the SQL as one argument (quote it); extra argument '%s'\n",
                    argv[i]);
            return 2;
        }
    }
    enum gp_out_format fmt;
    if (gp_store_parse_format(fmt_s, &fmt)) {
        fprintf(stderr, "genperf query: --format '%s' is not one of table, csv, json\n", fmt_s);
        return 2;
    }
    if (!url || !*url) {
        fprintf(stderr, "genperf query: no database; pass --db URL (or set GENPERF_DB)\n");
        return 2;
    }
    if (!sql) {
        fprintf(stderr, "genperf query: no SQL given; e.g. genperf query --db %s \"SELECT * FROM v_jobs\"\n", url);
        return 2;
    }
    struct gp_error err = {0};
    struct gp_db *db;
    if (gp_db_open_readonly(url, &db, &err)) {
        fprintf(stderr, "genperf query: %s\n", err.msg);
        return 1;
    }
    int r = gp_store_print_query(db, sql, NULL, 0, fmt, stdout, &err);
    gp_db_close(db);
    if (r) {
        fprintf(stderr, "genperf query: %s\n", err.msg);
        return 1;
    }
    return 0;
}
