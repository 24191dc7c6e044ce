/* metrics/reasoning.c — reasoning-model figures beside GenAI-Perf's
 * content-only metrics (metrics.h: TTFR, reasoning tokens per request, total
 * output throughput including reasoning). Computed from the finished
 * per-request metrics over the same requests and benchmark window as
 * GenAI-Perf's statistics, so "total output throughput" is directly
 * comparable with output_token_throughput (it adds the reasoning tokens).
 * Answers that ended inside the reasoning (no content) are out of those
 * statistics, as GenAI-Perf leaves them out: they are counted apart. And
 * gp_osl_outcome: a length compared with max_tokens must count the
 * reasoning, which a server counts against max_tokens.
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
    size_t n = 0, nr = 0, only = 0;
    for (size_t i = 0; i < r->n_reqs; i++) {
        const struct gp_req_metrics *q = &r->reqs[i];
        if (in_stats(q)) {
            n++;
            if (q->reasoning_chunks)
                nr++;
        } else if ((q->flags & GP_RQ_OK) && q->reasoning_chunks) {
            only++; /* the answer ended inside the reasoning (max_tokens, EOS) */
        }
    }
    if (!nr && !only)
        return 0; /* not a reasoning run: the exporters leave the block out */
    o->present = 1;
    o->n_requests = n;
    o->n_with_reasoning = nr;
    o->n_reasoning_only = only;
    if (!n) { /* every answer reasoning-only: counted, no statistics */
        o->reasoning_token_throughput = o->total_output_token_throughput = -1;
        return 0;
    }
    /* (nr may be 0 here: malloc(0) is allowed to return NULL) */
    double *ttfr = malloc((nr ? nr : 1) * sizeof *ttfr), *tok = malloc(n * sizeof *tok);
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
    o->reasoning_tokens_total = rsum;
    o->reasoning_token_throughput = r->duration_s > 0 ? rsum / r->duration_s : -1;
    o->total_output_token_throughput = r->duration_s > 0 ? (osl_sum + rsum) / r->duration_s : -1;
    return 0;
}

enum gp_osl_outcome gp_osl_outcome(const struct gp_req_metrics *q, long *length, int *from_server)
{
    if (length)
        *length = -1;
    if (from_server)
        *from_server = 0;
    if (!(q->flags & GP_RQ_OK) || q->osl_asked < 0)
        return GP_OSL_NOT_ASKED;
    int srv = q->server_completion_tokens >= 0;
    long got = srv ? q->server_completion_tokens : (long)(q->osl < 0 ? 0 : q->osl) + q->reasoning_tokens;
    if (length)
        *length = got;
    if (from_server)
        *from_server = srv;
    long d = got - q->osl_asked;
    if (d == 0)
        return q->reasoning_chunks && q->osl < q->osl_asked ? GP_OSL_REASONING : GP_OSL_AS_ASKED;
    /* one past max_tokens is no output a server can produce: its count
     * includes an end-of-sequence token (or the tokenizer is not the
     * server's). One short stays an early stop: EOS can come there. */
    if (d == 1)
        return GP_OSL_OFF_BY_ONE;
    return d > 0 ? GP_OSL_LONGER : GP_OSL_SHORTER;
}
