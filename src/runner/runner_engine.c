/* runner/runner_engine.c — the recipe's metrics, exact-OSL and tool data
 * applied to a server command and its cells (runner_engine.h). Engine facts
 * live in recipes/<framework>.yaml with the engine version they were read
 * from; this file only applies them. The LLM-API options file has one
 * writer, gp_recipe_llm_api_options (recipe.c). */
#include "runner/runner_engine.h"
#include "runner/recipe.h"
#include "runner/scenario.h"
#include "telemetry/telemetry.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

/* The value after `flag` in a JSON array of words, or NULL. */
static const char *word_after(const json_t *words, const char *flag)
{
    size_t i, n = json_array_size(words);
    for (i = 0; i + 1 < n; i++) {
        const char *w = json_string_value(json_array_get(words, i));
        if (w && !strcmp(w, flag))
            return json_string_value(json_array_get(words, i + 1));
    }
    return NULL;
}

void gp_runner_metrics_url(const struct gp_recipe *r, const struct gp_scenario *sc, const char *base_url,
                           char *out, size_t outsz)
{
    const char *given = word_after(sc->profile_args, "--server-metrics-url");
    const char *path = r ? json_string_value(json_object_get(json_object_get(r->doc, "metrics"), "path")) : NULL;
    if (given)
        snprintf(out, outsz, "%s", given);
    else
        snprintf(out, outsz, "%s%s", base_url, path ? path : "/metrics");
}

const json_t *gp_runner_exact_osl_inputs(const struct gp_recipe *r, const struct gp_scenario *sc, json_t **owned)
{
    *owned = NULL;
    if (!sc->exact_osl)
        return NULL;
    if (r)
        return json_object_get(r->doc, "exact_osl_inputs");
    /* attach: vLLM, SGLang and TRT-LLM all take ignore_eos in the body */
    *owned = json_pack("[s]", "ignore_eos:true");
    return *owned;
}

int gp_runner_scenario_has_tools(const struct gp_scenario *sc)
{
    const json_t *pa = sc->profile_args;
    int tools = 0;
    size_t i;
    json_t *x;
    json_array_foreach(pa, i, x) {
        const char *w = json_string_value(x);
        if (!strcmp(w, "--tools") || !strncmp(w, "--tools=", 8) || !strcmp(w, "--synthetic-tools") ||
            !strncmp(w, "--synthetic-tools=", 18))
            tools = 1;
    }
    const char *tc = word_after(pa, "--tool-choice");
    return tools && !(tc && !strcmp(tc, "none"));
}

static int argv_has(const struct gp_argv *a, const char *w)
{
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->v[i], w))
            return 1;
    return 0;
}

int gp_runner_push_tool_args(const struct gp_recipe *r, const struct gp_scenario *sc, struct gp_argv *argv,
                             struct gp_error *err)
{
    const json_t *ta = json_object_get(r->doc, "tool_args");
    if (!json_is_array(ta) || (!gp_runner_scenario_has_tools(sc) && !sc->tool_call_parser))
        return 0;
    /* the flag whose value is the parser: a parser given through
     * engine_args (passed through already) counts as given */
    const char *pflag = NULL;
    size_t i, n = json_array_size(ta);
    for (i = 0; i + 1 < n; i++)
        if (!strcmp(json_string_value(json_array_get(ta, i + 1)), "{tool_call_parser}"))
            pflag = json_string_value(json_array_get(ta, i));
    int have_parser = sc->tool_call_parser || (pflag && argv_has(argv, pflag));
    if (!have_parser)
        return gp_err(err, GP_EINVAL,
                      "%s: profile_args send tools, and %s answers them only with a tool-call parser (%s); set "
                      "tool_call_parser: NAME in the scenario (the parser for the model's tool-call format, e.g. "
                      "hermes, llama3_json, mistral, qwen3_coder; see the engine's docs), or drop the tools",
                      sc->path ? sc->path : sc->name, r->framework, pflag ? pflag : "tool_args");
    for (i = 0; i < n; i++) {
        const char *w = json_string_value(json_array_get(ta, i));
        const char *next = i + 1 < n ? json_string_value(json_array_get(ta, i + 1)) : NULL;
        int takes_value = next && strncmp(next, "--", 2) != 0;
        if (!w)
            return gp_err(err, GP_EINVAL, "recipe %s: tool_args must be a list of strings", r->framework);
        if (argv_has(argv, w)) {
            i += (size_t)takes_value; /* given through engine_args: its value stays theirs */
            continue;
        }
        if (!strcmp(w, "{tool_call_parser}"))
            w = sc->tool_call_parser;
        gp_argv_push(argv, w);
    }
    return 0;
}

int gp_runner_check_metrics(const struct gp_recipe *r, const char *metrics_url, FILE *out)
{
    struct gp_telemetry_opts to = {.server_metrics_url = metrics_url, .nvml_path = "/nonexistent/no-nvml"};
    struct gp_telemetry *t = NULL;
    if (gp_telemetry_open(&to, &t, NULL) != 0)
        return -1;
    const char *st = gp_telemetry_server_status(t);
    int ok = !strcmp(st, "available");
    if (!ok) {
        const char *fix = r ? json_string_value(json_object_get(json_object_get(r->doc, "metrics"), "fix")) : NULL;
        fprintf(out,
                "genperf run: warning: no server telemetry from %s: %s; %s\n", metrics_url, st,
                fix ? fix
                    : "vLLM serves /metrics by default; SGLang only with --enable-metrics; TensorRT-LLM serves "
                      "Prometheus text at /prometheus/metrics only with return_perf_metrics: true in its "
                      "--extra_llm_api_options file (name that URL with profile_args: [--server-metrics-url, URL])");
        fflush(out);
    }
    gp_telemetry_free(t);
    return ok ? 0 : 1;
}
