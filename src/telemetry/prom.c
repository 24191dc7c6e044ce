/* telemetry/prom.c — Prometheus text parser and name mapping (see prom.h). */
#include "telemetry/prom.h"
#include "telemetry/telemetry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/* Parses a float token [p, end) the way Prometheus writes them. strtod
 * needs a NUL-terminated string, so the token is copied to a small buffer. */
static int parse_value(const char *p, const char *end, double *out)
{
    char tmp[64];
    size_t n = (size_t)(end - p);
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    if (strcmp(tmp, "+Inf") == 0 || strcmp(tmp, "Inf") == 0) {
        *out = INFINITY;
        return 0;
    }
    if (strcmp(tmp, "-Inf") == 0) {
        *out = -INFINITY;
        return 0;
    }
    if (strcmp(tmp, "NaN") == 0) {
        *out = NAN;
        return 0;
    }
    char *e;
    double v = strtod(tmp, &e);
    if (e != tmp + n)
        return -1;
    *out = v;
    return 0;
}

/* One line [p, end). Returns 1 and fills the outputs for a sample line. */
static int parse_line(const char *p, const char *end, const char **name, size_t *nlen,
                      const char **labels, size_t *llen, double *value)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || *p == '#' || !is_name_start(*p))
        return 0;
    const char *n0 = p;
    while (p < end && is_name_char(*p))
        p++;
    *name = n0;
    *nlen = (size_t)(p - n0);
    *labels = p;
    *llen = 0;
    if (p < end && *p == '{') {
        const char *l0 = ++p;
        int inq = 0;
        while (p < end) {
            if (inq) {
                if (*p == '\\' && p + 1 < end)
                    p++;
                else if (*p == '"')
                    inq = 0;
            } else if (*p == '"') {
                inq = 1;
            } else if (*p == '}') {
                break;
            }
            p++;
        }
        if (p >= end)
            return 0;
        *labels = l0;
        *llen = (size_t)(p - l0);
        p++;
    }
    if (p >= end || (*p != ' ' && *p != '\t'))
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *v0 = p;
    while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    if (parse_value(v0, p, value) != 0)
        return 0;
    /* an optional integer timestamp may follow; we sample on our own clock */
    return 1;
}

int gp_prom_parse(const char *text, size_t len, gp_prom_fn fn, void *ctx)
{
    int n = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *name, *labels;
        size_t nlen, llen;
        double v;
        if (parse_line(p, le, &name, &nlen, &labels, &llen, &v)) {
            n++;
            if (fn(ctx, name, nlen, labels, llen, v))
                break;
        }
        p = nl ? nl + 1 : end;
    }
    return n;
}

int gp_prom_label(const char *labels, size_t llen, const char *key, char *out, size_t outsz)
{
    size_t kl = strlen(key);
    const char *p = labels, *end = labels + llen;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        const char *k0 = p;
        while (p < end && *p != '=')
            p++;
        if (p >= end)
            return 0;
        const char *k1 = p;
        while (k1 > k0 && k1[-1] == ' ')
            k1--;
        p++;
        while (p < end && *p == ' ')
            p++;
        if (p >= end || *p != '"')
            return 0;
        p++;
        int match = (size_t)(k1 - k0) == kl && memcmp(k0, key, kl) == 0;
        size_t o = 0;
        while (p < end && *p != '"') {
            char c = *p;
            if (c == '\\' && p + 1 < end) {
                p++;
                c = *p == 'n' ? '\n' : *p;
            }
            if (match && outsz && o + 1 < outsz)
                out[o++] = c;
            p++;
        }
        if (p >= end)
            return 0;
        p++;
        if (match) {
            if (outsz)
                out[o] = '\0';
            return 1;
        }
    }
    return 0;
}

static int name_is(const char *name, size_t nlen, const char *lit)
{
    size_t l = strlen(lit);
    return nlen == l && memcmp(name, lit, l) == 0;
}

enum srv_kind { S_NONE, S_RUNNING, S_WAITING, S_KV_FRAC, S_HIT_FRAC, S_PC_HITS, S_PC_QUERIES, S_SD_DRAFTS,
                S_SD_DRAFT_TOKENS, S_SD_ACCEPTED, S_SD_LEN, S_SG_CACHED, S_SG_PROMPT };

struct name_map { const char *name; int kind; };

/* Each server's names for the same four things (sse-and-servers.md §4).
 * The *_perc / usage names are fractions 0..1. */
