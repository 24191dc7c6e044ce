/* metrics/reasoning.c — reasoning-model figures beside GenAI-Perf's
 * content-only metrics (metrics.h: TTFR, reasoning tokens per request, total
 * output throughput including reasoning). Computed from the finished
 * per-request metrics over the same requests and benchmark window as
 * GenAI-Perf's statistics, so "total output throughput" is directly
 * comparable with output_token_throughput (it adds the reasoning tokens).
 */
#include "metrics/metrics.h"
#include "metrics/metrics_int.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static int in_stats(const struct gp_req_metrics *q)
{
    return (q->flags & GP_RQ_OK) && q->content_chunks > 0;
}

int gp_reasoning_summarize(struct gp_metrics_result *r)
{
    struct gp_reasoning_summary *o = &r->reasoning;
    memset(o, 0, sizeof *o);
    size_t n = 0, nr = 0;
    for (size_t i = 0; i < r->n_reqs; i++)
        if (in_stats(&r->reqs[i])) {
            n++;
            if (r->reqs[i].reasoning_chunks)
                nr++;
        }
    if (!nr)
        return 0; /* not a reasoning run: the exporters leave the block out */
    double *ttfr = malloc(nr * sizeof *ttfr), *tok = malloc(n * sizeof *tok);
    if (!ttfr || !tok) {
        free(ttfr);
        free(tok);
        return -GP_ENOMEM;
    }
    double osl_sum = 0, rsum = 0;
    size_t k = 0, j = 0;
    for (size_t i = 0; i < r->n_reqs; i++) {
        const struct gp_req_metrics *q = &r->reqs[i];
        if (!in_stats(q))
            continue;
        osl_sum += (double)q->osl;
        rsum += (double)q->reasoning_tokens;
        tok[k++] = (double)q->reasoning_tokens;
        if (q->reasoning_chunks)
            ttfr[j++] = (double)q->ttfr_ns;
    }
    gp_stats_compute(ttfr, nr, &o->ttfr);
    gp_stats_scale(&o->ttfr, 1 / 1e6);
    gp_stats_compute(tok, n, &o->tokens);
    free(ttfr);
    free(tok);
    o->present = 1;
    o->n_requests = n;
    o->n_with_reasoning = nr;
    o->reasoning_tokens_total = rsum;
    o->reasoning_token_throughput = r->duration_s > 0 ? rsum / r->duration_s : -1;
    o->total_output_token_throughput = r->duration_s > 0 ? (osl_sum + rsum) / r->duration_s : -1;
    return 0;
}
