/* runner/template.h — GenAI-Perf's config file: the template that
 * `create-template` writes (genai_perf_config.yaml) and the mapping of a
 * config file's keys to the command line `config -f` runs.
 *
 * The template text is GenAI-Perf 0.0.16's non-verbose template
 * (ConfigCommand.make_template: every section indented two spaces, a
 * `key: value` line per field with Python's spelling of the default,
 * comments only where GenAI-Perf has a short one). The mapping follows the
 * config classes' parse methods: the same key names and sections, the same
 * "User Config: <key> is not a valid <section> parameter" refusals, and the
 * subcommand inferred the same way (analyze when `analyze` is set, then
 * process-export-files when `process` is, else profile).
 *
 * Owns nothing: gp_genai_perf_template returns static text; gp_gpconfig_argv
 * pushes copies into the caller's gp_argv (freed with gp_argv_free).
 */
#ifndef GP_RUNNER_TEMPLATE_H
#define GP_RUNNER_TEMPLATE_H

#include <jansson.h>

struct gp_argv;
struct gp_error;

const char *gp_genai_perf_template(void);

/* out gets the subcommand ("profile", "analyze" or "process-export-files")
 * followed by its flags. 0, or a negative code with err naming the key. */
int gp_gpconfig_argv(const json_t *cfg, struct gp_argv *out, struct gp_error *err);

/* `config -f FILE --override-config FLAGS...`: GenAI-Perf applies the CLI
 * onto the file's config (create_config.py), so a CLI stimulus replaces the
 * file's perf_analyzer.stimulus, and a CLI --request-count /
 * --measurement-interval its measurement, where appending both would give
 * profile two flags of one mutually exclusive group ("not allowed with").
 * Deletes those keys from cfg when cli[0..n) (up to a "--") names a flag of
 * the group, exactly or as flag=VALUE; returns how many keys it deleted. */
int gp_gpconfig_drop_overridden(json_t *cfg, char *const *cli, int n);

#endif
