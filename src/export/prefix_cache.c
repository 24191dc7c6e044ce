/* export/prefix_cache.c — see prefix_cache.h. */
#include "export/prefix_cache.h"

#include "core/buf.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "metrics/metrics.h"

#include <string.h>

/* The server part from the telemetry summary: the first source with vLLM's
 * counters, else the server hit-rate gauge's mean. NULL when neither. */
static json_t *server_part(const json_t *tel)
{
    json_t *srcs = json_object_get(json_object_get(tel, "server"), "sources");
    size_t i;
    json_t *e;
    json_array_foreach(srcs, i, e) {
        json_t *pc = json_object_get(e, "prefix_cache");
        if (!json_is_object(pc))
            continue;
        json_t *o = json_deep_copy(pc);
        json_object_set_new(o, "source", json_string("vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total, "
                                                     "increase from the first to the closing scrape (tokens)"));
        json_object_set(o, "url", json_object_get(e, "url"));
        return o;
    }
    json_t *mets = json_object_get(tel, "metrics");
    const char *k;
    json_t *v;
    json_object_foreach(mets, k, v) {
        const char *dot = strchr(k, '.');
        if (strncmp(k, "server", 6) || !dot || strcmp(dot + 1, "prefix_cache_hit_rate"))
            continue;
        json_t *o = json_object();
        json_object_set(o, "hit_rate", json_object_get(v, "avg"));
        json_object_set(o, "scrapes", json_object_get(v, "n"));
        json_object_set_new(o, "source", json_string("hit-rate gauge (sglang:cache_hit_rate, trtllm_kv_cache_hit_rate), "
                                                     "mean over the scrapes"));
        return o;
    }
    return NULL;
}

/* Where the usage part's counts come from: each API names them its own
 * way, and Anthropic's input_tokens leaves the cached tokens out (the prompt
 * is the three counts added: metrics_request.c). */
static const char *usage_source(int endpoint_type)
{
    if (endpoint_type == GP_ENDPOINT_ANTHROPIC)
        return "usage.cache_read_input_tokens / (usage.input_tokens + cache_read_input_tokens + "
               "cache_creation_input_tokens) over the ok measured requests";
    if (endpoint_type == GP_ENDPOINT_RESPONSES)
        return "usage.input_tokens_details.cached_tokens / usage.input_tokens over the ok measured requests";
    return "usage.prompt_tokens_details.cached_tokens / usage.prompt_tokens over the ok measured requests";
}

json_t *gp_export_prefix_cache_json(const struct gp_export_ctx *ctx)
{
    const struct gp_metrics_result *m = ctx->m;
    json_t *srv = ctx->telemetry_summary ? server_part(ctx->telemetry_summary) : NULL;
    /* usage alone counts when a hit was reported: TRT-LLM sends
     * cached_tokens 0 whether or not it caches, which says nothing */
    int usage = m && m->n_with_cached && (m->cached_tokens_sum > 0 || srv);
    if (!srv && !usage)
        return NULL;
    json_t *o = json_object();
    json_t *u = json_null();
    if (m && m->n_with_cached) {
        u = json_object();
        json_object_set_new(u, "requests", json_integer((json_int_t)m->n_with_cached));
        json_object_set_new(u, "cached_tokens", json_real(m->cached_tokens_sum));
        json_object_set_new(u, "prompt_tokens", json_real(m->cached_prompt_sum));
        json_object_set_new(u, "hit_rate",
                            m->cached_prompt_sum > 0 ? json_real(m->cached_tokens_sum / m->cached_prompt_sum) : json_null());
        json_object_set_new(u, "source", json_string(usage_source(ctx->endpoint_type)));
    }
    json_t *hr = srv ? json_object_get(srv, "hit_rate") : NULL;
    int from_srv = json_is_number(hr);
    if (!from_srv && json_is_object(u))
        hr = json_object_get(u, "hit_rate");
    json_object_set_new(o, "hit_rate", json_is_number(hr) ? json_real(json_number_value(hr)) : json_null());
    json_object_set_new(o, "hit_rate_source", json_string(from_srv ? "server_metrics" : json_is_number(hr) ? "usage"
                                                                                                           : "none"));
    json_object_set_new(o, "server_metrics", srv ? srv : json_null());
    json_object_set_new(o, "usage", u);
    return o;
}

int gp_export_prefix_cache_line(const struct gp_export_ctx *ctx, struct gp_buf *b)
{
    json_t *o = gp_export_prefix_cache_json(ctx);
    if (!o)
        return 0;
    int rc = gp_buf_puts(b, "Prefix cache hit rate:");
    json_t *sh = json_object_get(json_object_get(o, "server_metrics"), "hit_rate");
    json_t *uh = json_object_get(json_object_get(o, "usage"), "hit_rate");
    if (json_is_number(sh))
        rc |= gp_buf_printf(b, " %.1f%% (server /metrics)", 100 * json_number_value(sh));
    if (json_is_number(uh))
        rc |= gp_buf_printf(b, "%s %.1f%% (usage.cached_tokens, %lld requests)", json_is_number(sh) ? ";" : "",
                            100 * json_number_value(uh),
                            (long long)json_integer_value(json_object_get(json_object_get(o, "usage"), "requests")));
    if (!json_is_number(sh) && !json_is_number(uh))
        rc |= gp_buf_puts(b, " unknown (no prefix lookups in the run)");
    rc |= gp_buf_putc(b, '\n');
    json_decref(o);
    return rc ? -GP_ENOMEM : 0;
}
