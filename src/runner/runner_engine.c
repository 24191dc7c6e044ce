/* runner/runner_engine.c — the recipe's metrics, exact-OSL, tool and
 * LLM-API-option data applied to a server command and its cells
 * (runner_engine.h). Engine facts live in recipes/<framework>.yaml with the engine
 * version they were read from; this file only applies them. */
#include "runner/runner_engine.h"
#include "runner/recipe.h"
#include "runner/scenario.h"
#include "runner/yamljson.h"
#include "telemetry/telemetry.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

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

/* Index of flag's value in argv, or 0 when flag is not there. */
static size_t flag_value_at(const struct gp_argv *a, const char *flag)
{
    for (size_t i = 0; i + 1 < a->n; i++)
        if (!strcmp(a->v[i], flag))
            return i + 1;
    return 0;
}

int gp_runner_llm_api_options(const struct gp_recipe *r, const char *dir, int dry_run, struct gp_argv *argv,
                              char **text_out, struct gp_error *err)
{
    if (text_out)
        *text_out = NULL;
    json_t *spec = json_object_get(r->doc, "llm_api_options");
    if (!json_is_object(spec))
        return 0;
    const char *flag = json_string_value(json_object_get(spec, "flag"));
    const char *file = json_string_value(json_object_get(spec, "file"));
    json_t *set = json_object_get(spec, "set");
    if (!flag || !file || !json_is_object(set))
        return gp_err(err, GP_EINVAL, "recipe %s: llm_api_options needs flag, file and set (a mapping)",
                      r->framework);
    size_t at = flag_value_at(argv, flag);
    json_t *opts = NULL;
    if (at) {
        /* the scenario's own options file: its keys win over ours */
        if (!(opts = gp_yaml_load_file(argv->v[at], err)))
            return -GP_EINVAL;
        if (!json_is_object(opts)) {
            json_decref(opts);
            return gp_err(err, GP_EINVAL, "%s (engine_args' %s): must be a mapping of LLM API options",
                          argv->v[at], flag);
        }
    } else
        opts = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(set, k, v) if (!json_object_get(opts, k)) json_object_set(opts, k, v);
    /* JSON is YAML: the engine's yaml.safe_load reads it as written */
    char *text = json_dumps(opts, JSON_PRESERVE_ORDER); /* one line: the dry run prints it */
    json_decref(opts);
    if (!text)
        return gp_err(err, GP_ENOMEM, "cannot render %s", file);
    struct gp_buf path = {0};
    gp_buf_printf(&path, "%s/%s", dir, file);
    int rc = 0;
    if (!dry_run && !(rc = gp_mkdir_p(dir, err)))
        rc = gp_write_file_atomic(path.data, text, strlen(text), err);
    if (!rc) {
        if (at) {
            free(argv->v[at]);
            argv->v[at] = strdup(path.data);
        } else {
            gp_argv_push(argv, flag);
            gp_argv_push(argv, path.data);
        }
    }
    gp_buf_free(&path);
    if (text_out && !rc)
        *text_out = text;
    else
        free(text);
    return rc;
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
