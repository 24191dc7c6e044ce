/* runner/cmd_analyze.c — `genperf analyze` (GenAI-Perf's subcommand): a
 * profile per value of --sweep-type, each in its own run directory named as
 * GenAI-Perf names it (<model>-openai-<type>-<sweep_type><value>), then
 * <artifact-dir>/analyze_export_genai_perf.csv (perf metrics table, blank
 * row, GPU table). Every other flag is a profile flag, passed to each cell.
 *
 * Cells run as `genperf profile` children (analyze.h says why); a cell is
 * profiled into <artifact-dir>/.analyze-staging and its files are moved into
 * the cell directory, so the cell's name does not depend on how profile
 * names its own run directory. Exit: 0 all cells ran, 1 a cell failed (the
 * CSV still lists the cells that ran), 2 usage error, 130 interrupted.
 */
#include "commands.h"
#include "core/argv.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "runner/analyze.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "genperf analyze"
#define MAX_ARGS 1024

struct analyze_args {
    const char *sweep_type, *sweep_list, *sweep_range;
    const char *model, *endpoint_type, *artifact_dir, *export_file;
    int n_models;
    const char *pass[MAX_ARGS]; /* profile flags for every cell */
    int n_pass;
};

/* core/argv's pass-through hook: every token that is not an analyze flag.
 * The flags that name the cell are remembered and passed on; -m/--model
 * takes every word after it (GenAI-Perf's nargs='+'); "--" hands on the
 * rest; anything else is passed on as it stands, in order. */
static int take(void *ctx, int argc, char **argv, int i, struct gp_error *err)
{
    struct analyze_args *a = ctx;
    const char *o = argv[i];
    if (a->n_pass >= MAX_ARGS - 8)
        return gp_err(err, GP_EINVAL, "too many arguments"), 0;
    if (!strcmp(o, "--")) {
        for (int k = i; k < argc && a->n_pass < MAX_ARGS - 8; k++)
            a->pass[a->n_pass++] = argv[k];
        return argc - i;
    }
    int at = i;
    if (!strcmp(o, "-m") || !strcmp(o, "--model")) {
        a->pass[a->n_pass++] = o;
        while (i + 1 < argc && argv[i + 1][0] != '-' && a->n_pass < MAX_ARGS - 8) {
            if (!a->model)
                a->model = argv[i + 1];
            a->n_models++;
            a->pass[a->n_pass++] = argv[++i];
        }
        return i - at + 1;
    }
    const char *keep;
    if ((keep = gp_cell_flag_value(o, "--endpoint-type", &i, argc, argv)))
        a->endpoint_type = keep;
    else if ((keep = gp_cell_flag_value(o, "--profile-export-file", &i, argc, argv)))
        a->export_file = keep;
    for (int k = at; k <= i; k++)
        a->pass[a->n_pass++] = argv[k];
    return i - at + 1;
}

static const char usage_text[] =
    "usage: " PROG " [--sweep-type {batch_size,concurrency,num_dataset_entries,input_sequence_length,"
    "request_rate}]\n"
    "       [--sweep-list A,B,C | --sweep-range MIN:MAX[:STEP]] PROFILE-OPTIONS...\n\n"
    "Runs one 'genperf profile' per swept value (default: concurrency 1:1024, powers of two), each in\n"
    "<artifact-dir>/<model>-openai-<type>-<sweep_type><value>/, then writes\n"
    "<artifact-dir>/analyze_export_genai_perf.csv. Every other option is a profile option\n"
    "('genperf profile --help').\n";

/* A usage error in GenAI-Perf's argparse form: the usage, then the error. */
static void report(void *ctx, const char *msg)
{
    fputs(usage_text, stderr);
    fprintf(stderr, PROG ": error: %s\n", msg);
}

/* The analyze flags from the table (hidden: the usage text lists them),
 * the rest through take(). Returns 0, GP_ARGV_HELP or GP_ARGV_ERROR. */
