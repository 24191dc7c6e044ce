/* runner/runner_engine.h — what the runner adds to a recipe's server
 * command and cells so the engine measures what the scenario asks for:
 * its Prometheus metrics on (and where they are), its stop-at-EOS override
 * (exact OSL), its tool-call flags, and a check that the metrics URL
 * answers something usable. All of it is recipe data (recipes/<framework>.yaml keys
 * metrics, exact_osl_inputs, tool_args; docs/runner.md). TRT-LLM's
 * return_perf_metrics is a `set` entry of its llm_api_options, written with
 * the rest of that file by gp_recipe_llm_api_options (recipe.h).
 *
 * Owns nothing beyond what each function says: strings are written into the
 * caller's buffers, words pushed onto the caller's gp_argv.
 */
#ifndef GP_RUNNER_RUNNER_ENGINE_H
#define GP_RUNNER_RUNNER_ENGINE_H

#include <jansson.h>
#include <stdio.h>

struct gp_error;
struct gp_argv;
struct gp_recipe;
struct gp_scenario;

/* The server's Prometheus URL: the recipe's metrics.path (default
 * /metrics) under base_url; with attach (r NULL), a --server-metrics-url in
 * the scenario's profile_args, else base_url/metrics. */
void gp_runner_metrics_url(const struct gp_recipe *r, const struct gp_scenario *sc, const char *base_url,
                           char *out, size_t outsz);

/* The --extra-inputs words of exact_osl: the recipe's exact_osl_inputs
 * (borrowed from r->doc), or for attach (r NULL) ignore_eos:true in *owned,
 * which the caller decrefs. NULL when the scenario turned exact_osl off. */
const json_t *gp_runner_exact_osl_inputs(const struct gp_recipe *r, const struct gp_scenario *sc, json_t **owned);

/* 1 when the scenario's profile_args send tools the server must parse
 * (--tools or --synthetic-tools, with a --tool-choice other than none). */
int gp_runner_scenario_has_tools(const struct gp_scenario *sc);

/* Appends the recipe's tool_args ("{tool_call_parser}" = the scenario's
 * tool_call_parser) when the scenario has tools or names a parser; a flag
 * already in argv (given through engine_args) is not repeated. A scenario
 * with tools and no parser is refused with the fix. */
int gp_runner_push_tool_args(const struct gp_recipe *r, const struct gp_scenario *sc, struct gp_argv *argv,
                             struct gp_error *err);

/* GETs metrics_url once and, when it answers nothing usable (an error
 * status, JSON instead of Prometheus text, no known metric names), writes
 * one line to out naming the URL, what it answered and the fix (the
 * recipe's metrics.fix, or for attach the engines' switches). 0 usable. */
int gp_runner_check_metrics(const struct gp_recipe *r, const char *metrics_url, FILE *out);

#endif
