/* report/rdb_groups.c — /api/job's "repeat_group": the repeat group a job
 * is a run of (`profile --num-runs`, a scenario's `repeats:`; store
 * migration 11), for the job page's Repeats chart.
 *
 * Owns: the json_t it returns (the caller's). Reads v_repeat_groups (the
 * stored mean, stddev, 95% interval and CV of each statistic over the runs)
 * and the members' metric_values (each run's own value, the dots), for the
 * key statistics only: the chart draws those, and a group's full table is
 * `genperf results --groups --job N`.
 */
#include "report/rdb_int.h"

#include "core/error.h"
#include "store/db.h"

#include <string.h>

/* TTFT avg/p99, ITL avg/p99, request latency avg/p99, output token and
 * request throughput: the statistics `profile --num-runs` prints. */
#define KEY_STATS                                                                                                  \
    "((%1$s.metric_code IN ('time_to_first_token', 'inter_token_latency', 'request_latency') AND %1$s.stat IN "  \
    "('avg', 'p99')) OR (%1$s.metric_code IN ('output_token_throughput', 'request_throughput') AND %1$s.stat = " \
    "'avg'))"

json_t *gp_rdb_job_group(struct gp_db *db, const char *id)
{
    const char *p[1] = {id};
    json_t *g = gp_rdb_rows_of(db,
                               "SELECT g.id AS group_id, g.label, g.n_runs, g.aggregate_file, x.repeat_index "
                               "FROM repeat_group_jobs x JOIN repeat_groups g ON g.id = x.group_id WHERE x.job_id = ?",
                               p, 1, NULL);
    json_t *group = json_incref(json_array_get(g, 0));
    json_decref(g);
    if (!group)
        return json_null(); /* in no group, or a store from before migration 11 */
    char gid[32], sql[1024], keys[512];
    snprintf(gid, sizeof gid, "%lld", (long long)json_integer_value(json_object_get(group, "group_id")));
    const char *gp[1] = {gid};
    json_t *runs = gp_rdb_rows_of(db, "SELECT job_id, repeat_index FROM repeat_group_jobs WHERE group_id = ? "
                                      "ORDER BY repeat_index, job_id", gp, 1, NULL);
    snprintf(keys, sizeof keys, KEY_STATS, "st");
    snprintf(sql, sizeof sql,
             "SELECT st.metric_code AS metric, t.display_name AS metric_name, t.unit, t.better, st.stat, st.n, "
             "st.mean, st.stddev, st.ci95_low, st.ci95_high, st.cv FROM repeat_group_stats st "
             "JOIN metric_templates t ON t.code = st.metric_code WHERE st.group_id = ? AND %s "
             "ORDER BY t.sort_order, st.metric_code, st.stat", keys);
    json_t *stats = gp_rdb_rows_of(db, sql, gp, 1, NULL);
    snprintf(keys, sizeof keys, KEY_STATS, "v");
    snprintf(sql, sizeof sql,
             "SELECT v.metric_code AS metric, v.stat, x.job_id, x.repeat_index, v.value FROM repeat_group_jobs x "
             "JOIN metric_values v ON v.job_id = x.job_id WHERE x.group_id = ? AND v.value IS NOT NULL AND %s "
             "ORDER BY x.repeat_index, x.job_id", keys);
    json_t *vals = gp_rdb_rows_of(db, sql, gp, 1, NULL);
    /* each statistic gets its runs' values: [{job_id, repeat_index, value}] */
    size_t i, k;
    json_t *s, *v;
    json_array_foreach(stats, i, s) {
        json_t *mine = json_array();
        const char *m = json_string_value(json_object_get(s, "metric")), *st = json_string_value(json_object_get(s, "stat"));
        json_array_foreach(vals, k, v) {
            const char *vm = json_string_value(json_object_get(v, "metric"));
            const char *vs = json_string_value(json_object_get(v, "stat"));
            if (m && st && vm && vs && !strcmp(m, vm) && !strcmp(st, vs))
                json_array_append_new(mine, json_pack("{s:O,s:O,s:O}", "job_id", json_object_get(v, "job_id"),
                                                      "repeat_index", json_object_get(v, "repeat_index"), "value",
                                                      json_object_get(v, "value")));
        }
        json_object_set_new(s, "values", mine);
    }
    json_decref(vals);
    json_object_set_new(group, "runs", runs ? runs : json_array());
    json_object_set_new(group, "stats", stats ? stats : json_array());
    return group;
}
