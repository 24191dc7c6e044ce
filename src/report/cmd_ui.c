/* report/cmd_ui.c — `genperf ui`: serves the Benchmarks page.
 *
 *   genperf ui --db URL [--host 127.0.0.1] [--port 8080] [--port-file FILE]
 *   genperf ui --artifacts DIR ...     (the same page over artifact directories)
 *
 * Owns the store connection (or the artifact bundle) while serving.
 */
#include "commands.h"
#include "report/report.h"
#include "store/db.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp, "usage: genperf ui --db URL [--host ADDR] [--port N] [--port-file FILE]\n"
                "       genperf ui --artifacts DIR [--host ADDR] [--port N] [--port-file FILE]\n\n"
                "Serves the Benchmarks page (jobs list, job metrics and charts, Hardware tab, compare view)\n"
                "and its JSON endpoints (docs/report.md) until Ctrl-C.\n\n"
                "  --db URL         results store (sqlite:///path.db, a file path, or postgresql://...);\n"
                "                   default $GENPERF_DB\n"
                "  --artifacts DIR  serve genperf profile run directories instead of a store\n"
                "  --host ADDR      IPv4 address to bind (default 127.0.0.1; 0.0.0.0 exposes it)\n"
                "  --port N         TCP port (default 8080; 0 picks a free one)\n"
                "  --port-file F    write the URL (http://ADDR:PORT) to F once listening\n");
}

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

static void print_url(const char *url, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "genperf ui: Benchmarks page on %s/ (Ctrl-C stops)\n", url);
}

int cmd_ui(int argc, char **argv)
{
    const char *db_url = NULL, *dir = NULL, *v;
    struct gp_ui_opts o = {"127.0.0.1", 8080, NULL, print_url, NULL};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if ((v = opt_val(argc, argv, &i, "--db"))) {
            db_url = v;
        } else if ((v = opt_val(argc, argv, &i, "--artifacts"))) {
            dir = v;
        } else if ((v = opt_val(argc, argv, &i, "--host"))) {
            o.host = v;
        } else if ((v = opt_val(argc, argv, &i, "--port"))) {
            char *end;
            long p = strtol(v, &end, 10);
            if (!*v || *end || p < 0 || p > 65535) {
                fprintf(stderr, "genperf ui: --port %s: want a number 0..65535\n", v);
                return 2;
            }
            o.port = (int)p;
        } else if ((v = opt_val(argc, argv, &i, "--port-file"))) {
            o.port_file = v;
        } else {
            fprintf(stderr, "genperf ui: unknown argument '%s'; see genperf ui --help\n", argv[i]);
            return 2;
        }
    }
    if (!db_url && !dir)
        db_url = getenv("GENPERF_DB"); /* the store commands' default too */
    if ((db_url && *db_url) == (dir && *dir)) {
        fprintf(stderr, "genperf ui: give one of --db URL or --artifacts DIR\n");
        return 2;
    }
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    json_t *bundle = NULL;
    struct gp_ui_src src;
    int rc;
    if (db_url) {
        rc = gp_db_open(db_url, &db, &err);
        if (rc == 0)
            src = gp_rdb_src(db);
    } else {
        rc = gp_artifact_bundle(dir, &bundle, &err);
        if (rc == 0)
            src = gp_ui_bundle_src(bundle);
    }
    if (rc == 0)
        rc = gp_ui_run(&o, &src, &err);
    if (db)
        gp_db_close(db);
    json_decref(bundle);
    if (rc < 0) {
        fprintf(stderr, "genperf ui: %s\n", err.msg);
        return 1;
    }
    return 0;
}
