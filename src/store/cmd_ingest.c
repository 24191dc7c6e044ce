/* store/cmd_ingest.c — `genperf ingest ARTIFACT_DIR... --db URL [metadata flags]`.
 *
 * Owns: its connection and the ingest result buffer. Prints one line per
 * job (ingested / already ingested / rejected) and a closing count; exit 0
 * when nothing was rejected, 1 otherwise, 2 for usage errors.
 *
 * SIGINT/SIGTERM: the job in progress is abandoned (its transaction rolls
 * back), no further job starts, one line says how many of how many jobs
 * were done, and the exit status is 130. A second signal kills at once
 * (SA_RESETHAND), which is also safe: an open transaction never commits.
 */
#include "commands.h"
#include "store/db.h"
#include "store/store.h"

#include "core/argv.h"
#include "core/error.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one piece of state a signal handler may touch. */
static volatile sig_atomic_t ingest_stop;

static void on_signal(int sig)
{
    (void)sig;
    ingest_stop = 1;
}

static int set_engine_args(void *ctx, const char *name, const char *v, struct gp_error *err)
{
    json_error_t je;
    json_t *j = json_loads(v, 0, &je);
    int ok = j && json_is_object(j);
    json_decref(j);
    if (!ok)
        return gp_err(err, GP_EINVAL, "--engine-args must be a JSON object like '{\"max_num_seqs\":256}'");
    ((struct gp_ingest_meta *)ctx)->engine_args = v;
    return 0;
}

#define POS_INT(name, dst, help) GP_NUM(GP_OPT_INT, name, NULL, dst, "N", 1, 2147483647, help)
#define POS_LONG(name, dst, help) GP_NUM(GP_OPT_LONG, name, NULL, dst, "N", 1, 1e15, help)

/* Ingests every directory; prints each job's line and the closing count.
 * Returns the exit status. */
static int ingest_dirs(struct gp_db *db, const char **dirs, int ndirs, struct gp_ingest_meta *meta)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* no SA_RESTART: waits wake up; a 2nd signal kills */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    meta->stop = &ingest_stop;
    size_t total = 0; /* M of "interrupted after N of M jobs" */
    for (int i = 0; i < ndirs; i++)
        total += gp_store_count_jobs(dirs[i]);

    struct gp_error err = {0};
    struct gp_ingest_result res = {0};
    int failed = 0, stopped = 0;
    for (int i = 0; i < ndirs && !stopped; i++) {
        gp_err_clear(&err);
        size_t before = res.messages.len;
        int r = gp_store_ingest_dir(db, dirs[i], meta, &res, &err);
        stopped = r == -GP_EINTR || ingest_stop;
        if (res.messages.len > before)
            fputs(res.messages.data + before, r && !stopped ? stderr : stdout);
        if (r && !stopped) {
            failed = 1;
            if (res.messages.len == before)
                fprintf(stderr, "genperf ingest: %s\n", err.msg);
        }
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (stopped) {
        size_t done = res.jobs_added + res.jobs_existing + res.jobs_rejected;
        fflush(stdout);
        fprintf(stderr,
                "genperf ingest: interrupted after %zu of %zu jobs (%zu %s, %zu already present, %zu rejected); "
                "the database holds every job done and nothing of the rest\n",
                done, total > done ? total : done, res.jobs_added,
                meta->validate_only ? "valid (not written)" : "added", res.jobs_existing, res.jobs_rejected);
    } else {
        printf("%zu job%s: %zu %s, %zu already present, %zu rejected\n", res.jobs_found,
               res.jobs_found == 1 ? "" : "s", res.jobs_added, meta->validate_only ? "valid (not written)" : "added",
               res.jobs_existing, res.jobs_rejected);
    }
    gp_ingest_result_free(&res);
    return stopped ? 130 : failed ? 1 : 0;
}

int cmd_ingest(int argc, char **argv)
{
    const char *db_flag = NULL;
    struct gp_ingest_meta meta = GP_INGEST_META_INIT;
    const struct gp_optdef defs[] = {
        GP_STR("--db", NULL, &db_flag, "URL", "sqlite:///path.db, a file path, or postgresql://... (default: $GENPERF_DB)"),
        GP_FLAG("--check", NULL, &meta.validate_only, "validate every file and report, write nothing"),
        GP_STR("--label", NULL, &meta.label, "TEXT", "job label"),
        GP_STR("--model", NULL, &meta.model, "NAME", "served model (default: input_config / genperf_run.json / dir name)"),
        GP_STR("--framework", NULL, &meta.framework, "NAME", "vllm, sglang, trtllm, ..."),
        GP_CALL("--engine-args", NULL, set_engine_args, "JSON", "server engine arguments as a JSON object"),
        GP_STR("--hardware", NULL, &meta.hardware, "TEXT", "e.g. 8xH100-SXM"),
        GP_STR("--host", NULL, &meta.host, "NAME", "machine the benchmark ran on"),
        POS_INT("--gpus", &meta.gpu_count, "GPUs the server used"),
        POS_INT("--tp", &meta.tp, "tensor parallelism"),
        POS_INT("--replicas", &meta.replicas, "server replicas"),
        POS_LONG("--concurrency", &meta.concurrency, "requests in flight (default: from the artifacts, as the next three)"),
        POS_LONG("--isl", &meta.isl, "mean input tokens"),
        POS_LONG("--osl", &meta.osl, "mean output tokens"),
        POS_LONG("--request-count", &meta.request_count, "measured requests"),
        GP_FLAG("--streaming", NULL, &meta.streaming, "the run streamed (default: from the artifacts)"),
        GP_UNFLAG("--no-streaming", NULL, &meta.streaming, "it did not"),
        GP_STR("--tool-version", NULL, &meta.tool_version, "V", "GenAI-Perf version of third-party runs"),
    };
    const struct gp_optspec spec = {
        "ingest",
        "usage: genperf ingest ARTIFACT_DIR... --db URL [options]\n"
        "Stores GenAI-Perf-format runs (genperf's and NVIDIA GenAI-Perf 0.0.x's) in the results store.\n"
        "Each *_genai_perf.json (or *_genai_perf.csv without a JSON) under ARTIFACT_DIR is one job;\n"
        "re-ingesting the same artifacts changes nothing.\n",
        "Schema and views: docs/store.md.\n", defs, GP_NDEFS(defs), 20, &meta};
    int ndirs = gp_argv_parse(&spec, argc, argv);
    if (ndirs < 0)
        return ndirs == GP_ARGV_HELP ? 0 : 2;
    char **dirs = argv + 1;
    const char *url = gp_db_url(db_flag);
    if (!url || !*url || !ndirs)
        return gp_argv_error(&spec, "%s", !ndirs ? "no artifact directory given (genperf ingest ARTIFACT_DIR... --db URL)"
                                                 : "no database; pass --db URL (or set GENPERF_DB)");
    struct gp_error err = {0};
    struct gp_db *db;
    if (gp_db_open(url, &db, &err)) {
        fprintf(stderr, "genperf ingest: %s\n", err.msg);
        return 1;
    }
    int rc = ingest_dirs(db, (const char **)dirs, ndirs, &meta);
    gp_db_close(db);
    return rc;
}
