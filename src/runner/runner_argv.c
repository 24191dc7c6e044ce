/* runner/runner_argv.c — the `genperf profile` command line of one sweep
 * cell (gp_runner_profile_argv, runner.h): the scenario's model, endpoint,
 * load and lengths, its mpirun wrapping and its profile_args. Split from
 * runner.c, which runs the cells.
 *
 * Owns nothing: the words are pushed onto the caller's gp_argv.
 */
#include "runner/runner.h"
#include "runner/recipe.h"
#include "runner/scenario.h"
#include "runner/tool.h"
#include "core/buf.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void push_num(struct gp_argv *a, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    gp_argv_push(a, b);
}

/* 1 when a word of the scenario's mpirun_args contains `what` (the
 * scenario set that option itself, so ours stays out). */
static int args_name(const json_t *args, const char *what)
{
    size_t i;
    json_t *x;
    json_array_foreach(args, i, x) if (strstr(json_string_value(x), what))
        return 1;
    return 0;
}

int gp_runner_profile_argv(const struct gp_scenario *sc, const struct gp_cell *c, const char *self_exe,
                           const char *url, const char *cell_dir, struct gp_argv *a)
{
    char buf[1024];
    size_t i;
    json_t *x;
    if (gp_scenario_uses_mpirun(sc)) {
        /* "mpirun" as the shell would find it: run_child execs through PATH,
         * so the printed word is the one that runs. K defaults to one rank
         * per listed host. */
        gp_argv_push(a, "mpirun");
        gp_argv_push(a, "-n");
        push_num(a, sc->ranks ? sc->ranks : sc->hosts ? (long)json_array_size(sc->hosts) : 1);
        if (sc->hosts) {
            struct gp_buf h = {0};
            json_array_foreach(sc->hosts, i, x) gp_buf_printf(&h, "%s%s", i ? "," : "", json_string_value(x));
            gp_argv_push(a, "--host");
            gp_argv_push(a, h.data);
            gp_buf_free(&h);
        }
        /* Open MPI hands remote ranks only the environment named with -x */
        if (sc->api_key) {
            gp_argv_push(a, "-x");
            gp_argv_push(a, "GENPERF_API_KEY");
        }
        /* Ctrl-C: mpirun sends the ranks SIGTERM this many seconds after
         * it, and SIGKILL as many later; Open MPI's 1 s leaves a big run
         * too little to gather and write what it measured (docs/scale-out.md
         * "Ctrl-C"). A value in mpirun_args wins. */
        if (!args_name(sc->mpirun_args, "sigkill_timeout")) {
            gp_argv_push(a, "--mca");
            gp_argv_push(a, "odls_base_sigkill_timeout");
            gp_argv_push(a, GP_RUNNER_MPI_KILL_TIMEOUT_S);
        }
        /* One host: the ranks share it with whatever else runs there (often
         * the server under test), and Open MPI pins each of up to 2 ranks to
         * one core; a rank whose core is busy cannot move. On a 16-core
         * machine with nginx on it, 2 pinned ranks streamed 9.3 M tok/s,
         * fewer than one process (12.0 M), and 15.7 M unpinned. A --bind-to
         * of the scenario's own wins; hosts: are left to Open MPI. */
        if (!sc->hosts && !args_name(sc->mpirun_args, "bind-to")) {
            gp_argv_push(a, "--bind-to");
            gp_argv_push(a, "none");
        }
        json_array_foreach(sc->mpirun_args, i, x) gp_argv_push(a, json_string_value(x));
    }
    struct gp_tool_plan tp;
    gp_tool_plan(sc, &tp);
    gp_tool_push_head(sc, &tp, self_exe, a);
    gp_argv_push(a, "-m");
    gp_argv_push(a, gp_scenario_served_model(sc)); /* the name the server answers to (issue 39 item 1) */
    gp_argv_push(a, "--url");
    gp_argv_push(a, url);
    /* sc->api_key reaches genperf as $GENPERF_API_KEY (gp_runner_run), so it
     * is in no command line, printout or genperf_run.json. Other tools only
     * take it as a header; every printout masks it (print_cmd). */
    if (sc->api_key && tp.how != GP_TOOL_SELF) {
        snprintf(buf, sizeof buf, "Authorization: Bearer %s", sc->api_key);
        gp_argv_push(a, "-H");
        gp_argv_push(a, buf);
    }
    if (sc->streaming) {
        gp_argv_push(a, "-H");
        gp_argv_push(a, "Accept: text/event-stream");
    }
    gp_argv_push(a, "--tokenizer");
    gp_argv_push(a, sc->tokenizer);
    gp_argv_push(a, "--endpoint-type");
    gp_argv_push(a, "chat");
    if (sc->streaming)
        gp_argv_push(a, "--streaming");
    gp_argv_push(a, "--synthetic-input-tokens-mean");
    push_num(a, c->isl);
    gp_argv_push(a, "--synthetic-input-tokens-stddev");
    gp_argv_push(a, "0");
    gp_argv_push(a, "--output-tokens-mean");
    push_num(a, c->osl);
    gp_argv_push(a, "--output-tokens-stddev");
    gp_argv_push(a, "0");
    gp_argv_push(a, "--request-count");
    push_num(a, c->requests);
    gp_argv_push(a, "--num-dataset-entries");
    push_num(a, c->requests);
    gp_argv_push(a, "--concurrency");
    push_num(a, c->concurrency);
    gp_argv_push(a, "--random-seed");
    push_num(a, sc->seed);
    if (sc->workers) {
        gp_argv_push(a, "--workers");
        if (sc->workers < 0)
            gp_argv_push(a, "auto");
        else
            push_num(a, sc->workers);
    }
    /* genperf's own flag: GenAI-Perf and a command tool do not know it */
    if (sc->gpu_hour_cost > 0 && tp.how == GP_TOOL_SELF) {
        snprintf(buf, sizeof buf, "%.17g", sc->gpu_hour_cost);
        gp_argv_push(a, "--gpu-hour-cost");
        gp_argv_push(a, buf);
    }
    /* the engine's stop-at-EOS override (exact_osl, resolved from the
     * recipe by gp_runner_run): "{osl}" becomes this cell's OSL */
    json_array_foreach(sc->cell_inputs, i, x) {
        struct gp_buf w = {0};
        const char *t = json_string_value(x), *ph = t ? strstr(t, "{osl}") : NULL;
        if (!t)
            continue;
        if (ph)
            gp_buf_printf(&w, "%.*s%ld%s", (int)(ph - t), t, c->osl, ph + 5);
        else
            gp_buf_puts(&w, t);
        gp_argv_push(a, "--extra-inputs");
        gp_argv_push(a, w.data);
        gp_buf_free(&w);
    }
    /* a server whose Prometheus text is not at <url>/metrics (TRT-LLM's
     * /prometheus/metrics): the profile's own guess would miss it */
    if (sc->metrics_url && !args_name(sc->profile_args, "--server-metrics-url")) {
        gp_argv_push(a, "--server-metrics-url");
        gp_argv_push(a, sc->metrics_url);
    }
    snprintf(buf, sizeof buf, "profile_export_c%ld_isl%ld_osl%ld.json", c->concurrency, c->isl, c->osl);
    gp_argv_push(a, "--profile-export-file");
    gp_argv_push(a, buf);
    gp_argv_push(a, "--artifact-dir");
    gp_argv_push(a, cell_dir);
    json_array_foreach(sc->profile_args, i, x) gp_argv_push(a, json_string_value(x));
    return 0;
}
