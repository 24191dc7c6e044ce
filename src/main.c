/* main.c — genperf's entry point: picks the subcommand and nothing else.
 *
 * Invoked as `genai-perf` (a symlink installed by `make install`) it behaves
 * the same, so tools that call GenAI-Perf by name get genperf.
 */
#include "commands.h"
#include "core/version.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct subcommand {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
};

static const struct subcommand subcommands[] = {
    {"profile", cmd_profile, "run a GenAI-Perf-compatible benchmark against one endpoint"},
    {"serve", cmd_serve, "run the simulated OpenAI-compatible server"},
    {"run", cmd_run, "run a scenario file: recipe, server lifecycle, sweep, ingest"},
    {"tokenize", cmd_tokenize, "encode or decode text with a HuggingFace tokenizer.json"},
    {"ingest", cmd_ingest, "ingest artifact directories into the results store"},
    {"results", cmd_results, "print stored results (table, csv or json)"},
    {"query", cmd_query, "run one SQL query against the results store"},
    {"telemetry", cmd_telemetry, "sample GPU and host telemetry and print it"},
    {"ui", cmd_ui, "serve the Benchmarks page over the results store"},
    {"report", cmd_report, "write a self-contained HTML report"},
    {"compare", cmd_compare, "compare two results: change, 95% interval, verdict; a CI gate (--fail-on)"},
    {"analyze", cmd_analyze, "profile over a swept stimulus; analyze_export_genai_perf.csv"},
    {"search", cmd_search, "find the highest load that meets goodput SLOs (bracket, bisect)"},
    {"process-export-files", cmd_process_export_files, "merge per-node run directories into one artifact set"},
    {"create-template", cmd_create_template, "write GenAI-Perf's config template (genai_perf_config.yaml)"},
    {"config", cmd_config, "run what a GenAI-Perf config file says (profile, analyze, ...)"},
    {"selftest", cmd_selftest, "measure genperf's own TTFT/ITL error against genperf serve at a load shape"},
};

static void usage(FILE *fp, const char *prog)
{
    fprintf(fp, "usage: %s <command> [options]\n\ncommands:\n", prog);
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(fp, "  %-20s %s\n", subcommands[i].name, subcommands[i].help);
    fprintf(fp, "\n'%s <command> --help' shows the options of one command.\n", prog);
}

int main(int argc, char **argv)
{
    const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (argc < 2) {
        usage(stderr, prog);
        return 2;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        if (!strcmp(prog, "genai-perf"))
            printf("genai-perf %s (genperf %s)\n", GP_GENAI_PERF_COMPAT_VERSION, GP_VERSION);
        else
            printf("genperf %s (GenAI-Perf %s compatible)\n", GP_VERSION, GP_GENAI_PERF_COMPAT_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout, prog);
        return 0;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[1], subcommands[i].name)) {
            /* libcurl's global state is set up once, here, before any thread
             * (telemetry's sampler, metrics' parsers) exists: it is not
             * thread-safe to let the first easy handle do it implicitly. */
            if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
                fprintf(stderr, "%s: cannot initialise libcurl\n", prog);
                return 1;
            }
            int rc = subcommands[i].fn(argc - 1, argv + 1);
            curl_global_cleanup();
            return rc;
        }
    fprintf(stderr, "%s: unknown command '%s'; run '%s --help' for the list\n", prog, argv[1], prog);
    return 2;
}
