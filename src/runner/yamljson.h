/* runner/yamljson.h — reads a YAML (or JSON) file into a jansson value.
 *
 * Owns nothing: gp_yaml_load returns a new json_t reference the caller frees
 * with json_decref. YAML plain scalars are typed the way YAML 1.2's core
 * schema types them (true/false, null/~, integers, floats); quoted scalars
 * stay strings. Anchors and aliases are resolved by libyaml's loader.
 * Duplicate keys are refused. Errors name the file, line and column.
 * Bounded so no file can exhaust memory: a document over GP_YAML_MAX_BYTES is
 * refused, and so is one whose aliases expand it to more than 16 times its
 * own node count (an alias bomb; see yamljson.c).
 */
#ifndef GP_RUNNER_YAMLJSON_H
#define GP_RUNNER_YAMLJSON_H

#include <jansson.h>
#include <stddef.h>

struct gp_error;

#define GP_YAML_MAX_BYTES (16 << 20)

json_t *gp_yaml_load_file(const char *path, struct gp_error *err);
json_t *gp_yaml_load_string(const char *text, size_t len, const char *name, struct gp_error *err);

#endif