static int parse(int argc, char **argv, struct analyze_args *a)
{
    a->artifact_dir = "artifacts";
    a->export_file = "profile_export.json";
    a->endpoint_type = "chat";
    const struct gp_optdef defs[] = {
        GP_STR("--sweep-type", NULL, &a->sweep_type, "TYPE", NULL),
        GP_STR("--sweep-list", NULL, &a->sweep_list, "A,B,C", NULL),
        GP_STR("--sweep-range", NULL, &a->sweep_range, "MIN:MAX[:STEP]", NULL),
        GP_STR("--artifact-dir", NULL, &a->artifact_dir, "DIR", NULL),
    };
    const struct gp_optspec spec = {"analyze", usage_text, NULL, defs, GP_NDEFS(defs), 24, a};
    const struct gp_argv_pass pass = {take, report};
    int rc = gp_argv_parse_pass(&spec, &pass, argc, argv);
    if (rc < 0)
        return rc;
    if (!a->sweep_list && !a->sweep_range && !a->sweep_type) {
        /* GenAI-Perf's default sweep: concurrency 1..1024 */
        a->sweep_type = "concurrency";
        a->sweep_range = "1:1024";
    }
    if (!a->sweep_type)
        a->sweep_type = "concurrency";
    return 0;
}

/* Drops the flags (and their values) that the swept stimulus replaces. */
static int replaced(const char *sweep_type, const char *arg)
{
    static const char *const stim[] = {"--concurrency", "--request-rate", NULL};
    static const char *const isl[] = {"--synthetic-input-tokens-mean", "--isl", NULL};
    static const char *const nde[] = {"--num-dataset-entries", "--num-prompts", NULL};
    static const char *const bs[] = {"-b", "--batch-size", "--batch-size-text", NULL};
    const char *const *set = !strcmp(sweep_type, "concurrency") || !strcmp(sweep_type, "request_rate") ? stim
                             : !strcmp(sweep_type, "input_sequence_length")                             ? isl
                             : !strcmp(sweep_type, "num_dataset_entries")                               ? nde
                                                                                                        : bs;
    for (int k = 0; set[k]; k++) {
        size_t n = strlen(set[k]);
        if (!strncmp(arg, set[k], n) && (arg[n] == 0 || arg[n] == '='))
            return arg[n] == '=' ? 1 : 2; /* words to drop */
    }
    return 0;
}

