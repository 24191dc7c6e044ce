/* runner/cmd_pef.c — `genperf process-export-files` (GenAI-Perf's subcommand
 * of the same name): merge per-node run directories into one artifact set,
 * or recompute the metrics of an old profile_export.json (a directory with
 * one node). Owns its tokenizer, merged data and metrics; frees them on
 * every path. Exit: 0 written, 1 bad input, 2 usage error.
 */
#include "commands.h"
#include "core/argv.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "core/pytext.h"
#include "metrics/metrics.h"
#include "runner/pef.h"
#include "tokenizer/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "genperf process-export-files"

/* <model>[_multi]-openai-<type>-<stimulus>, GenAI-Perf's run directory name;
 * the stimulus key in perf_analyzer_config.py's order (concurrency, request
 * rate, session concurrency, fixed schedule). */
static int run_name(const json_t *ic, char *out, size_t sz)
{
    json_t *models = json_object_get(ic, "model_names");
    const char *m0 = json_string_value(json_array_get(models, 0));
    const char *type = json_string_value(json_object_get(json_object_get(ic, "endpoint"), "type"));
    json_t *stim = json_object_get(json_object_get(ic, "perf_analyzer"), "stimulus");
    char s[128] = ""; /* the stimulus part, without its '-' */
    json_t *c = json_object_get(stim, "concurrency"), *r = json_object_get(stim, "request_rate");
    json_t *sc = json_object_get(stim, "session_concurrency");
    if (json_is_integer(c)) {
        snprintf(s, sizeof s, "concurrency%lld", (long long)json_integer_value(c));
    } else if (json_is_number(r)) {
        char rep[64];
        gp_py_float_repr(json_number_value(r), rep, sizeof rep);
        snprintf(s, sizeof s, "request_rate%s", rep);
    } else if (json_is_integer(sc)) {
        snprintf(s, sizeof s, "session_concurrency%lld", (long long)json_integer_value(sc));
    } else if (json_object_get(stim, "fixed_schedule")) {
        snprintf(s, sizeof s, "fixed_schedule");
    }
    return gp_export_run_name(m0 ? m0 : "model", json_array_size(models) > 1, type ? type : "chat", s, out, sz);
}

struct pef_args {
    const char *input_dir, *artifact_dir, *export_file, *tokenizer, *checkpoint_dir;
    int offline, generate_plots, enable_checkpointing;
};

/* The options (core/argv's table, which also writes --help). The three
 * options GenAI-Perf records but genperf does not act on share one help line
 * of their own, so their rows are hidden. */
static int parse(int argc, char **argv, struct pef_args *a)
{
    a->input_dir = "aggregated"; /* GenAI-Perf's ProcessDefaults.INPUT_PATH */
    a->artifact_dir = "artifacts";
    a->export_file = "profile_export.json";
    a->checkpoint_dir = "checkpoint";
    int verbose = 0;
    const struct gp_optdef defs[] = {
        GP_STR("-d", "--input-directory", &a->input_dir, "DIR", "one sub-directory per node (default: aggregated)"),
        GP_STR("--artifact-dir", NULL, &a->artifact_dir, "DIR", "parent of the merged run directory (default: artifacts)"),
        GP_STR("--profile-export-file", NULL, &a->export_file, "NAME",
               "merged export's file name (default: profile_export.json)"),
        GP_STR("--tokenizer", NULL, &a->tokenizer, "SPEC", "genperf: use this tokenizer instead of input_config's"),
        GP_FLAG("--offline", NULL, &a->offline, "genperf: never download a tokenizer"),
        GP_TEXT("  --generate-plots, --enable-checkpointing, --checkpoint-dir DIR: written to input_config.output,\n"
                "                             otherwise ignored"),
        GP_FLAG("--generate-plots", NULL, &a->generate_plots, NULL),
        GP_FLAG("--enable-checkpointing", NULL, &a->enable_checkpointing, NULL),
        GP_STR("--checkpoint-dir", NULL, &a->checkpoint_dir, "DIR", NULL),
        GP_FLAG("-v", "--verbose", &verbose, "accepted"),
    };
    const struct gp_optspec spec = {
        .cmd = "process-export-files",
        .usage = "usage: " PROG " [--input-directory DIR] [--artifact-dir DIR] [--profile-export-file NAME]\n"
                 "       [--tokenizer SPEC] [--offline] [-v]\n\n"
                 "Merges per-node run directories (each a sub-directory of DIR holding a profile export and a\n"
                 "*_genai_perf.json) into one artifact set, as GenAI-Perf does: requests concatenated, per-request\n"
                 "metrics recomputed from all of them with the tokenizer named in the first node's input_config,\n"
                 "request and output-token throughput summed over the nodes.\n\n",
        .defs = defs,
        .n_defs = GP_NDEFS(defs),
        .width = 27,
    };
    int n = gp_argv_parse(&spec, argc, argv);
    if (n == GP_ARGV_HELP)
        return 1;
    if (n < 0)
        return -2;
    if (n > 0) {
        gp_argv_error(&spec, "unrecognized argument '%s': the node directories are named by --input-directory DIR",
                      argv[1]);
        return -2;
    }
    if (strchr(a->export_file, '/')) {
        fprintf(stderr, PROG ": error: Please use artifact_directory option to define intermediary paths to the "
                        "profile_export_file.\n");
        return -1;
    }
    return 0;
}

