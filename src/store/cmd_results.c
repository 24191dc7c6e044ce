/* store/cmd_results.c — `genperf results --db URL [--job ID] [--format table|csv|json]`.
 *
 * Owns nothing beyond its connection. Without --job: one line per job with
 * its scenario and headline numbers; with --job: every metric of that job
 * (the rows of v_genai_perf_outputs). The jobs table fits 160 columns;
 * --wide (and CSV/JSON) has every column. --telemetry / --endpoints / --models
 * print v_telemetry_job_summary / v_endpoint_breakdown / v_model_breakdown
 * instead; --groups the repeat groups (v_repeat_groups). A SQLite file that
 * does not exist is refused (unless --create): a mistyped --db must not
 * become a new empty store.
 */
#include "commands.h"
#include "store/db.h"
#include "store/store.h"

#include "core/argv.h"
#include "core/error.h"

#include <stdio.h>

int cmd_results(int argc, char **argv)
{
    const char *db_flag = NULL, *job = NULL, *fmt_s = "table";
    int telemetry = 0, endpoints = 0, models = 0, energy = 0, groups = 0, create = 0, wide = 0;
    const struct gp_optdef defs[] = {
        GP_FLAG("--telemetry", NULL, &telemetry, "print v_telemetry_job_summary instead (all jobs, or --job ID)"),
        GP_FLAG("--endpoints", NULL, &endpoints,
                "print v_endpoint_breakdown instead (runs with several --urls; all jobs, or --job ID)"),
        GP_FLAG("--models", NULL, &models,
                "print v_model_breakdown instead (runs with several -m; all jobs, or --job ID)"),
        GP_FLAG("--energy", NULL, &energy,
                "print v_energy_cost instead: joules, watts, tokens/J and $/Mtok (runs with GPU telemetry or "
                "--gpu-hour-cost; all jobs, or --job ID)"),
        GP_FLAG("--groups", NULL, &groups,
                "print the repeat groups instead (--num-runs, a scenario's repeats:): per group the runs and the mean, "
                "95% interval half-width (_ci95) and CV of the key metrics; with --job ID every statistic of its group"),
        GP_STR("--db", NULL, &db_flag, "URL", "sqlite:///path.db, a file path, or postgresql://... (default: $GENPERF_DB)"),
        GP_FLAG("--create", NULL, &create,
                "create an empty store when the SQLite file does not exist (default: refuse, naming the path)"),
        GP_STR("--job", NULL, &job, "ID", "one job's metrics (ids from the listing)"),
        GP_STR("--format", NULL, &fmt_s, "F", "table (default), csv or json"),
        GP_FLAG("--wide", NULL, &wide,
                "the jobs table with every column (endpoint type, concurrency, rate, trace file and speed-up, the "
                "full start time) and nothing clipped; the default fits 160 columns"),
    };
    const struct gp_optspec spec = {
        "results",
        "usage: genperf results --db URL [--job ID] [--telemetry | --endpoints | --models | --energy | --groups]\n"
        "                       [--format table|csv|json] [--wide] [--create]\n"
        "Prints the jobs in the results store, or every metric of one job.\n",
        NULL, defs, GP_NDEFS(defs), 15, NULL};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 0)
        return gp_argv_error(&spec, "unexpected argument '%s'", argv[1]);
    if (telemetry + endpoints + models + energy + groups > 1)
        return gp_argv_error(&spec, "--telemetry, --endpoints, --models, --energy and --groups print different tables; "
                             "give one of them");
    const char *url = gp_db_url(db_flag);
    enum gp_out_format fmt;
    if (gp_store_parse_format(fmt_s, &fmt))
        return gp_argv_error(&spec, "--format '%s' is not one of table, csv, json", fmt_s);
    if (!url || !*url)
        return gp_argv_error(&spec, "no database; pass --db URL (or set GENPERF_DB)");
    struct gp_error err = {0};
    struct gp_db *db;
    if ((create ? gp_db_open(url, &db, &err) : gp_db_open_existing(url, &db, &err))) {
        fprintf(stderr, "genperf results: %s\n", err.msg);
        return err.code == GP_ENOENT ? 2 : 1; /* a --db that names no store: a usage error */
    }
    int r = telemetry   ? gp_store_print_telemetry(db, job, fmt, stdout, &err)
            : endpoints ? gp_store_print_endpoints(db, job, fmt, stdout, &err)
            : models    ? gp_store_print_models(db, job, fmt, stdout, &err)
            : energy    ? gp_store_print_energy(db, job, fmt, stdout, &err)
            : groups    ? gp_store_print_groups(db, job, fmt, stdout, &err)
                        : gp_store_print_results(db, job, fmt, wide, stdout, &err);
    gp_db_close(db);
    if (r) {
        fprintf(stderr, "genperf results: %s\n", err.msg);
        return 1;
    }
    return 0;
}
