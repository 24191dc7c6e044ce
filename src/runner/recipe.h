/* runner/recipe.h — framework recipes: how to start one server for a scenario.
 *
 * A recipe is a data file (recipes/<framework>.yaml, embedded at build time;
 * a directory in $GENPERF_RECIPES_DIR or --recipes DIR is searched first), so
 * a new framework is a new file, not new code. Format (docs/runner.md):
 *   framework, command (argv template), readiness (health path), default_port,
 *   args (list of [flag, "{placeholder}"] pairs, or {when: key, on: F, off: F}),
 *   passthrough {prefix, separator} for engine args the recipe does not name,
 *   llm_api_options {flag, file, map: [[dotted.key, "{engine.KEY}"]], set: {k: v}}:
 *   a YAML file the runner writes for engines that take some settings only
 *   that way (merged over the scenario's own engine_args.<flag> file), given
 *   as FLAG PATH after the args,
 *   consumes: [KEY, ...] engine args the recipe reads without passing a flag.
 * Placeholders: {model} {tp} {port} {host} {api_key} {engine.KEY}
 * {llm_api_options_file}. An args entry whose placeholder has no value is left
 * out. Pass-through args are checked against recipes/<framework>.options
 * (gp_recipe_check_option) and refused with the engine's nearest name.
 *
 * Owns: struct gp_recipe (free with gp_recipe_free) and struct gp_argv
 * (free with gp_argv_free).
 */
#ifndef GP_RUNNER_RECIPE_H
#define GP_RUNNER_RECIPE_H

#include <jansson.h>
#include <stddef.h>

struct gp_error;
struct gp_scenario;

struct gp_recipe {
    char *framework;
    char *flavor;
    char *readiness;     /* health path, e.g. /health */
    int default_port;
    json_t *doc;         /* the whole parsed recipe */
    char *options;       /* text of recipes/<framework>.options (the engine's declared
                          * option names, read from its source), or NULL: no check */
};

struct gp_argv {
    char **v;            /* NULL-terminated */
    size_t n, cap;
};

int gp_recipe_load(const char *framework, const char *dir, struct gp_recipe *out, struct gp_error *err);
void gp_recipe_free(struct gp_recipe *r);

/* Renders the server command for scenario sc with tensor parallelism tp and
 * the given port into argv. */
int gp_recipe_render(const struct gp_recipe *r, const struct gp_scenario *sc, int tp, int port,
                     struct gp_argv *argv, struct gp_error *err);

/* The llm_api_options object of the scenario (*out, new reference, an empty
 * object when the recipe has none or no value applies), and in path the file
 * the runner writes it to (<artifact_dir>/<name>/<file>; "" without one). */
int gp_recipe_llm_api_options(const struct gp_recipe *r, const struct gp_scenario *sc, json_t **out, char *path,
                              size_t pathsz, struct gp_error *err);

/* Checks that flag (made from engine_args.key by the passthrough rule) is an
 * option the engine declares (r->options). Refuses another engine's name for a
 * listed option, a near miss of a listed name, and, when the list says
 * "complete: yes", any other name; each refusal names the nearest option. */
int gp_recipe_check_option(const struct gp_recipe *r, const char *key, const char *flag, struct gp_error *err);

int gp_argv_push(struct gp_argv *a, const char *s);
void gp_argv_free(struct gp_argv *a);
/* Appends argv as one shell command line, each word quoted only if needed. */
struct gp_buf;
int gp_argv_to_shell(const struct gp_argv *a, struct gp_buf *out);

#endif
