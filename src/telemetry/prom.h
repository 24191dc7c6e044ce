/* telemetry/prom.h — Prometheus text exposition parser and the mapping of
 * vLLM / SGLang / TRT-LLM / DCGM-exporter names onto genperf's metrics.
 *
 * Owns nothing: the parser walks a caller's buffer (not necessarily
 * NUL-terminated) and hands out pointers into it; no allocation, so it can
 * run on every sampling tick and under a fuzzer.
 */
#ifndef GP_TELEMETRY_PROM_H
#define GP_TELEMETRY_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry/telemetry.h"

#define GP_PROM_MAX_GPU 64

/* One sample line: name, the text between '{' and '}' (may be empty) and
 * the value (NaN/+Inf/-Inf allowed). Return non-zero to stop. */
typedef int (*gp_prom_fn)(void *ctx, const char *name, size_t nlen, const char *labels,
                          size_t llen, double value);

/* Calls fn for every well-formed sample line; skips comments, blank and
 * malformed lines. Returns the number of samples passed to fn. */
int gp_prom_parse(const char *text, size_t len, gp_prom_fn fn, void *ctx);

/* Finds label key in a label text (a="x",b="y"); copies its unescaped value
 * into out (truncated to outsz-1). Returns 1 if found, 0 otherwise. */
int gp_prom_label(const char *labels, size_t llen, const char *key, char *out, size_t outsz);

/* One GPU of a DCGM exporter, indexed by the gp_tm_metric GPU block. */
struct gp_prom_gpu {
    double v[GP_TM_GPU__COUNT];   /* in our units (telemetry.h) */
    uint64_t has;                 /* bit i set when v[i] was seen */
    double fb_free_bytes;
    int has_fb_free;
};

/* What one scrape of a server (or DCGM exporter) said, summed over label
 * sets (several engines / models behind one endpoint). */
struct gp_prom_scan {
    int known;                       /* recognised sample lines */
    int has_running, has_waiting;
    double running, waiting;
    int kv_n;                        /* KV-cache usage, mean over label sets, in % */
    double kv_sum;
    int hit_n;                       /* prefix-cache hit-rate gauges (0..1) */
    double hit_sum;
    const char *hit_name;            /* the first such gauge's name (a static string) */
    int has_pc_counters;             /* vLLM prefix_cache_{hits,queries}_total: bits 1 (hits), 2 (queries) */
    double pc_hits, pc_queries;
    /* SGLang's sglang:cached_tokens_total (bit 1) and sglang:prompt_tokens_total
     * (bit 2), summed over label sets (newer versions label cached_tokens by
     * cache_source). prometheus_client shows a labelled counter only once it
     * was incremented, and SGLang increments cached_tokens only for a request
     * with a hit: an absent cached_tokens beside prompt_tokens may mean 0. */
    int has_sg_counters;
    double sg_cached, sg_prompt;
    int has_sd_counters;             /* vLLM spec_decode_num_{drafts,draft_tokens,accepted_tokens}_total: bits 1,2,4 */
    double sd_drafts, sd_draft_tokens, sd_accepted;
    int sd_len_n;                    /* SGLang spec_accept_length gauges */
    double sd_len_sum;
    int ngpu;                        /* DCGM: 1 + highest gpu label seen */
    struct gp_prom_gpu gpu[GP_PROM_MAX_GPU];
};

void gp_prom_scan(const char *text, size_t len, struct gp_prom_scan *out);

#endif
