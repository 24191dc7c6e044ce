/* profile/profile_tools.c — the tool-calling and structured-output flags
 * (issue 31 item 3): --tools FILE, --synthetic-tools N, --tool-choice and
 * --response-format-schema FILE. Each becomes one key of cfg->extra_inputs
 * (tools, tool_choice, response_format), so that every request body of
 * every dataset (synthetic, --input-file rows, sessions) carries it exactly
 * as an --extra-inputs key would, by the one merge in dataset/body.c. A key
 * given both by one of these flags and by --extra-inputs is refused rather
 * than one silently replacing the other. Owns nothing beyond what it puts
 * into cfg->extra_inputs (freed with the config).
 */
#include "profile/profile_int.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Chat Completions is the API that defines tools and response_format. */
static int chat_api(const struct profile_config *cfg)
{
    return cfg->endpoint_type == GP_ENDPOINT_CHAT || cfg->endpoint_type == GP_ENDPOINT_MULTIMODAL;
}

/* Puts key into extra_inputs (stealing v), refusing a key already there. */
static int put_key(struct profile_config *cfg, const char *flag, const char *key, json_t *v, struct gp_error *err)
{
    if (!v)
        return gp_profile_config_err(cfg, err, GP_ENOMEM, "%s: out of memory", flag);
    if (!chat_api(cfg)) {
        json_decref(v);
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "%s: only the chat endpoint takes \"%s\" (use --endpoint-type chat)", flag, key);
    }
    if (!cfg->extra_inputs && !(cfg->extra_inputs = json_object())) {
        json_decref(v);
        return gp_profile_config_err(cfg, err, GP_ENOMEM, "%s: out of memory", flag);
    }
    if (json_object_get(cfg->extra_inputs, key)) {
        json_decref(v);
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "%s: the request's \"%s\" is already set (by --extra-inputs %s or another "
                                     "flag); give it once",
                                     flag, key, key);
    }
    if (json_object_set_new(cfg->extra_inputs, key, v))
        return gp_profile_config_err(cfg, err, GP_ENOMEM, "%s: out of memory", flag);
    return 0;
}

static json_t *load_json(struct profile_config *cfg, const char *flag, const char *path, struct gp_error *err)
{
    json_error_t je;
    json_t *v = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!v)
        gp_profile_config_err(cfg, err, GP_EINVAL, "%s %s: not a readable JSON file (line %d: %s)", flag, path,
                              je.line, gp_json_why(je.text));
    return v;
}

/* --tools FILE: a JSON array of OpenAI tool definitions
 * ({"type":"function","function":{"name":..,"parameters":..}}). */
int gp_profile_copy_tools(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    json_t *a = load_json(cfg, "--tools", rv->s, err);
    if (!a)
        return -GP_EINVAL;
    size_t i;
    json_t *t;
    int ok = json_is_array(a) && json_array_size(a) > 0;
    json_array_foreach(a, i, t) {
        json_t *f = json_object_get(t, "function");
        ok &= json_is_object(t) && json_is_object(f) && json_is_string(json_object_get(f, "name"));
    }
    if (!ok) {
        json_decref(a);
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--tools %s: must be a non-empty JSON array of tool definitions, each "
                                     "{\"type\": \"function\", \"function\": {\"name\": ..., \"parameters\": {...}}}",
                                     rv->s);
    }
    return put_key(cfg, "--tools", "tools", a, err);
}

/* --synthetic-tools N: N functions tool_0 .. tool_{N-1}, each taking one
 * required string argument (a realistic prompt overhead for the server). */
int gp_profile_copy_synthetic_tools(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (rv->i < 1 || rv->i > 128)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--synthetic-tools %s: must be from 1 to 128 (OpenAI's limit)",
                                     rv->s);
    json_t *a = json_array();
    for (long k = 0; a && k < rv->i; k++) {
        char name[32], desc[64];
        snprintf(name, sizeof name, "tool_%ld", k);
        snprintf(desc, sizeof desc, "Synthetic tool number %ld.", k);
        json_t *t = json_pack("{s:s, s:{s:s, s:s, s:{s:s, s:{s:{s:s}}, s:[s]}}}", "type", "function", "function",
                              "name", name, "description", desc, "parameters", "type", "object", "properties",
                              "input", "type", "string", "required", "input");
        if (!t || json_array_append_new(a, t)) {
            json_decref(a);
            a = NULL;
        }
    }
    return put_key(cfg, "--synthetic-tools", "tools", a, err);
}

/* --tool-choice auto|required|none|NAME (NAME: that function is forced). */
int gp_profile_copy_tool_choice(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    const char *s = rv->s;
    if (!s[0])
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--tool-choice: give auto, required, none or a function name");
    if (!cfg->extra_inputs || !json_object_get(cfg->extra_inputs, "tools"))
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--tool-choice %s: no tools are sent; add --tools FILE or --synthetic-tools N", s);
    json_t *v = !strcmp(s, "auto") || !strcmp(s, "required") || !strcmp(s, "none")
                    ? json_string(s)
                    : json_pack("{s:s, s:{s:s}}", "type", "function", "function", "name", s);
    return put_key(cfg, "--tool-choice", "tool_choice", v, err);
}

/* The json_schema name: the file's base name without its extension, kept
 * to what OpenAI accepts (a-z, A-Z, 0-9, '_' and '-', at most 64). */
static void schema_name(const char *path, char *out, size_t cap)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = 0;
    for (; *b && *b != '.' && n + 1 < cap && n < 64; b++)
        out[n++] = (isalnum((unsigned char)*b) || *b == '-') ? *b : '_';
    if (!n)
        out[n++] = 's';
    out[n] = '\0';
}

/* --response-format-schema FILE: a JSON Schema, sent as
 * {"type":"json_schema","json_schema":{"name":..,"schema":..,"strict":true}};
 * a file that already is such a json_schema object (it has "name" and
 * "schema") is sent as it is. */
int gp_profile_copy_response_schema(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    json_t *f = load_json(cfg, "--response-format-schema", rv->s, err);
    if (!f)
        return -GP_EINVAL;
    if (!json_is_object(f)) {
        json_decref(f);
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--response-format-schema %s: must hold a JSON Schema object, e.g. {\"type\": "
                                     "\"object\", \"properties\": {...}, \"required\": [...]}",
                                     rv->s);
    }
    json_t *js;
    if (json_is_string(json_object_get(f, "name")) && json_is_object(json_object_get(f, "schema"))) {
        js = f;
    } else {
        char name[72];
        schema_name(rv->s, name, sizeof name);
        js = json_pack("{s:s, s:o, s:b}", "name", name, "schema", f, "strict", 1);
    }
    return put_key(cfg, "--response-format-schema", "response_format",
                   js ? json_pack("{s:s, s:o}", "type", "json_schema", "json_schema", js) : NULL, err);
}

const json_t *gp_profile_response_schema(const struct profile_config *cfg)
{
    json_t *rf = cfg->extra_inputs ? json_object_get(cfg->extra_inputs, "response_format") : NULL;
    const char *type = json_string_value(json_object_get(rf, "type"));
    if (!type || strcmp(type, "json_schema"))
        return NULL;
    json_t *s = json_object_get(json_object_get(rf, "json_schema"), "schema");
    return json_is_object(s) ? s : NULL;
}
