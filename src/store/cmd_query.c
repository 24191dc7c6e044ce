/* store/cmd_query.c — `genperf query --db URL [--format F] "SQL"`.
 *
 * Owns nothing beyond its connection. Runs one statement with no parameters
 * and prints its rows; the schema is in docs/store.md. The database is opened
 * read-only (gp_db_open_readonly): a query can neither change nor create it.
 */
#include "commands.h"
#include "store/db.h"
#include "store/store.h"

#include "core/argv.h"
#include "core/error.h"

#include <stdio.h>

int cmd_query(int argc, char **argv)
{
    const char *db_flag = NULL, *sql = NULL, *fmt_s = "table";
    const struct gp_optdef defs[] = {
        GP_STR("--db", NULL, &db_flag, "URL",
               "sqlite:///path.db, a file path, or postgresql://user@host:port/db\n(default: $GENPERF_DB)"),
        GP_STR("--format", NULL, &fmt_s, "F", "table (default), csv or json"),
    };
    const struct gp_optspec spec = {
        "query",
        "usage: genperf query --db URL [--format table|csv|json] \"SQL\"\n"
        "Runs one SQL statement against the results store and prints its rows.\n",
        "Tables and views: docs/store.md (v_genai_perf_outputs, v_telemetry_job_summary, v_jobs, ...).\n",
        defs, GP_NDEFS(defs), 15, NULL};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 1)
        return gp_argv_error(&spec, "give the SQL as one argument (quote it); extra argument '%s'", argv[2]);
    if (npos == 1)
        sql = argv[1];
    const char *url = gp_db_url(db_flag);
    enum gp_out_format fmt;
    if (gp_store_parse_format(fmt_s, &fmt))
        return gp_argv_error(&spec, "--format '%s' is not one of table, csv, json", fmt_s);
    if (!url || !*url)
        return gp_argv_error(&spec, "no database; pass --db URL (or set GENPERF_DB)");
    if (!sql)
        return gp_argv_error(&spec, "no SQL given; e.g. genperf query --db %s \"SELECT * FROM v_jobs\"", url);
    struct gp_error err = {0};
    struct gp_db *db;
    if (gp_db_open_readonly(url, &db, &err)) {
        fprintf(stderr, "genperf query: %s\n", err.msg);
        return err.code == GP_ENOENT ? 2 : 1; /* a --db that names no store: a usage error */
    }
    int r = gp_store_print_query(db, sql, NULL, 0, fmt, stdout, &err);
    gp_db_close(db);
    if (r) {
        fprintf(stderr, "genperf query: %s\n", err.msg);
        return 1;
    }
    return 0;
}
