/* report/rdb_rows.c — the row helpers under rdb.c, rdb_compare.c and
 * rdb_groups.c: a query's rows as JSON objects (numbers as numbers, the
 * name-like columns as strings) and the job id check. A file of its own, below
 * the three, so that calls between them run one way (rdb.c calls
 * rdb_compare.c and rdb_groups.c; all three call this file, which calls none
 * of them).
 *
 * Owns: each json_t it returns (the caller's).
 */
#include "report/rdb_int.h"

#include "core/error.h"
#include "store/db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns that stay strings even when they look like numbers (a model named
 * "7" is still a name). */
static int text_column(const char *c)
{
    static const char *const t[] = {"model", "framework", "hardware", "job_label", "label", "host", "status",
                                    "tool_code", "tool_type", "tool_version", "producer", "producer_version",
                                    "started_at", "finished_at", "ingested_at", "endpoint", "endpoint_type",
                                    "server_url", "artifact_dir", "artifact_file", "artifact_sha256",
                                    "scenario_key", "engine_args", "metric", "metric_name", "unit", "better",
                                    "category", "device", "source", "error", "stat", "aggregate_file"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(c, t[i]))
            return 1;
    return 0;
}

json_t *gp_rdb_value_json(const char *col, const char *v)
{
    if (!v)
        return json_null();
    if (!text_column(col) && *v) {
        char *end;
        double d = strtod(v, &end);
        if (*end == '\0' && isfinite(d)) {
            if (!strpbrk(v, ".eEnN") && d >= -9e15 && d <= 9e15)
                return json_integer((json_int_t)strtoll(v, NULL, 10));
            return json_real(d);
        }
    }
    json_t *s = json_string(v);
    if (s)
        return s;
    /* Not UTF-8 (a legacy byte in an error text): keep the ASCII, mark the rest. */
    char *c = strdup(v);
    if (!c)
        return json_null();
    for (unsigned char *p = (unsigned char *)c; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    s = json_string(c);
    free(c);
    return s ? s : json_null();
}

struct rows {
    json_t *arr;
};

static int collect_row(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    struct rows *r = ctx;
    json_t *o = json_object();
    for (int i = 0; i < ncols; i++)
        json_object_set_new(o, names[i], gp_rdb_value_json(names[i], values[i]));
    json_array_append_new(r->arr, o);
    return 0;
}

json_t *gp_rdb_rows_of(struct gp_db *db, const char *sql, const char *const *p, int np, struct gp_error *err)
{
    struct rows r = {json_array()};
    if (gp_db_query(db, sql, p, np, collect_row, &r, err) < 0) {
        json_decref(r.arr);
        return NULL;
    }
    return r.arr;
}

int gp_rdb_valid_id(const char *id)
{
    if (!id || !*id || strlen(id) > 18)
        return 0;
    for (const char *p = id; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}
