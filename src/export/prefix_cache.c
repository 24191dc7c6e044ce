/* export/prefix_cache.c — see prefix_cache.h. */
#include "export/prefix_cache.h"

#include "core/buf.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "metrics/metrics.h"

#include <string.h>

/* "measured" when the counters' window is the measured phase: the sampler
 * marked it after the warmup, or there was no warmup (its first scrape came
 * before the first request). Else "run": warmup included. */
static const char *window_of(const json_t *blk, const struct gp_export_ctx *ctx)
{
    const char *w = json_string_value(json_object_get(blk, "window"));
    return (w && !strcmp(w, "measured")) || ctx->n_warmup == 0 ? "measured" : "run";
}

/* The server part from the telemetry summary's sources: the first with
 * prefix-cache counters (their increase over the window), else the first
 * with a hit-rate gauge (its mean over the scrapes, said to be a gauge).
 * NULL when neither. */
static json_t *server_part(const json_t *tel, const struct gp_export_ctx *ctx)
{
    json_t *srcs = json_object_get(json_object_get(tel, "server"), "sources");
    size_t i;
    json_t *e;
    json_array_foreach(srcs, i, e) {
        json_t *pc = json_object_get(e, "prefix_cache");
        if (!json_is_object(pc))
            continue;
        json_t *o = json_deep_copy(pc);
        const char *w = window_of(pc, ctx);
        struct gp_buf b = {0};
        gp_buf_printf(&b, "%s, increase over the %s (prompt tokens)",
                      json_string_value(json_object_get(pc, "counters")),
                      !strcmp(w, "measured") ? "measured window (warmup excluded)" : "run, warmup included");
        json_object_set_new(o, "kind", json_string("counters"));
        json_object_set_new(o, "window", json_string(w));
        json_object_set_new(o, "source", json_string(b.data ? b.data : ""));
        gp_buf_free(&b);
        json_object_set(o, "url", json_object_get(e, "url"));
        return o;
    }
    json_array_foreach(srcs, i, e) {
        json_t *g = json_object_get(e, "prefix_cache_gauge");
        if (!json_is_object(g))
            continue;
        json_t *o = json_object();
        const char *w = window_of(g, ctx);
        struct gp_buf b = {0};
        gp_buf_printf(&b, "%s: a gauge over the server's own span (lifetime or last batch), "
                          "mean over the scrapes of the %s; not the run's rate",
                      json_string_value(json_object_get(g, "gauge")),
                      !strcmp(w, "measured") ? "measured window" : "run, warmup included");
        json_object_set_new(o, "kind", json_string("gauge"));
        json_object_set(o, "gauge", json_object_get(g, "gauge"));
        json_object_set(o, "hit_rate", json_object_get(g, "mean"));
        json_object_set(o, "scrapes", json_object_get(g, "scrapes"));
        json_object_set_new(o, "window", json_string("gauge"));
        json_object_set_new(o, "scrape_window", json_string(w));
        json_object_set_new(o, "source", json_string(b.data ? b.data : ""));
        gp_buf_free(&b);
        json_object_set(o, "url", json_object_get(e, "url"));
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
    json_t *srv = ctx->telemetry_summary ? server_part(ctx->telemetry_summary, ctx) : NULL;
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
        json_object_set_new(u, "window", json_string("requests"));
        json_object_set_new(u, "source", json_string(usage_source(ctx->endpoint_type)));
    }
    /* the block's figure: the server's counters over the window, else the
     * responses' usage, else (the run's rate unknown) the gauge */
    const char *kind = srv ? json_string_value(json_object_get(srv, "kind")) : NULL;
    json_t *sh = srv ? json_object_get(srv, "hit_rate") : NULL, *uh = json_object_get(u, "hit_rate");
    json_t *hr = NULL;
    const char *from = "none", *window = NULL;
    if (kind && !strcmp(kind, "counters") && json_is_number(sh)) {
        hr = sh;
        from = "server_counters";
        window = json_string_value(json_object_get(srv, "window"));
    } else if (json_is_number(uh)) {
        hr = uh;
        from = "usage";
        window = "requests";
    } else if (json_is_number(sh)) {
        hr = sh;
        from = "server_gauge";
        window = "gauge";
    }
    json_object_set_new(o, "hit_rate", hr ? json_real(json_number_value(hr)) : json_null());
    json_object_set_new(o, "hit_rate_source", json_string(from));
    json_object_set_new(o, "hit_rate_window", window ? json_string(window) : json_null());
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
    json_t *srv = json_object_get(o, "server_metrics"), *u = json_object_get(o, "usage");
    json_t *sh = json_object_get(srv, "hit_rate"), *uh = json_object_get(u, "hit_rate");
    const char *kind = json_string_value(json_object_get(srv, "kind"));
    if (json_is_number(sh) && kind && !strcmp(kind, "counters"))
        rc |= gp_buf_printf(b, " %.1f%% (server counters, %s)", 100 * json_number_value(sh),
                            !strcmp(window_of(srv, ctx), "measured") ? "measured window" : "run incl. warmup");
    else if (json_is_number(sh))
        rc |= gp_buf_printf(b, " %.1f%% (server gauge %s over the server's own span, mean of %lld scrapes in the %s: "
                               "not this run's rate)",
                            100 * json_number_value(sh), json_string_value(json_object_get(srv, "gauge")),
                            (long long)json_integer_value(json_object_get(srv, "scrapes")),
                            !strcmp(json_string_value(json_object_get(srv, "scrape_window")), "measured")
                                ? "measured window"
                                : "run incl. warmup");
    if (json_is_number(uh))
        rc |= gp_buf_printf(b, "%s %.1f%% (usage.cached_tokens, %lld measured requests)", json_is_number(sh) ? ";" : "",
                            100 * json_number_value(uh), (long long)json_integer_value(json_object_get(u, "requests")));
    if (!json_is_number(sh) && !json_is_number(uh))
        rc |= gp_buf_puts(b, " unknown (no prefix lookups in the run)");
    rc |= gp_buf_putc(b, '\n');
    json_decref(o);
    return rc ? -GP_ENOMEM : 0;
}
