/* metrics/structured.c — the structured-output check (issue 31 item 3):
 * a response's assembled output parsed as JSON and checked, minimally,
 * against the JSON Schema the request carried. Checked: the top-level
 * "type"; for an object, that every "required" key is present and that each
 * present key named in "properties" has that property's "type" (one level,
 * no nesting, no enum/format/pattern/min/max). JSON Schema's type names:
 * "integer" is a number without a fraction, "number" any number. A schema
 * without "type" accepts any value. One JSON parse per checked request
 * (only when a schema was sent), never per event. Owns nothing.
 */
#include "metrics/metrics_int.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* 1 when v is of JSON Schema type name t (or t is no string, or an array of names one of which fits). */
static int type_ok(const json_t *t, const json_t *v)
{
    if (json_is_array(t)) {
        size_t i;
        json_t *x;
        json_array_foreach(t, i, x) if (type_ok(x, v)) return 1;
        return json_array_size(t) == 0;
    }
    const char *n = json_string_value(t);
    if (!n)
        return 1;
    if (!strcmp(n, "object")) return json_is_object(v);
    if (!strcmp(n, "array")) return json_is_array(v);
    if (!strcmp(n, "string")) return json_is_string(v);
    if (!strcmp(n, "boolean")) return json_is_boolean(v);
    if (!strcmp(n, "null")) return json_is_null(v);
    if (!strcmp(n, "number")) return json_is_number(v);
    if (!strcmp(n, "integer"))
        return json_is_integer(v) || (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v));
    return 1; /* a type name JSON Schema does not define: not ours to judge */
}

int gp_mx_schema_check(const json_t *schema, const char *text, size_t len)
{
    json_t *v = json_loadb(text ? text : "", len, JSON_DECODE_ANY, NULL);
    if (!v)
        return GP_SO_INVALID_JSON;
    int ok = type_ok(json_object_get(schema, "type"), v);
    if (ok && json_is_object(v)) {
        size_t i;
        json_t *k;
        json_array_foreach(json_object_get(schema, "required"), i, k) {
            if (json_is_string(k) && !json_object_get(v, json_string_value(k)))
                ok = 0;
        }
        const char *name;
        json_t *ps;
        json_object_foreach(json_object_get(schema, "properties"), name, ps) {
            json_t *x = json_object_get(v, name);
            if (x && !type_ok(json_object_get(ps, "type"), x))
                ok = 0;
        }
    }
    json_decref(v);
    return ok ? GP_SO_OK : GP_SO_MISMATCH;
}
