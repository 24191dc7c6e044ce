/* report/cmd_ui.c — `genperf ui`: serves the Benchmarks page.
 *
 *   genperf ui --db URL [--host 127.0.0.1] [--port 8080] [--port-file FILE] [--allow-host NAME]...
 *   genperf ui --artifacts DIR ...     (the same page over artifact directories)
 *
 * Owns the store connection (or the artifact bundle) while serving.
 */
#include "commands.h"
#include "report/report.h"
#include "store/db.h"

#include "core/argv.h"
#include "core/error.h"

#include <stdio.h>

struct allow_hosts {
    const char *v[16];
    size_t n;
};

static int add_allow_host(void *ctx, const char *name, const char *v, struct gp_error *err)
{
    (void)name;
    struct allow_hosts *a = ctx;
    if (gp_ui_allow_host_check(v, err) < 0)
        return -1;
    if (a->n == sizeof a->v / sizeof a->v[0])
        return gp_err(err, GP_EINVAL, "at most %zu --allow-host", sizeof a->v / sizeof a->v[0]);
    a->v[a->n++] = v;
    return 0;
}

static void print_url(const char *url, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "genperf ui: Benchmarks page on %s/ (Ctrl-C stops)\n", url);
}

int cmd_ui(int argc, char **argv)
{
    const char *db_flag = NULL, *dir = NULL;
    struct gp_ui_opts o = {"127.0.0.1", 8080, NULL, print_url, NULL, NULL, 0};
    struct allow_hosts allow = {{0}, 0};
    const struct gp_optdef defs[] = {
        GP_STR("--db", NULL, &db_flag, "URL", "results store (sqlite:///path.db, a file path, or postgresql://...);\n"
                                               "default $GENPERF_DB"),
        GP_STR("--artifacts", NULL, &dir, "DIR", "serve genperf profile run directories instead of a store"),
        GP_STR("--host", NULL, &o.host, "ADDR", "IPv4 address to bind (default 127.0.0.1; 0.0.0.0 exposes it)"),
        GP_NUM(GP_OPT_INT, "--port", NULL, &o.port, "N", 0, 65535, "TCP port (default 8080; 0 picks a free one)"),
        GP_STR("--port-file", NULL, &o.port_file, "F", "write the URL (http://ADDR:PORT) to F once listening"),
        GP_CALL("--allow-host", NULL, add_allow_host, "NAME",
                "also answer requests addressed to NAME (repeatable); names other\n"
                "than localhost, 127.0.0.1 and [::1] get 403 (DNS rebinding)"),
    };
    const struct gp_optspec spec = {
        "ui",
        "usage: genperf ui --db URL [--host ADDR] [--port N] [--port-file FILE] [--allow-host NAME]...\n"
        "       genperf ui --artifacts DIR [--host ADDR] [--port N] [--port-file FILE] [--allow-host NAME]...\n\n"
        "Serves the Benchmarks page (jobs list, job metrics and charts, Hardware tab, compare view)\n"
        "and its JSON endpoints (docs/report.md) until Ctrl-C.\n\n",
        NULL, defs, GP_NDEFS(defs), 17, &allow};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 0)
        return gp_argv_error(&spec, "unexpected argument '%s'", argv[1]);
    o.allow_hosts = allow.v;
    o.n_allow_hosts = allow.n;
    const char *db_url = db_flag;
    if (!db_url && !dir)
        db_url = gp_db_url(NULL); /* the store commands' default too */
    if ((db_url && *db_url) == (dir && *dir))
        return gp_argv_error(&spec, "give one of --db URL or --artifacts DIR");
    struct gp_error err = {0};
    struct gp_db *db = NULL;
    json_t *bundle = NULL;
    struct gp_ui_src src;
    int rc;
    if (db_url) {
        /* the page only reads: a mistyped --db must not become an empty store */
        rc = gp_db_open_existing(db_url, &db, &err);
        if (rc == -GP_ENOENT) {
            fprintf(stderr, "genperf ui: %s\n", err.msg);
            return 2;
        }
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
