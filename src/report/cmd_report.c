/* report/cmd_report.c — `genperf report`: one self-contained HTML file.
 *
 *   genperf report --db URL --job ID -o report.html
 *   genperf report ARTIFACT_DIR -o report.html
 *
 * Owns the bundle and the store connection for the duration of the command.
 */
#include "commands.h"
#include "report/report.h"
#include "store/db.h"

#include "core/argv.h"
#include "core/error.h"

#include <stdio.h>

int cmd_report(int argc, char **argv)
{
    const char *db_flag = NULL, *job = NULL, *out = "report.html", *title = NULL;
    const struct gp_optdef defs[] = {
        GP_STR("--db", NULL, &db_flag, "URL", "results store (sqlite:///path.db, a file path, or postgresql://...);\n"
                                               "default $GENPERF_DB"),
        GP_STR("--job", NULL, &job, "ID", "the job to report (see `genperf results`); several as 3,4,5 give\n"
                                           "the list and the compare view of those jobs too"),
        GP_STR("-o", "--output", &out, "FILE", "output file (default report.html)"),
        GP_STR("--title", NULL, &title, "TEXT", "page title (default: the model and job)"),
    };
    const struct gp_optspec spec = {
        "report",
        "usage: genperf report --db URL --job ID[,ID...] -o report.html\n"
        "       genperf report ARTIFACT_DIR -o report.html\n\n"
        "Writes one HTML file with the job's metric table, TTFT / latency / ITL charts and the\n"
        "Hardware tab; it embeds its data and chart library, so it opens offline.\n"
        "ARTIFACT_DIR is a `genperf profile` run directory, or a directory of them (a sweep).\n\n",
        NULL, defs, GP_NDEFS(defs), 14, NULL};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 1)
        return gp_argv_error(&spec, "one ARTIFACT_DIR only ('%s' is extra)", argv[2]);
    const char *dir = npos ? argv[1] : NULL, *db_url = db_flag;
    if (!*out)
        return gp_argv_error(&spec, "-o needs a file name");
    if (!db_url && !dir && job)
        db_url = gp_db_url(NULL); /* the store commands' default too */
    if ((db_url != NULL) == (dir != NULL))
        return gp_argv_error(&spec, "give either --db URL --job ID, or an ARTIFACT_DIR");
    struct gp_error err = {0};
    json_t *bundle = NULL;
    int rc;
    if (dir) {
        rc = gp_artifact_bundle(dir, &bundle, &err);
    } else {
        if (!job || !*job)
            return gp_argv_error(&spec, "--db needs --job ID (list them with genperf results --db %s)", db_url);
        struct gp_db *db = NULL;
        rc = gp_db_open_existing(db_url, &db, &err); /* reads: never creates a store */
        if (rc == -GP_ENOENT) {
            fprintf(stderr, "genperf report: %s\n", err.msg);
            return 2;
        }
        if (rc == 0) {
            rc = gp_rdb_bundle(db, job, &bundle, &err);
            gp_db_close(db);
        }
    }
    if (rc < 0) {
        fprintf(stderr, "genperf report: %s\n", err.msg);
        return 1;
    }
    char deftitle[512];
    if (!title) {
        /* Model of the first job in the list; escaped where the page uses it. */
        json_t *j0 = json_array_get(json_object_get(json_object_get(json_object_get(bundle, "api"), "/api/jobs"), "jobs"), 0);
        const char *model = json_string_value(json_object_get(j0, "model"));
        size_t njobs = json_array_size(json_object_get(json_object_get(json_object_get(bundle, "api"), "/api/jobs"), "jobs"));
        if (njobs > 1)
            snprintf(deftitle, sizeof deftitle, "genperf report: %zu runs", njobs);
        else
            snprintf(deftitle, sizeof deftitle, "genperf report: %s", model ? model : "job");
        title = deftitle;
    }
    rc = gp_report_write(out, title, bundle, &err);
    json_decref(bundle);
    if (rc < 0) {
        fprintf(stderr, "genperf report: %s\n", err.msg);
        return 1;
    }
    printf("%s\n", out);
    return 0;
}