/* GenAI-Perf's goodput SLOs live in input_config.input.goodput ({name: value}). */
static size_t slos_of(const json_t *ic, struct gp_slo *slos, size_t max)
{
    json_t *g = json_object_get(json_object_get(ic, "input"), "goodput");
    size_t n = 0;
    const char *k;
    json_t *v;
    if (json_is_object(g))
        json_object_foreach(g, k, v) if (n < max && json_is_number(v))
        {
            slos[n].name = k;
            slos[n].value = json_number_value(v);
            n++;
        }
    return n;
}

static int write_merged(const struct pef_args *a, struct gp_pef_merged *m, struct gp_tokenizer *tok,
                        struct gp_error *err)
{
    json_t *ic = m->input_config;
    /* the written input_config says what produced it, as GenAI-Perf's config
     * does: its Subcommand enum written by name, lower-cased (base_config.py
     * _get_legal_json_value), so PROCESS is "process", not the CLI spelling */
    json_object_set_new(ic, "subcommand", json_string("process"));
    json_t *proc = json_object_get(ic, "process");
    if (!json_is_object(proc))
        json_object_set_new(ic, "process", proc = json_object());
    json_object_set_new(proc, "input_path", json_string(a->input_dir));
    /* the output section is this command's (create_config.py takes it from
     * its own arguments), not the first node's */
    json_object_set_new(ic, "output",
                        json_pack("{s:s, s:s, s:s, s:b, s:b}", "artifact_directory", a->artifact_dir,
                                  "checkpoint_directory", a->checkpoint_dir, "profile_export_file", a->export_file,
                                  "generate_plots", a->generate_plots, "enable_checkpointing",
                                  a->enable_checkpointing));

    char name[2048], run_dir[4096];
    if (run_name(ic, name, sizeof name) < 0 || gp_path_join(run_dir, sizeof run_dir, a->artifact_dir, name) < 0)
        return gp_err(err, GP_EINVAL, "--artifact-dir '%s': path too long", a->artifact_dir);
    json_t *stim = json_object_get(json_object_get(ic, "perf_analyzer"), "stimulus");
    json_t *rate = json_object_get(stim, "request_rate");
    /* no export mode: a session or fixed-schedule run reads as request_rate
     * 0.0, as GenAI-Perf reads perf_analyzer's export of one */
    int sched = !json_is_number(rate) && !json_is_integer(json_object_get(stim, "concurrency")) &&
                (json_object_get(stim, "session_concurrency") || json_object_get(stim, "fixed_schedule"));
    const char *type = json_string_value(json_object_get(json_object_get(ic, "endpoint"), "type"));
    int streaming = json_is_true(json_object_get(json_object_get(ic, "endpoint"), "streaming"));