static double num(const json_t *o, const char *metric, const char *stat)
{
    json_t *v = json_object_get(json_object_get(o, metric), stat);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

static void csv_row(struct gp_buf *b, const char *const *f, int n)
{
    for (int i = 0; i < n; i++)
        gp_csv_field(b, f[i], i == 0);
    gp_buf_puts(b, "\r\n");
}

static const char *const perf_hdr[] = {
    "p99 Time To First Token (ms)",       "p99 Inter Token Latency (ms)",
    "p99 Request Latency (ms)",           "p99 Output Sequence Length (tokens)",
    "Avg. Output Token Throughput (tokens/sec)", "Request Throughput (requests/sec)"};
static const char *const perf_key[][2] = {
    {"time_to_first_token", "p99"},    {"inter_token_latency", "p99"},     {"request_latency", "p99"},
    {"output_sequence_length", "p99"}, {"output_token_throughput", "avg"}, {"request_throughput", "avg"}};
static const char *const gpu_hdr[] = {"Config Name",
                                      "GPU",
                                      "p99 GPU Power Usage (W)",
                                      "p99 GPU Energy Consumption (MJ)",
                                      "p99 GPU Utilization (%)",
                                      "p99 GPU Memory Used (GB)",
                                      "Avg. GPU Power Limit (W)",
                                      "Avg. GPU Total Memory (GB)"};
static const char *const gpu_key[][2] = {{"gpu_power_usage", "p99"},  {"energy_consumption", "p99"},
                                         {"gpu_utilization", "p99"},  {"gpu_memory_used", "p99"},
                                         {"gpu_power_limit", "avg"},  {"total_gpu_memory", "avg"}};

/* analyze_export_genai_perf.csv from the cells' <stem>_genai_perf.json. */
static int write_csv(const struct analyze_args *a, json_t *const *cells, char *const *names, const long *vals,
                     size_t n, struct gp_error *err)
{
    struct gp_buf b = {0};
    int rate = !strcmp(a->sweep_type, "request_rate");
    const char *hdr[10] = {"Config Name", rate ? "Request Rate" : "Concurrency", "ISL", "Num Dataset Entries"};
    for (int k = 0; k < 6; k++)
        hdr[4 + k] = perf_hdr[k];
    csv_row(&b, hdr, 10);
    char f[10][64];
    const char *row[10];
    for (size_t i = 0; i < n; i++) {
        const json_t *ic = json_object_get(cells[i], "input_config");
        json_t *stim = json_object_get(json_object_get(ic, "perf_analyzer"), "stimulus");
        json_t *c = json_object_get(stim, "concurrency"), *r = json_object_get(stim, "request_rate");
        if (rate && !strcmp(a->sweep_type, "request_rate"))
            snprintf(f[1], sizeof f[1], "%ld", vals[i]);
        else if (json_is_integer(c))
            snprintf(f[1], sizeof f[1], "%lld", (long long)json_integer_value(c));
        else if (json_is_number(r))
            gp_py_float_repr(json_number_value(r), f[1], sizeof f[1]);
        else /* session_concurrency / fixed_schedule: perf_analyzer_config.py
              * get_inference_value's AnalyzeDefaults.MIN_CONCURRENCY */
            snprintf(f[1], sizeof f[1], "1");
        snprintf(f[2], sizeof f[2], "%ld", (long)num(cells[i], "input_sequence_length", "p99"));
        json_t *nde = json_object_get(json_object_get(ic, "input"), "num_dataset_entries");
        snprintf(f[3], sizeof f[3], "%lld", json_is_integer(nde) ? (long long)json_integer_value(nde) : 100LL);
        row[0] = names[i];
        for (int k = 1; k < 4; k++)
            row[k] = f[k];
        for (int k = 0; k < 6; k++) {
            snprintf(f[4 + k], sizeof f[4 + k], "%.2f", num(cells[i], perf_key[k][0], perf_key[k][1]));
            row[4 + k] = f[4 + k];
        }
        csv_row(&b, row, 10);
    }
    gp_buf_puts(&b, "\r\n");
    csv_row(&b, gpu_hdr, 8);
    /* GPUs: the ones the first cell's telemetry saw (GenAI-Perf's order) */
    json_t *ts0 = n ? json_object_get(cells[0], "telemetry_stats") : NULL;
    json_t *pu = json_object_get(ts0, "gpu_power_usage");
    const char *gpu;
    json_t *gv;
    json_object_foreach(pu, gpu, gv) {
        if (!json_is_object(gv))
            continue;
        for (size_t i = 0; i < n; i++) {
            json_t *ts = json_object_get(cells[i], "telemetry_stats");
            row[0] = names[i];
            row[1] = gpu;
            for (int k = 0; k < 6; k++) {
                json_t *x = json_object_get(json_object_get(json_object_get(ts, gpu_key[k][0]), gpu), gpu_key[k][1]);
                snprintf(f[2 + k], sizeof f[2 + k], "%.2f", json_is_number(x) ? json_number_value(x) : 0.0);
                row[2 + k] = f[2 + k];
            }
            csv_row(&b, row, 8);
        }
    }
    char path[4096];
    gp_path_join(path, sizeof path, a->artifact_dir, "analyze_export_genai_perf.csv");
    int rc = gp_write_file_atomic(path, b.data ? b.data : "", b.len, err);
    gp_buf_free(&b);
    if (!rc)
        fprintf(stderr, "genperf: Generating %s\n", path);
    return rc;
}

int cmd_analyze(int argc, char **argv)
{
    struct analyze_args a;
    memset(&a, 0, sizeof a);
    int p = parse(argc, argv, &a);
    if (p == GP_ARGV_HELP)
        return 0;
    if (p < 0)
        return 2;
    struct gp_error err = {0};
    long vals[GP_SWEEP_MAX];
    size_t n = 0;
    if (!a.model || gp_sweep_values(a.sweep_type, a.sweep_list, a.sweep_range, vals, &n, &err) < 0) {
        report(NULL, !a.model ? "the following arguments are required: -m/--model" : err.msg);
        return 2;
    }
    char self[4096];
    if (gp_self_exe(self, sizeof self) < 0) {
        fprintf(stderr, PROG ": error: cannot find my own executable (/proc/self/exe)\n");
        return 1;
    }
    char staging[4096], model[1024];
    gp_path_join(staging, sizeof staging, a.artifact_dir, ".analyze-staging");
    snprintf(model, sizeof model, "%s%s", a.model, a.n_models > 1 ? "_multi" : "");
    for (char *c = model; *c; c++)
        if (*c == '/')
            *c = '_';
    char stem[1024];
    snprintf(stem, sizeof stem, "%s", a.export_file);
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = 0;

    json_t *cells[GP_SWEEP_MAX];
    char *names[GP_SWEEP_MAX];
    size_t done = 0;
    int status = 0;
    for (size_t i = 0; i < n && !status; i++) {
        char val[32], cell[2048], cell_dir[4096];
        snprintf(val, sizeof val, "%ld", vals[i]);
        snprintf(cell, sizeof cell, "%s-openai-%s-%s%s", model, a.endpoint_type, a.sweep_type, val);
        gp_path_join(cell_dir, sizeof cell_dir, a.artifact_dir, cell);
        const char *cv[MAX_ARGS + 16];
        int k = 0;
        cv[k++] = self;
        cv[k++] = "profile";
        for (int j = 0; j < a.n_pass; j++) {
            int drop = strcmp(a.pass[j], "--") ? replaced(a.sweep_type, a.pass[j]) : 0;
            if (!strcmp(a.pass[j], "--")) {
                for (; j < a.n_pass; j++)
                    cv[k++] = a.pass[j];
                break;
            }
            if (drop) {
                j += drop - 1;
                continue;
            }
            cv[k++] = a.pass[j];
        }
        /* the swept flag and the staging directory go before any '--' */
        int tail = k;
        for (int j = 2; j < k; j++)
            if (!strcmp(cv[j], "--")) {
                tail = j;
                break;
            }
        const char *extra[4] = {gp_sweep_flag(a.sweep_type), val, "--artifact-dir", staging};
        memmove(&cv[tail + 4], &cv[tail], (size_t)(k - tail) * sizeof cv[0]);
        memcpy(&cv[tail], extra, sizeof extra);
        k += 4;
        cv[k] = NULL;
        fprintf(stderr, "genperf analyze: cell %zu/%zu: %s %s -> %s\n", i + 1, n, a.sweep_type, val, cell_dir);
        int rc = gp_run_child_env((char *const *)cv, GP_ENV_SUBCOMMAND, "analyze");
        if (rc != 0) {
            fprintf(stderr, PROG ": error: the profile of %s %s exited with status %d\n", a.sweep_type, val, rc);
            status = rc == 130 ? 130 : 1;
            break;
        }
        char jp[8192], fn[1100];
        snprintf(fn, sizeof fn, "%s_genai_perf.json", stem);
        gp_path_join(jp, sizeof jp, cell_dir, fn);
        json_t *j = NULL;
        if (gp_collect_cell(staging, cell_dir, &err) < 0 || !(j = json_load_file(jp, 0, NULL))) {
            fprintf(stderr, PROG ": error: %s\n", err.code ? err.msg : "cell summary unreadable");
            status = 1;
            break;
        }
        cells[done] = j;
        names[done] = NULL;
        if (asprintf(&names[done], "%s_run_config_%zu", a.model, done) < 0)
            names[done] = NULL;
        done++;
    }
    int all_named = 1;
    for (size_t i = 0; i < done; i++)
        all_named &= names[i] != NULL;
    if (done && all_named && write_csv(&a, cells, names, vals, done, &err) < 0) {
        fprintf(stderr, PROG ": error: %s\n", err.msg);
        status = status ? status : 1;
    }
    for (size_t i = 0; i < done; i++) {
        json_decref(cells[i]);
        free(names[i]);
    }
    return status;
}
