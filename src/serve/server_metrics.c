/* serve/server_metrics.c — the counters and latency histograms `genperf
 * serve` keeps, and their exposition: Prometheus text under each flavour's
 * metric names (vllm:, sglang:, trtllm_) and TRT-LLM's JSON iteration stats
 * on its /metrics. The bucket bounds follow the real servers. */
#include "serve/srv_resp.h"

#include <stdio.h>
#include <string.h>

static const double ttft_le[] = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
                                 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
static const double itl_le[] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
                                0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
static const double e2e_le[] = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
                                30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

/* SGLang's TokenizerMetricsCollector defaults for TTFT and inter-token
 * latency (srt/metrics/collector.py as stored in the search index; older
 * releases used the vLLM-like lists above). Its e2e default differs between
 * releases, so e2e keeps the list above. */
static const double sgl_ttft_le[] = {0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400};
static const double sgl_itl_le[] = {0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060,
                                    0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000};

void srv_hist_obs(struct hist *h, double v)
{
    int i = 0;
    while (i < h->n && v > h->le[i])
        i++;
    h->cnt[i]++;
    h->sum += v;
    h->total++;
}

void srv_metrics_init(struct srv *s)
{
    s->h_ttft = (struct hist){.le = ttft_le, .n = (int)(sizeof ttft_le / sizeof ttft_le[0])};
    s->h_itl = (struct hist){.le = itl_le, .n = (int)(sizeof itl_le / sizeof itl_le[0])};
    if (s->o->flavor == GP_FLAVOR_SGLANG) {
        s->h_ttft = (struct hist){.le = sgl_ttft_le, .n = (int)(sizeof sgl_ttft_le / sizeof sgl_ttft_le[0])};
        s->h_itl = (struct hist){.le = sgl_itl_le, .n = (int)(sizeof sgl_itl_le / sizeof sgl_itl_le[0])};
    }
    s->h_e2e = (struct hist){.le = e2e_le, .n = (int)(sizeof e2e_le / sizeof e2e_le[0])};
}

void srv_metrics_done(struct srv *s, struct sreq *r, uint64_t now)
{
    s->gen_total += r->generated;
    if (r->finish == GP_FINISH_STOP)
        s->succ_stop++;
    else
        s->succ_length++;
    srv_hist_obs(&s->h_e2e, (double)(now - r->t_request_ns) * 1e-9);
}

static void hist_render(struct gp_buf *b, const char *name, const struct hist *h, const char *labels)
{
    gp_buf_printf(b, "# TYPE %s histogram\n", name);
    uint64_t cum = 0;
    for (int i = 0; i < h->n; i++) {
        cum += h->cnt[i];
        gp_buf_printf(b, "%s_bucket{%s,le=\"%g\"} %llu\n", name, labels, h->le[i], (unsigned long long)cum);
    }
    cum += h->cnt[h->n];
    gp_buf_printf(b, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, labels, (unsigned long long)cum);
    gp_buf_printf(b, "%s_sum{%s} %.9g\n%s_count{%s} %llu\n", name, labels, h->sum, name, labels,
                  (unsigned long long)h->total);
}