static const struct name_map server_names[] = {
    {"vllm:num_requests_running", S_RUNNING},
    {"vllm:num_requests_waiting", S_WAITING},
    {"vllm:kv_cache_usage_perc", S_KV_FRAC},
    {"vllm:gpu_cache_usage_perc", S_KV_FRAC},
    /* vLLM v1's prefix-cache counters, in tokens (vllm/v1/metrics/loggers.py
     * at vllm commit 005a810; prometheus_client adds the _total) */
    {"vllm:prefix_cache_hits_total", S_PC_HITS},
    {"vllm:prefix_cache_hits", S_PC_HITS},
    {"vllm:prefix_cache_queries_total", S_PC_QUERIES},
    {"vllm:prefix_cache_queries", S_PC_QUERIES},
    {"vllm:gpu_prefix_cache_hit_rate", S_HIT_FRAC},
    {"vllm:spec_decode_num_drafts_total", S_SD_DRAFTS},
    {"vllm:spec_decode_num_draft_tokens_total", S_SD_DRAFT_TOKENS},
    {"vllm:spec_decode_num_accepted_tokens_total", S_SD_ACCEPTED},
    {"sglang:spec_accept_length", S_SD_LEN},
    {"sglang:num_running_reqs", S_RUNNING},
    {"sglang:num_queue_reqs", S_WAITING},
    {"sglang:token_usage", S_KV_FRAC},
    {"sglang:cache_hit_rate", S_HIT_FRAC},
    /* SGLang's counters (python/sglang/srt/metrics/collector.py,
     * TokenizerMetricsCollector, at sglang commit 00ae9c15): per finished
     * request, prompt tokens and the cached share of them */
    {"sglang:cached_tokens_total", S_SG_CACHED},
    {"sglang:prompt_tokens_total", S_SG_PROMPT},
    {"trtllm_num_requests_running", S_RUNNING},
    {"trtllm_num_requests_waiting", S_WAITING},
    {"trtllm_kv_cache_utilization", S_KV_FRAC},
    {"trtllm_kv_cache_hit_rate", S_HIT_FRAC},
    /* The same four without the trtllm_ prefix, as older TRT-LLM releases
     * named them (issue 39 item 2's audit; no tagged release was re-read
     * here). The prefixed names above are tensorrt_llm/metrics/collector.py
     * at TensorRT-LLM commit 050f80d; its request counters and histograms
     * (trtllm_request_success_total, ..._e2e_request_latency_seconds)
     * carry nothing this table maps. */
    {"num_requests_running", S_RUNNING},
    {"num_requests_waiting", S_WAITING},
    {"kv_cache_utilization", S_KV_FRAC},
    {"kv_cache_hit_rate", S_HIT_FRAC},
};

/* DCGM exporter names -> our GPU metric and the factor to our unit: every
 * field GenAI-Perf's DCGM collector reads (its DCGM_TO_INTERNAL_METRIC_NAME),
 * see docs/telemetry.md for its names. */
struct dcgm_map { const char *name; int metric; double scale; };
static const struct dcgm_map dcgm_names[] = {
    {"DCGM_FI_DEV_POWER_USAGE", GP_TM_POWER_W, 1.0},
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", GP_TM_POWER_LIMIT_W, 1.0},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", GP_TM_ENERGY_J, 1e-3},  /* mJ */
    {"DCGM_FI_DEV_GPU_UTIL", GP_TM_GPU_UTIL_PCT, 1.0},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", GP_TM_MEM_UTIL_PCT, 1.0},
    {"DCGM_FI_DEV_ENC_UTIL", GP_TM_ENC_UTIL_PCT, 1.0},
    {"DCGM_FI_DEV_DEC_UTIL", GP_TM_DEC_UTIL_PCT, 1.0},
    {"DCGM_FI_PROF_SM_ACTIVE", GP_TM_SM_ACTIVE_PCT, 100.0},         /* ratio */
    {"DCGM_FI_DEV_SM_CLOCK", GP_TM_SM_CLOCK_MHZ, 1.0},
    {"DCGM_FI_DEV_MEM_CLOCK", GP_TM_MEM_CLOCK_MHZ, 1.0},
    {"DCGM_FI_DEV_FB_USED", GP_TM_GPU_MEM_USED_BYTES, 1048576.0},   /* MiB */
    {"DCGM_FI_DEV_FB_TOTAL", GP_TM_GPU_MEM_TOTAL_BYTES, 1048576.0},
    {"DCGM_FI_DEV_FB_FREE", GP_TM_GPU_MEM_FREE_BYTES, 1048576.0},
    {"DCGM_FI_DEV_MEMORY_TEMP", GP_TM_MEM_TEMP_C, 1.0},
    {"DCGM_FI_DEV_GPU_TEMP", GP_TM_TEMP_C, 1.0},
    {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", GP_TM_ECC_SBE_VOL, 1.0},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", GP_TM_ECC_DBE_VOL, 1.0},
    {"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", GP_TM_ECC_SBE_AGG, 1.0},
    {"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", GP_TM_ECC_DBE_AGG, 1.0},
    {"DCGM_FI_DEV_XID_ERRORS", GP_TM_XID_LAST, 1.0},
    {"DCGM_FI_DEV_POWER_VIOLATION", GP_TM_POWER_VIOLATION_US, 1.0},
    {"DCGM_FI_DEV_THERMAL_VIOLATION", GP_TM_THERMAL_VIOLATION_US, 1.0},
    {"DCGM_FI_DEV_RETIRED_SBE", GP_TM_RETIRED_SBE, 1.0},
    {"DCGM_FI_DEV_RETIRED_DBE", GP_TM_RETIRED_DBE, 1.0},
    {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", GP_TM_NVLINK_CRC_FLIT, 1.0},
    {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", GP_TM_NVLINK_CRC_DATA, 1.0},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", GP_TM_PCIE_TX_BPS, 1.0},          /* bytes/s */
    {"DCGM_FI_PROF_PCIE_RX_BYTES", GP_TM_PCIE_RX_BPS, 1.0},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", GP_TM_PCIE_REPLAY, 1.0},
};

