/* export/prefix_cache.h — the prefix-cache hit rate a run saw, as
 * <stem>_genperf.json's "prefix_cache" block and one console line (issue
 * 32; docs/profile.md "Prefix-cache workloads").
 *
 * Each figure named with its source and window where it is written: the
 * server's counters over the measured window (vLLM's
 * prefix_cache_{hits,queries}_total, SGLang's cached_tokens_total /
 * prompt_tokens_total: their increase from the telemetry's window mark, set
 * after the warmup, or its first scrape, to the closing scrape); the
 * responses' usage.prompt_tokens_details.cached_tokens over the ok measured
 * requests; and, only where the server has no counter, a hit-rate gauge
 * (SGLang's cache_hit_rate, TRT-LLM's kv_cache_hit_rate), which is the
 * server's own figure over its own span: its mean over the scrapes, said to
 * be a gauge. The block's "hit_rate" is the counters', else usage's, else
 * the gauge's (issue 38 item 7). Owns nothing: the returned object is the
 * caller's.
 */
#ifndef GP_EXPORT_PREFIX_CACHE_H
#define GP_EXPORT_PREFIX_CACHE_H

#include <jansson.h>

struct gp_buf;
struct gp_export_ctx;

/* The block, or NULL when no source said anything about a prefix cache
 * (then nothing is written and the artifacts keep their bytes). */
json_t *gp_export_prefix_cache_json(const struct gp_export_ctx *ctx);
/* "Prefix cache hit rate: ..." and a newline onto b when the block exists;
 * 0 or -GP_ENOMEM. */
int gp_export_prefix_cache_line(const struct gp_export_ctx *ctx, struct gp_buf *b);

#endif