static void render_metrics(struct srv *s, struct gp_buf *b)
{
    int fl = s->o->flavor;
    char labels[400];
    struct gp_buf ml = {0};
    gp_buf_json_str(&ml, s->o->model, strlen(s->o->model));
    snprintf(labels, sizeof labels, "engine=\"0\",model_name=%s", ml.data);
    gp_buf_free(&ml);
    uint32_t running = s->mode == MODE_BATCH ? s->sim.running.n : s->running_fixed;
    uint32_t waiting = s->mode == MODE_BATCH ? s->sim.waiting.n : 0;
    double kv = s->mode == MODE_BATCH && s->o->kv_tokens ? (double)s->sim.kv_used / (double)s->o->kv_tokens : 0;
    const char *p = fl == GP_FLAVOR_SGLANG ? "sglang:" : fl == GP_FLAVOR_TRTLLM ? "trtllm_" : "vllm:";
    const char *nrun = fl == GP_FLAVOR_SGLANG ? "num_running_reqs" : "num_requests_running";
    const char *nwait = fl == GP_FLAVOR_SGLANG ? "num_queue_reqs" : "num_requests_waiting";
    const char *kvn = fl == GP_FLAVOR_SGLANG ? "token_usage" : fl == GP_FLAVOR_TRTLLM ? "kv_cache_utilization"
                                                                                     : "kv_cache_usage_perc";
    gp_buf_printf(b, "# TYPE %s%s gauge\n%s%s{%s} %u\n", p, nrun, p, nrun, labels, running);
    gp_buf_printf(b, "# TYPE %s%s gauge\n%s%s{%s} %u\n", p, nwait, p, nwait, labels, waiting);
    gp_buf_printf(b, "# TYPE %s%s gauge\n%s%s{%s} %.6f\n", p, kvn, p, kvn, labels, kv);
    gp_buf_printf(b, "# TYPE %sprompt_tokens_total counter\n%sprompt_tokens_total{%s} %llu\n", p, p, labels,
                  (unsigned long long)s->prompt_total);
    gp_buf_printf(b, "# TYPE %sgeneration_tokens_total counter\n%sgeneration_tokens_total{%s} %llu\n", p, p,
                  labels, (unsigned long long)s->gen_total);
    if (fl == GP_FLAVOR_SGLANG) {
        /* SGLang has no request_success_total: one counter of finished
         * requests (sglang:num_requests_total in srt/metrics/collector.py,
         * read from the search index; prometheus_client types it without _total) */
        gp_buf_printf(b, "# TYPE sglang:num_requests counter\nsglang:num_requests_total{%s} %llu\n", labels,
                      (unsigned long long)(s->succ_stop + s->succ_length + s->succ_abort));
    } else {
        gp_buf_printf(b, "# TYPE %srequest_success_total counter\n", p);
        gp_buf_printf(b, "%srequest_success_total{%s,finished_reason=\"stop\"} %llu\n", p, labels,
                      (unsigned long long)s->succ_stop);
        gp_buf_printf(b, "%srequest_success_total{%s,finished_reason=\"length\"} %llu\n", p, labels,
                      (unsigned long long)s->succ_length);
        gp_buf_printf(b, "%srequest_success_total{%s,finished_reason=\"abort\"} %llu\n", p, labels,
                      (unsigned long long)s->succ_abort);
    }
    /* Speculative-decoding metrics only in serve's speculative mode
     * (--stream-interval-max): a plain --stream-interval is chunking (SGLang's
     * --stream-interval, vLLM's output merging under load), and real engines
     * export no spec-decode metric for it, so a client must not read an
     * acceptance figure into several tokens per chunk (issue 38 item 8). */
    if (s->o->stream_interval_max > 1 && fl == GP_FLAVOR_VLLM) {
        /* vLLM v1's speculative decoding counters (ground truth for a
         * client's acceptance figure) */
        static const char *const sd[3] = {"num_drafts", "num_draft_tokens", "num_accepted_tokens"};
        const uint64_t v[3] = {s->spec_drafts, s->spec_draft_tokens, s->spec_accepted};
        for (int i = 0; i < 3; i++)
            gp_buf_printf(b, "# TYPE vllm:spec_decode_%s counter\nvllm:spec_decode_%s_total{%s} %llu\n", sd[i], sd[i],
                          labels, (unsigned long long)v[i]);
    } else if (s->o->stream_interval_max > 1 && fl == GP_FLAVOR_SGLANG) {
        /* SGLang's gauge: tokens per verify step (accepted drafts + 1) */
        gp_buf_printf(b, "# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length{%s} %.6f\n", labels,
                      s->spec_drafts ? (double)(s->spec_accepted + s->spec_drafts) / (double)s->spec_drafts : 0.0);
    }
    if (s->o->prefix_cache && fl == GP_FLAVOR_VLLM) {
        /* vLLM v1's counters, in tokens (a client's hit rate is their delta;
         * vllm/v1/metrics/loggers.py at vllm commit 005a810) */
        gp_buf_printf(b, "# TYPE vllm:prefix_cache_queries counter\nvllm:prefix_cache_queries_total{%s} %llu\n",
                      labels, (unsigned long long)s->pcache.queries);
        gp_buf_printf(b, "# TYPE vllm:prefix_cache_hits counter\nvllm:prefix_cache_hits_total{%s} %llu\n", labels,
                      (unsigned long long)s->pcache.hits);
    } else if (s->o->prefix_cache) {
        /* SGLang's counter of cached prompt tokens beside its
         * prompt_tokens_total above (python/sglang/srt/metrics/collector.py,
         * sglang commit 00ae9c15): a client's hit rate over its window is
         * their deltas' ratio. Shown from the start here, where SGLang's
         * prometheus_client shows it after the first hit. */
        if (fl == GP_FLAVOR_SGLANG)
            gp_buf_printf(b, "# TYPE sglang:cached_tokens_total counter\nsglang:cached_tokens_total{%s} %llu\n",
                          labels, (unsigned long long)s->pcache.hits);
        /* SGLang's gauge (TRT-LLM's Prometheus name alike, its only figure):
         * the share of prompt tokens found cached, here since the start: a
         * lifetime figure, not a run's (SGLang's own is the last batch's) */
        const char *hn = fl == GP_FLAVOR_SGLANG ? "sglang:cache_hit_rate" : "trtllm_kv_cache_hit_rate";
        gp_buf_printf(b, "# TYPE %s gauge\n%s{%s} %.6f\n", hn, hn, labels,
                      s->pcache.queries ? (double)s->pcache.hits / (double)s->pcache.queries : 0.0);
    }
    char name[96];
    snprintf(name, sizeof name, "%stime_to_first_token_seconds", p);
    hist_render(b, name, &s->h_ttft, labels);
    snprintf(name, sizeof name, "%s%s", p,
             fl == GP_FLAVOR_TRTLLM ? "time_per_output_token_seconds" : "inter_token_latency_seconds");
    hist_render(b, name, &s->h_itl, labels);
    snprintf(name, sizeof name, "%se2e_request_latency_seconds", p);
    hist_render(b, name, &s->h_e2e, labels);
}

/* trtllm-serve's /metrics is JSON iteration stats; Prometheus lives elsewhere */
static void render_trt_stats(struct srv *s, struct gp_buf *b)
{
    uint32_t running = s->mode == MODE_BATCH ? s->sim.running.n : s->running_fixed;
    gp_buf_printf(b, "[{\"iter\":%llu,\"numActiveRequests\":%u,\"numQueuedRequests\":%u,"
                     "\"kvCacheStats\":{\"usedNumBlocks\":%llu,\"maxNumBlocks\":%llu,\"tokensPerBlock\":1}}]",
                  (unsigned long long)s->sim.steps, running,
                  s->mode == MODE_BATCH ? s->sim.waiting.n : 0, (unsigned long long)s->sim.kv_used,
                  (unsigned long long)s->o->kv_tokens);
}

void srv_send_metrics(struct srv *s, struct conn *c, int iteration_json)
{
    struct gp_buf b = {0};
    if (iteration_json) {
        render_trt_stats(s, &b);
        srv_send_simple(s, c, 200, "application/json", b.data, b.len);
    } else {
        render_metrics(s, &b);
        srv_send_simple(s, c, 200, "text/plain; version=0.0.4; charset=utf-8", b.data, b.len);
    }
    gp_buf_free(&b);
}