static int scan_cb(void *ctx, const char *name, size_t nlen, const char *labels, size_t llen,
                   double v)
{
    struct gp_prom_scan *s = ctx;
    if (!isfinite(v))
        return 0;
    if (nlen > 8 && memcmp(name, "DCGM_FI_", 8) == 0) {
        char gpu[16];
        if (!gp_prom_label(labels, llen, "gpu", gpu, sizeof gpu))
            return 0;
        char *e;
        long idx = strtol(gpu, &e, 10);
        if (e == gpu || *e || idx < 0 || idx >= GP_PROM_MAX_GPU)
            return 0;
        struct gp_prom_gpu *g = &s->gpu[idx];
        size_t i;
        for (i = 0; i < sizeof dcgm_names / sizeof dcgm_names[0]; i++)
            if (name_is(name, nlen, dcgm_names[i].name))
                break;
        if (i == sizeof dcgm_names / sizeof dcgm_names[0])
            return 0;
        g->v[dcgm_names[i].metric] = v * dcgm_names[i].scale;
        g->has |= UINT64_C(1) << dcgm_names[i].metric;
        if (idx + 1 > s->ngpu)
            s->ngpu = (int)idx + 1;
        s->known++;
        return 0;
    }
    for (size_t i = 0; i < sizeof server_names / sizeof server_names[0]; i++) {
        if (!name_is(name, nlen, server_names[i].name))
            continue;
        s->known++;
        switch (server_names[i].kind) {
        case S_RUNNING: s->running += v; s->has_running = 1; break;
        case S_WAITING: s->waiting += v; s->has_waiting = 1; break;
        case S_KV_FRAC: s->kv_sum += 100.0 * v; s->kv_n++; break;
        case S_HIT_FRAC:
            s->hit_sum += v;
            if (!s->hit_n++)
                s->hit_name = server_names[i].name;
            break;
        case S_SG_CACHED: s->sg_cached += v; s->has_sg_counters |= 1; break;
        case S_SG_PROMPT: s->sg_prompt += v; s->has_sg_counters |= 2; break;
        case S_PC_HITS: s->pc_hits += v; s->has_pc_counters |= 1; break;
        case S_PC_QUERIES: s->pc_queries += v; s->has_pc_counters |= 2; break;
        case S_SD_DRAFTS: s->sd_drafts += v; s->has_sd_counters |= 1; break;
        case S_SD_DRAFT_TOKENS: s->sd_draft_tokens += v; s->has_sd_counters |= 2; break;
        case S_SD_ACCEPTED: s->sd_accepted += v; s->has_sd_counters |= 4; break;
        case S_SD_LEN: s->sd_len_sum += v; s->sd_len_n++; break;
        }
        break;
    }
    return 0;
}

void gp_prom_scan(const char *text, size_t len, struct gp_prom_scan *out)
{
    memset(out, 0, sizeof *out);
    gp_prom_parse(text, len, scan_cb, out);
    /* fill total from used+free when the exporter omits FB_TOTAL */
    for (int i = 0; i < out->ngpu; i++) {
        struct gp_prom_gpu *g = &out->gpu[i];
        uint64_t ub = UINT64_C(1) << GP_TM_GPU_MEM_USED_BYTES, tb = UINT64_C(1) << GP_TM_GPU_MEM_TOTAL_BYTES,
                 fb = UINT64_C(1) << GP_TM_GPU_MEM_FREE_BYTES;
        if ((g->has & ub) && !(g->has & tb) && (g->has & fb)) {
            g->v[GP_TM_GPU_MEM_TOTAL_BYTES] = g->v[GP_TM_GPU_MEM_USED_BYTES] + g->v[GP_TM_GPU_MEM_FREE_BYTES];
            g->has |= tb;
        }
    }
}
