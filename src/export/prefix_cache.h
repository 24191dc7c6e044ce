/* export/prefix_cache.h — the prefix-cache hit rate a run saw, as
 * <stem>_genperf.json's "prefix_cache" block and one console line (issue
 * 32; docs/profile.md "Prefix-cache workloads").
 *
 * Two sources, each named where it is written: the server's /metrics over
 * the run (vLLM's prefix_cache_{hits,queries}_total delta from the first to
 * the closing telemetry scrape; else the mean of a hit-rate gauge, SGLang's
 * cache_hit_rate or TRT-LLM's kv_cache_hit_rate, over the scrapes) and the
 * responses' usage.prompt_tokens_details.cached_tokens over the ok measured
 * requests. The block's "hit_rate" is the server's when it has one (it counts
 * every request the server saw, warmup included), else usage's. Owns
 * nothing: the returned object is the caller's.
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
