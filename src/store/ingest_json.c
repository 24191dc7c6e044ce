/* store/ingest_json.c — typed readers of JSON fields for the ingest.
 *
 * Owns nothing: values read are copied into the job (strings strdup'ed into
 * fields the job frees) or returned borrowed from the json_t the caller owns.
 * Every rejection names the file and the field, so a user can fix the input.
 */
#include "store/ingest_internal.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Python's json.dumps writes NaN, Infinity and -Infinity, which are not JSON;
 * they become null (stored as SQL NULL). */
static char *sanitize_pyjson(const char *in, size_t len, size_t *outlen)
{
    struct gp_buf b = {0};
    if (gp_buf_reserve(&b, len + 16) || gp_buf_puts(&b, ""))
        return NULL;
    int str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (str) {
            gp_buf_putc(&b, c);
            if (c == '\\' && i + 1 < len)
                gp_buf_putc(&b, in[++i]);
            else if (c == '"')
                str = 0;
            continue;
        }
        if (c == '"') {
            str = 1;
        } else if (c == 'N' && len - i >= 3 && !memcmp(in + i, "NaN", 3)) {
            gp_buf_puts(&b, "null");
            i += 2;
            continue;
        } else if (c == 'I' && len - i >= 8 && !memcmp(in + i, "Infinity", 8)) {
            gp_buf_puts(&b, "null");
            i += 7;
            continue;
        } else if (c == '-' && len - i >= 9 && !memcmp(in + i, "-Infinity", 9)) {
            gp_buf_puts(&b, "null");
            i += 8;
            continue;
        }
        gp_buf_putc(&b, c);
    }
    *outlen = b.len;
    return gp_buf_steal(&b);
}

const char *ig_jtype(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

json_t *ig_load_json(const char *path, int sanitize, struct gp_error *err)
{
    char *text;
    size_t len;
    if (gp_read_file_max(path, IG_MAX_WHOLE_FILE, GP_READ_REGULAR, &text, &len, err))
        return NULL;
    if (sanitize) {
        char *s = sanitize_pyjson(text, len, &len);
        free(text);
        if (!s)
            return gp_err(err, GP_ENOMEM, "out of memory reading %s", path), NULL;
        text = s;
    }
    json_error_t je;
    json_t *v = json_loadb(text, len, JSON_ALLOW_NUL, &je);
    free(text);
    if (!v)
        gp_err(err, GP_EINVAL, "%s: not valid JSON at line %d column %d: %s; re-export the file", path, je.line,
               je.column, je.text);
    return v;
}

/* Reads an optional integer field: absent, null and "" (GenAI-Perf's None)
 * leave *o unset; an integral number sets it; anything else is a rejection
 * naming path and field. */
int ig_opt_int(const json_t *obj, const char *key, struct ig_opt_i *o, const char *path, const char *field,
                   struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return 0;
    if (json_is_integer(v)) {
        o->set = 1, o->v = json_integer_value(v);
        return 0;
    }
    if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) && fabs(json_real_value(v)) < 9e15) {
        o->set = 1, o->v = (long long)json_real_value(v);
        return 0;
    }
    return gp_err(err, GP_EINVAL, "%s: field '%s': expected an integer, got %s", path, field, ig_jtype(v));
}

int ig_opt_num(const json_t *obj, const char *key, struct ig_opt_d *o, const char *path, const char *field,
                   struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return 0;
    if (json_is_number(v)) {
        o->set = 1, o->v = json_number_value(v);
        return 0;
    }
    return gp_err(err, GP_EINVAL, "%s: field '%s': expected a number, got %s", path, field, ig_jtype(v));
}

int ig_opt_count(const json_t *obj, const char *key, struct ig_opt_i *o, const char *path, const char *field,
                 struct gp_error *err)
{
    struct ig_opt_i v = {0};
    int r = ig_opt_int(obj, key, &v, path, field, err);
    if (r || !v.set)
        return r;
    if (v.v < 0)
        return gp_err(err, GP_EINVAL, "%s: field '%s': %lld is negative; it cannot be below 0", path, field, v.v);
    *o = v;
    return 0;
}

int ig_opt_nonneg(const json_t *obj, const char *key, struct ig_opt_d *o, const char *path, const char *field,
                  struct gp_error *err)
{
    struct ig_opt_d v = {0};
    int r = ig_opt_num(obj, key, &v, path, field, err);
    if (r || !v.set)
        return r;
    if (!(v.v >= 0))
        return gp_err(err, GP_EINVAL, "%s: field '%s': %g is negative; it cannot be below 0", path, field, v.v);
    *o = v;
    return 0;
}

int ig_opt_str(const json_t *obj, const char *key, char **out, const char *path, const char *field,
                   struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return gp_err(err, GP_EINVAL, "%s: field '%s': expected a string, got %s", path, field, ig_jtype(v));
    if (*json_string_value(v))
        ig_set_str(out, json_string_value(v));
    return 0;
}

int ig_opt_bool(const json_t *obj, const char *key, int *out, const char *path, const char *field,
                    struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return 0;
    }
    if (json_is_integer(v)) {
        *out = json_integer_value(v) != 0;
        return 0;
    }
    return gp_err(err, GP_EINVAL, "%s: field '%s': expected true or false, got %s", path, field, ig_jtype(v));
}

const json_t *ig_opt_obj(const json_t *obj, const char *key, const char *path, const char *field,
                             int *bad, struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return NULL;
    if (!json_is_object(v)) {
        gp_err(err, GP_EINVAL, "%s: field '%s': expected an object, got %s", path, field, ig_jtype(v));
        *bad = 1;
    }
    return json_is_object(v) ? v : NULL;
}
