/* export/sessions.c — the "sessions" block of <stem>_genai_perf.json:
 * GenAI-Perf's per-session statistics (llm_profile_data_parser.py groups
 * every request by its request_inputs "session_id"; json_exporter.py writes
 * {session_id: stats} after input_config). Written only when some measured
 * request carries a session_id, so plain runs' bytes never change.
 *
 * Owns nothing past a call: the grouping arrays are freed before it returns.
 */
#include <stdlib.h>
#include <string.h>

#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/pytext.h"
#include "core/stats.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "export/export_int.h"
#include "metrics/metrics.h"

struct sess_req {
    const char *sid;
    size_t k;      /* index into ctx->m->reqs: the export's request order */
    size_t first;  /* the group's first k, filled after the sort */
};

static int by_sid_then_k(const void *a, const void *b)
{
    const struct sess_req *x = a, *y = b;
    int c = strcmp(x->sid, y->sid);
    if (c)
        return c;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Python's dict keeps insertion order: a session appears where its first
 * request does in profile_export.json. */
static int by_first_then_k(const void *a, const void *b)
{
    const struct sess_req *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

static const char *session_of(const struct gp_export_ctx *ctx, const struct gp_req_metrics *rm)
{
    if (!ctx->inputs_meta || !ctx->store)
        return NULL;
    uint32_t entry = ctx->store->recs[rm->rec].entry;
    return entry < ctx->n_inputs_meta ? ctx->inputs_meta[entry].session_id : NULL;
}

static void system_stat(struct gp_stats *s, double v)
{
    memset(s, 0, sizeof *s);
    s->present = s->system = 1;
    s->n = 1;
    s->avg = v;
}

/* The statistics of one session's requests g[0..n) into st (x: scratch of
 * 6 * n doubles). As GenAI-Perf's per-session metrics: TTST from requests
 * with a second chunk, ITL and TPS/user from those with an ITL, ITL left out
 * when it sums to 0; throughputs over the session's own span (its first
 * request's start to its last response), none when that span is 0 (GenAI-Perf
 * would divide by zero). */
static void session_stats(const struct gp_export_ctx *ctx, const struct sess_req *g, size_t n, double *x,
                          struct gp_stats st[GP_M__COUNT])
{
    double *lat = x, *ttft = x + n, *ttst = x + 2 * n, *itl = x + 3 * n, *tps = x + 4 * n, *len = x + 5 * n;
    size_t nttst = 0, nitl = 0, ntps = 0;
    double itl_sum = 0, osl_sum = 0;
    uint64_t t0 = UINT64_MAX, t1 = 0;
    memset(st, 0, GP_M__COUNT * sizeof *st);
    for (size_t i = 0; i < n; i++) {
        const struct gp_req_metrics *rm = &ctx->m->reqs[g[i].k];
        uint64_t start = ctx->store->recs[rm->rec].t_start_ns;
        lat[i] = (double)rm->latency_ns;
        ttft[i] = (double)rm->ttft_ns;
        if (rm->ttst_ns >= 0)
            ttst[nttst++] = (double)rm->ttst_ns;
        if (rm->itl_ns >= 0) {
            itl[nitl++] = (double)rm->itl_ns;
            itl_sum += (double)rm->itl_ns;
            if (rm->tps_user >= 0)
                tps[ntps++] = rm->tps_user;
        }
        osl_sum += rm->osl;
        if (start < t0)
            t0 = start;
        if (rm->last_content_ns > t1)
            t1 = rm->last_content_ns;
    }
    const double ms = 1 / 1e6;
    gp_stats_compute(lat, n, &st[GP_M_REQUEST_LATENCY]);
    gp_stats_compute(ttft, n, &st[GP_M_TTFT]);
    gp_stats_compute(ttst, nttst, &st[GP_M_TTST]);
    if (itl_sum != 0)
        gp_stats_compute(itl, nitl, &st[GP_M_ITL]);
    gp_stats_compute(tps, ntps, &st[GP_M_TPS_PER_USER]);
    for (size_t i = 0; i < n; i++)
        len[i] = (double)ctx->m->reqs[g[i].k].osl;
    gp_stats_compute(len, n, &st[GP_M_OSL]);
    for (size_t i = 0; i < n; i++)
        len[i] = (double)ctx->m->reqs[g[i].k].isl;
    gp_stats_compute(len, n, &st[GP_M_ISL]);
    gp_stats_scale(&st[GP_M_REQUEST_LATENCY], ms);
    gp_stats_scale(&st[GP_M_TTFT], ms);
    gp_stats_scale(&st[GP_M_TTST], ms);
    gp_stats_scale(&st[GP_M_ITL], ms);
    system_stat(&st[GP_M_REQUEST_COUNT], (double)n);
    if (t1 > t0) {
        double span_s = (double)(t1 - t0) / 1e9;
        system_stat(&st[GP_M_REQUEST_THROUGHPUT], (double)n / span_s);
        system_stat(&st[GP_M_OUTPUT_TOKEN_THROUGHPUT], osl_sum / span_s);
    }
}

int gp_export_sessions_json(const struct gp_export_ctx *ctx, struct gp_buf *b, int *first)
{
    if (!ctx->m || !ctx->inputs_meta || !ctx->store)
        return 0;
    size_t n = 0;
    for (size_t k = 0; k < ctx->m->n_reqs; k++) {
        const struct gp_req_metrics *rm = &ctx->m->reqs[k];
        /* the requests in the run's own statistics: ok, with content */
        if (rm->fail == GP_FAIL_NONE && rm->content_chunks && session_of(ctx, rm))
            n++;
    }
    if (!n)
        return 0;
    struct sess_req *v = malloc(n * sizeof *v);
    double *x = malloc(6 * n * sizeof *x);
    if (!v || !x) {
        free(v);
        free(x);
        return -GP_ENOMEM;
    }
    n = 0;
    for (size_t k = 0; k < ctx->m->n_reqs; k++) {
        const struct gp_req_metrics *rm = &ctx->m->reqs[k];
        const char *sid = rm->fail == GP_FAIL_NONE && rm->content_chunks ? session_of(ctx, rm) : NULL;
        if (sid)
            v[n++] = (struct sess_req){sid, k, 0};
    }
    qsort(v, n, sizeof *v, by_sid_then_k);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && !strcmp(v[j].sid, v[i].sid); j++)
            v[j].first = v[i].k;
    }
    qsort(v, n, sizeof *v, by_first_then_k);

    int r = gp_buf_printf(b, "%s\n  \"sessions\": {", *first ? "" : ",");
    *first = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j].first == v[i].first; j++)
            ;
        struct gp_stats st[GP_M__COUNT];
        session_stats(ctx, v + i, j - i, x, st);
        r |= gp_buf_puts(b, i ? ",\n    " : "\n    ");
        r |= gp_json_str(b, v[i].sid, strlen(v[i].sid), GP_JSON_PYTHON);
        r |= gp_buf_puts(b, ": {");
        int mfirst = 1;
        for (int m = 0; m < GP_M__COUNT; m++)
            r |= gp_export_stat_json(b, (enum gp_metric)m, &st[m], "      ", &mfirst);
        r |= gp_buf_puts(b, mfirst ? "}" : "\n    }");
    }
    r |= gp_buf_puts(b, "\n  }");
    free(v);
    free(x);
    return r ? -GP_ENOMEM : 0;
}
