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

#include "core/error.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp, "usage: genperf report --db URL --job ID[,ID...] -o report.html\n"
                "       genperf report ARTIFACT_DIR -o report.html\n\n"
                "Writes one HTML file with the job's metric table, TTFT / latency / ITL charts and the\n"
                "Hardware tab; it embeds its data and chart library, so it opens offline.\n"
                "ARTIFACT_DIR is a `genperf profile` run directory, or a directory of them (a sweep).\n\n"
                "  --db URL      results store (sqlite:///path.db, a file path, or postgresql://...)\n"
                "  --job ID      the job to report (see `genperf results`); several as 3,4,5 give\n"
                "                the list and the compare view of those jobs too\n"
                "  -o FILE       output file (default report.html)\n"
                "  --title TEXT  page title (default: the model and job)\n");
}

/* "--name=value" or "--name value"; advances *i past what it used. */
static const char *opt_val(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        return "";
    return argv[++*i];
}

int cmd_report(int argc, char **argv)
{
    const char *db_url = NULL, *job = NULL, *out = "report.html", *title = NULL, *dir = NULL, *v;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if ((v = opt_val(argc, argv, &i, "--db"))) {
            db_url = v;
        } else if ((v = opt_val(argc, argv, &i, "--job"))) {
            job = v;
        } else if ((v = opt_val(argc, argv, &i, "-o")) || (v = opt_val(argc, argv, &i, "--output"))) {
            out = v;
        } else if ((v = opt_val(argc, argv, &i, "--title"))) {
            title = v;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "genperf report: unknown option '%s'; see genperf report --help\n", argv[i]);
            return 2;
        } else if (!dir) {
            dir = argv[i];
        } else {
            fprintf(stderr, "genperf report: one ARTIFACT_DIR only ('%s' is extra)\n", argv[i]);
            return 2;
        }
    }
    if (!*out) {
        fprintf(stderr, "genperf report: -o needs a file name\n");
        return 2;
    }
    if ((db_url != NULL) == (dir != NULL)) {
        fprintf(stderr, "genperf report: give either --db URL --job ID, or an ARTIFACT_DIR\n");
        usage(stderr);
        return 2;
    }
    struct gp_error err = {0};
    json_t *bundle = NULL;
    int rc;
    if (dir) {
        rc = gp_artifact_bundle(dir, &bundle, &err);
    } else {
        if (!job || !*job) {
            fprintf(stderr, "genperf report: --db needs --job ID (list them with genperf results --db %s)\n", db_url);
            return 2;
        }
        struct gp_db *db = NULL;
        rc = gp_db_open(db_url, &db, &err);
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
