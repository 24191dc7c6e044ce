/* store/ingest_accounting.c — the token accounting and reasoning figures of
 * our <stem>_genperf.json as metric rows (metric_values, templates added by
 * migration 3), so the store answers "how often does the server's count
 * disagree" and "how fast did the model think" with plain SQL. Both blocks
 * are optional: artifacts written before them, or runs without server usage
 * or reasoning, add no rows. Owns nothing (reads the caller's tree).
 */
#include "store/ingest_internal.h"

#include "core/error.h"

#include <string.h>

/* obj.key as a number: 1 and *v when present, 0 when absent or not a number */
static int num_at(const json_t *obj, const char *key, double *v)
{
    const json_t *x = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (!json_is_number(x))
        return 0;
    *v = json_number_value(x);
    return 1;
}

/* every statistic of a stats object (as inter_chunk_latency is stored) */
static int add_stats(struct ig_job *j, const char *metric, const json_t *st)
{
    const char *stat;
    const json_t *sv;
    if (!json_is_object(st))
        return 0;
    json_object_foreach((json_t *)st, stat, sv)
        if (ig_valid_stat(stat) && json_is_number(sv) && ig_add_mval(j, metric, stat, 0, json_number_value(sv)))
            return -GP_ENOMEM;
    return 0;
}

static int add_one(struct ig_job *j, const json_t *obj, const char *key, const char *metric, const char *stat)
{
    double v;
    if (!num_at(obj, key, &v))
        return 0;
    return ig_add_mval(j, metric, stat, 0, v) ? -GP_ENOMEM : 0;
}

int ig_parse_accounting(struct ig_job *j, const json_t *summary, const char *path, struct gp_error *err)
{
    const json_t *ta = json_object_get(summary, "token_accounting");
    const json_t *isl = json_is_object(ta) ? json_object_get(ta, "isl_vs_prompt_tokens") : NULL;
    const json_t *osl = json_is_object(ta) ? json_object_get(ta, "osl_vs_completion_tokens") : NULL;
    const json_t *rs = json_object_get(summary, "reasoning");
    int r = 0;
    r = r ? r : add_one(j, ta, "requests_with_server_usage", "requests_with_server_usage", "avg");
    r = r ? r : add_one(j, isl, "template_overhead_tokens", "isl_template_overhead_tokens", "avg");
    r = r ? r : add_one(j, isl, "disagree", "isl_server_disagree_count", "avg");
    r = r ? r : add_one(j, isl, "max_abs_deviation_tokens", "isl_server_deviation", "max");
    r = r ? r : add_one(j, osl, "disagree", "osl_server_disagree_count", "avg");
    r = r ? r : add_one(j, osl, "max_abs_difference_tokens", "osl_server_difference", "max");
    r = r ? r : add_one(j, osl, "mean_difference_tokens", "osl_server_difference", "avg");
    if (json_is_object(rs)) {
        r = r ? r : add_stats(j, "time_to_first_reasoning_token", json_object_get(rs, "time_to_first_reasoning_token"));
        r = r ? r : add_stats(j, "reasoning_tokens_per_request", json_object_get(rs, "reasoning_tokens_per_request"));
        r = r ? r : add_one(j, rs, "reasoning_token_throughput", "reasoning_token_throughput", "avg");
        r = r ? r : add_one(j, rs, "total_output_token_throughput", "total_output_token_throughput", "avg");
    }
    return r ? gp_err(err, GP_ENOMEM, "out of memory reading %s", path) : 0;
}
