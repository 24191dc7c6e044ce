/* store/cmd_ingest.c — `genperf ingest ARTIFACT_DIR... --db URL [metadata flags]`.
 *
 * Owns: its connection and the ingest result buffer. Prints one line per
 * job (ingested / already ingested / rejected) and a closing count; exit 0
 * when nothing was rejected, 1 otherwise, 2 for usage errors.
 */
#include "commands.h"
#include "store/db.h"
#include "store/store.h"

#include "core/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    struct gp_ingest_result res = {0};
    int failed = 0;
    for (int i = 0; i < ndirs; i++) {
        gp_err_clear(&err);
        size_t before = res.messages.len;
        int r = gp_store_ingest_dir(db, dirs[i], &meta, &res, &err);
        if (res.messages.len > before) {
            fputs(res.messages.data + before, r ? stderr : stdout);
        }
        if (r) {
            failed = 1;
            if (res.messages.len == before)
                fprintf(stderr, "genperf ingest: %s\n", err.msg);
        }
    }
    printf("%zu job%s: %zu %s, %zu already present, %zu rejected\n", res.jobs_found, res.jobs_found == 1 ? "" : "s",
           res.jobs_added, meta.validate_only ? "valid (not written)" : "added", res.jobs_existing, res.jobs_rejected);
    gp_ingest_result_free(&res);
    gp_db_close(db);
    free(dirs);
    return failed ? 1 : 0;
}