    struct gp_slo slos[16];
    size_t n_slos = slos_of(ic, slos, 16);
    /* input_config.endpoint.type as GenAI-Perf writes it (vision = multimodal) */
    enum gp_endpoint_type et = GP_ENDPOINT_CHAT;
    if (type && !strcmp(type, "completions"))
        et = GP_ENDPOINT_COMPLETIONS;
    else if (type && (!strcmp(type, "multimodal") || !strcmp(type, "vision")))
        et = GP_ENDPOINT_MULTIMODAL;
    else if (type && !strcmp(type, "embeddings"))
        et = GP_ENDPOINT_EMBEDDINGS;
    else if (type && !strcmp(type, "rankings"))
        et = GP_ENDPOINT_RANKINGS;
    else if (type && !strcmp(type, "responses"))
        et = GP_ENDPOINT_RESPONSES;
    struct gp_metrics_opts mo = {.slos = slos,
                                 .n_slos = n_slos,
                                 .inter_chunk = 1,
                                 .requests_only = et == GP_ENDPOINT_EMBEDDINGS || et == GP_ENDPOINT_RANKINGS,
                                 .responses_api = et == GP_ENDPOINT_RESPONSES};
    struct gp_metrics_result mr;
    memset(&mr, 0, sizeof mr);
    /* GenAI-Perf's numbers: a split SSE event counts where it started
     * (gp_pef_repair_splits); the export below keeps the responses as read */
    int rc = gp_metrics_compute(gp_pef_metrics_store(m), m->ds, tok, &mo, &mr, err);
    if (rc) {
        gp_metrics_result_free(&mr);
        return rc;
    }
    /* MergedProfileParser: each node measured its own window, so the
     * throughputs are the sum of what the nodes reported (0 when none did) */
    mr.stats[GP_M_REQUEST_THROUGHPUT].avg = m->request_throughput_sum;
    mr.stats[GP_M_OUTPUT_TOKEN_THROUGHPUT].avg = m->output_token_throughput_sum;

    if ((rc = gp_mkdir_p(run_dir, err)) == 0) {
        struct gp_export_ctx ctx = {
            .run_dir = run_dir,
            .profile_export_file = a->export_file,
            .mode = m->exp_mode                 ? m->exp_mode
                    : json_is_number(rate) || sched ? "request_rate"
                                                    : "concurrency",
            .value = m->exp_mode            ? m->exp_value
                     : json_is_number(rate) ? json_number_value(rate)
                     : sched                ? 0.0
                                            : (double)json_integer_value(json_object_get(stim, "concurrency")),
            .service_kind = m->service_kind,
            .version = m->version,
            .endpoint = m->endpoint,
            .endpoint_type = (int)et,
            .endpoint_type_name = type,
            .streaming = streaming,
            .goodput = n_slos > 0,
            .input_config = ic,
            .telemetry_stats = m->telemetry_stats, /* TelemetryStatsAggregator's avg per GPU */
            .store = &m->store,
            .ds = m->ds,
            .inputs_meta = m->meta, /* session runs: session_id / delay as the nodes wrote them */
            .n_inputs_meta = m->meta ? m->ds->n : 0,
            .m = &mr,
            .tokenizer_source = gp_tokenizer_source(tok),
            .client_busy_fraction = -1,
            .n_sent = mr.n_reqs,
            .console = stdout,
        };
        rc = gp_export_all(&ctx, err);
    }
    if (!rc)
        fprintf(stderr, "genperf: merged %zu node(s), %zu requests -> %s\n", m->n_nodes, mr.n_reqs, run_dir);
    gp_metrics_result_free(&mr);
    return rc;
}

int cmd_process_export_files(int argc, char **argv)
{
    struct pef_args a = {0};
    int p = parse(argc, argv, &a);
    if (p)
        return p > 0 ? 0 : -p == 2 ? 2 : 1;
    struct gp_error err = {0};
    json_t *ic0 = NULL;
    struct gp_tokenizer *tok = NULL;
    struct gp_pef_merged m;
    memset(&m, 0, sizeof m);
    int status = 1;
    if (gp_pef_first_input_config(a.input_dir, &ic0, &err) < 0 ||
        gp_pef_check_input_config(ic0, a.input_dir, &err) < 0)
        goto fail;
    json_t *tk = json_object_get(ic0, "tokenizer");
    const char *spec = a.tokenizer ? a.tokenizer : json_string_value(json_object_get(tk, "name"));
    if (!spec)
        spec = json_string_value(json_array_get(json_object_get(ic0, "model_names"), 0));
    if (!spec) {
        gp_err(&err, GP_EINVAL, "'%s': input_config names no tokenizer; pass --tokenizer", a.input_dir);
        goto fail;
    }
    struct gp_tokenizer_opts to = {.revision = json_string_value(json_object_get(tk, "revision")),
                                   .offline = a.offline};
    if (gp_tokenizer_load(spec, &to, &tok, &err) < 0) {
        gp_err_prefix(&err, "--tokenizer %s", spec);
        goto fail;
    }
    if (gp_pef_load(a.input_dir, tok, &m, &err) < 0 || write_merged(&a, &m, tok, &err) < 0)
        goto fail;
    status = 0;
    goto out;
fail:
    fprintf(stderr, PROG ": error: %s\n", err.msg);
out:
    gp_pef_free(&m);
    json_decref(ic0);
    if (tok)
        gp_tokenizer_free(tok);
    return status;
}
