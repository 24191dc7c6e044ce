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

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: genperf ingest ARTIFACT_DIR... --db URL [options]\n"
            "Stores GenAI-Perf-format runs (genperf's and NVIDIA GenAI-Perf 0.0.x's) in the results store.\n"
            "Each *_genai_perf.json (or *_genai_perf.csv without a JSON) under ARTIFACT_DIR is one job;\n"
            "re-ingesting the same artifacts changes nothing.\n"
            "  --db URL            sqlite:///path.db, a file path, or postgresql://... (default: $GENPERF_DB)\n"
            "  --check             validate every file and report, write nothing\n"
            "  --label TEXT        job label\n"
            "  --model NAME        served model (default: input_config / genperf_run.json / dir name)\n"
            "  --framework NAME    vllm, sglang, trtllm, ...\n"
            "  --engine-args JSON  server engine arguments as a JSON object\n"
            "  --hardware TEXT     e.g. 8xH100-SXM\n"
            "  --host NAME         machine the benchmark ran on\n"
            "  --gpus N  --tp N  --replicas N\n"
            "  --concurrency N  --isl N  --osl N  --request-count N  --streaming | --no-streaming\n"
            "  --tool-version V    GenAI-Perf version of third-party runs\n"
            "Schema and views: docs/store.md.\n");
}

static int parse_pos(const char *flag, const char *v, long *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n <= 0 || !*v) {
        fprintf(stderr, "genperf ingest: %s '%s' must be a positive integer\n", flag, v);
        return -1;
    }
    *out = n;
    return 0;
}

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
    const char *url = getenv("GENPERF_DB");
    struct gp_ingest_meta meta = GP_INGEST_META_INIT;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    int ndirs = 0;
    if (!dirs)
        return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(dirs);
            return 0;
        } else if (!strcmp(a, "--check")) {
            meta.validate_only = 1;
        } else if (!strcmp(a, "--streaming")) {
            meta.streaming = 1;
        } else if (!strcmp(a, "--no-streaming")) {
            meta.streaming = 0;
        } else if (a[0] == '-' && a[1] == '-' && !v) {
            fprintf(stderr, "genperf ingest: %s needs a value (or is unknown); see --help\n", a);
            free(dirs);
            return 2;
        } else if (!strcmp(a, "--db")) {
            url = argv[++i];
        } else if (!strcmp(a, "--label")) {
            meta.label = argv[++i];
        } else if (!strcmp(a, "--model")) {
            meta.model = argv[++i];
        } else if (!strcmp(a, "--framework")) {
            meta.framework = argv[++i];
        } else if (!strcmp(a, "--engine-args")) {
            json_error_t je;
            json_t *j = json_loads(v, 0, &je);
            int ok = j && json_is_object(j);
            json_decref(j);
            if (!ok) {
                fprintf(stderr, "genperf ingest: --engine-args must be a JSON object like '{\"max_num_seqs\":256}'\n");
                free(dirs);
                return 2;
            }
            meta.engine_args = argv[++i];
        } else if (!strcmp(a, "--hardware")) {
            meta.hardware = argv[++i];
        } else if (!strcmp(a, "--host")) {
            meta.host = argv[++i];
        } else if (!strcmp(a, "--tool-version")) {
            meta.tool_version = argv[++i];
        } else if (!strcmp(a, "--gpus") || !strcmp(a, "--tp") || !strcmp(a, "--replicas") ||
                   !strcmp(a, "--concurrency") || !strcmp(a, "--isl") || !strcmp(a, "--osl") ||
                   !strcmp(a, "--request-count")) {
            if (parse_pos(a, v, &n)) {
                free(dirs);
                return 2;
            }
            i++;
            if (!strcmp(a, "--gpus"))
                meta.gpu_count = (int)n;
            else if (!strcmp(a, "--tp"))
                meta.tp = (int)n;
            else if (!strcmp(a, "--replicas"))
                meta.replicas = (int)n;
            else if (!strcmp(a, "--concurrency"))
                meta.concurrency = n;
            else if (!strcmp(a, "--isl"))
                meta.isl = n;
            else if (!strcmp(a, "--osl"))
                meta.osl = n;
            else
                meta.request_count = n;
        } else if (a[0] == '-') {
            fprintf(stderr, "genperf ingest: unknown option '%s'; see --help\n", a);
            free(dirs);
            return 2;
        } else {
            dirs[ndirs++] = a;
        }
    }
    if (!url || !*url || !ndirs) {
        fprintf(stderr, "genperf ingest: %s; usage: genperf ingest ARTIFACT_DIR... --db URL\n",
                !ndirs ? "no artifact directory given" : "no database; pass --db URL (or set GENPERF_DB)");
        free(dirs);
        return 2;
    }
    struct gp_error err = {0};
    struct gp_db *db;
    if (gp_db_open(url, &db, &err)) {
        fprintf(stderr, "genperf ingest: %s\n", err.msg);
        free(dirs);
        return 1;
    }
    int rc = ingest_dirs(db, dirs, ndirs, &meta);
    gp_db_close(db);
    free(dirs);
    return rc;
}
