/* export/timeslices.c — "timeslices" of <stem>_genperf.json (--timeslice-duration S).
 *
 * A measured request belongs to the slice its start falls in, as AIPerf's
 * time slicing assigns it (slice_start <= request start < slice_end): a
 * request's TTFT is then charged to the moment it arrived, which is when the
 * server's queue decided it. Slice k covers [k*S, (k+1)*S) seconds from the
 * first measured request's start (AIPerf's min_request_timestamp); the last
 * slice ends at the last measured request's end when that comes sooner, and
 * its rates divide by that shorter span. Owns nothing: every array is freed
 * before returning.
 */
#include "client/record.h"
#include "core/stats.h"
#include "export/export_int.h"
#include "metrics/metrics.h"

#include <stdint.h>
#include <stdlib.h>

/* Slices beyond this are a mistake (a 0.001 s slice over a week-long run):
 * the block is then replaced by a note rather than exhausting memory. */
#define GP_TS_MAX_SLICES 1000000u

static json_t *ms_or_null(double ns) { return ns < 0 ? json_null() : json_real(ns / 1e6); }

/* p50 and p99 of x[0..n) (sorted in place) as "<key>_p50_ms"/"<key>_p99_ms". */
static void add_p50_p99(json_t *o, const char *p50, const char *p99, double *x, size_t n)
{
    struct gp_stats s;
    gp_stats_compute(x, n, &s);
    json_object_set_new(o, p50, n ? ms_or_null(s.p[4]) : json_null());
    json_object_set_new(o, p99, n ? ms_or_null(s.p[8]) : json_null());
}

/* One slice over the requests idx[0..n) (indices into m->reqs). scratch
 * holds n doubles. NULL on ENOMEM. */
static json_t *slice_json(const struct gp_export_ctx *ctx, size_t k, double start_s, double end_s,
                          const size_t *idx, size_t n, double *scratch)
{
    const struct gp_metrics_result *m = ctx->m;
    size_t ok = 0, failed = 0;
    double osl = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gp_req_metrics *rm = &m->reqs[idx[i]];
        if (rm->fail != GP_FAIL_NONE) {
            failed++;
            continue;
        }
        ok++;
        if (rm->content_chunks)
            osl += rm->osl;
    }
    double span = end_s - start_s;
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "index", json_integer((json_int_t)k));
    json_object_set_new(o, "start_s", json_real(start_s));
    json_object_set_new(o, "end_s", json_real(end_s));
    json_object_set_new(o, "requests", json_integer((json_int_t)n));
    json_object_set_new(o, "completed", json_integer((json_int_t)ok));
    json_object_set_new(o, "failures", json_integer((json_int_t)failed));
    json_object_set_new(o, "request_throughput", span > 0 ? json_real((double)ok / span) : json_null());
    json_object_set_new(o, "output_token_throughput", span > 0 ? json_real(osl / span) : json_null());
    /* the latency statistics over the requests the overall ones count: ok
     * and with content (metrics.c accumulate) */
    static const char *const keys[3][2] = {{"ttft_p50_ms", "ttft_p99_ms"},
                                           {"itl_p50_ms", "itl_p99_ms"},
                                           {"latency_p50_ms", "latency_p99_ms"}};
    for (int w = 0; w < 3; w++) {
        size_t nx = 0;
        for (size_t i = 0; i < n; i++) {
            const struct gp_req_metrics *rm = &m->reqs[idx[i]];
            if (rm->fail != GP_FAIL_NONE || !rm->content_chunks)
                continue;
            int64_t v = w == 0 ? rm->ttft_ns : w == 1 ? rm->itl_ns : rm->latency_ns;
            if (v >= 0)
                scratch[nx++] = (double)v;
        }
        add_p50_p99(o, keys[w][0], keys[w][1], scratch, nx);
    }
    return o;
}

size_t gp_export_timeslice_index(uint64_t t_start_ns, uint64_t t0_ns, double s)
{
    return t_start_ns > t0_ns ? (size_t)((double)(t_start_ns - t0_ns) / 1e9 / s) : 0;
}

uint64_t gp_export_timeslice_origin(const struct gp_record_store *st)
{
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < st->n; i++)
        if (!(st->recs[i].flags & GP_REC_WARMUP) && st->recs[i].t_start_ns < t0)
            t0 = st->recs[i].t_start_ns;
    return t0;
}

int gp_export_timeslices(const struct gp_export_ctx *ctx, json_t *o)
{
    const struct gp_metrics_result *m = ctx->m;
    const struct gp_record_store *st = ctx->store;
    const double S = ctx->timeslice_s;
    json_object_set_new(o, "timeslice_duration_s", json_real(S));
    json_object_set_new(o, "timeslice_assignment", json_string("request start"));
    uint64_t t0 = UINT64_MAX, t_end = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        const struct gp_record *r = &st->recs[m->reqs[i].rec];
        if (r->t_start_ns < t0)
            t0 = r->t_start_ns;
        if (r->t_end_ns > t_end)
            t_end = r->t_end_ns;
    }
    json_t *arr = json_array();
    if (!arr)
        return -1;
    if (!m->n_reqs) {
        json_object_set_new(o, "timeslices", arr);
        return 0;
    }
    double last_start_s = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        double s = (double)(st->recs[m->reqs[i].rec].t_start_ns - t0) / 1e9;
        if (s > last_start_s)
            last_start_s = s;
    }
    double nsl_d = last_start_s / S + 1;
    if (!(nsl_d <= GP_TS_MAX_SLICES)) {
        json_decref(arr);
        json_object_set_new(o, "timeslices", json_null());
        json_object_set_new(o, "timeslices_note", json_string("more than 1000000 slices: give a longer "
                                                              "--timeslice-duration"));
        return 0;
    }
    size_t nsl = (size_t)nsl_d;
    json_object_set_new(o, "timeslice_origin_wall_ns", json_integer((json_int_t)gp_record_wall_ns(st, t0)));
    /* counting sort of the requests by slice: off[k]..off[k+1] in idx */
    size_t *off = calloc(nsl + 1, sizeof *off), *idx = malloc(m->n_reqs * sizeof *idx);
    size_t *slot = malloc(m->n_reqs * sizeof *slot);
    double *scratch = malloc(m->n_reqs * sizeof *scratch);
    int rc = (!off || !idx || !slot || !scratch) ? -1 : 0;
    for (size_t i = 0; !rc && i < m->n_reqs; i++) {
        size_t k = gp_export_timeslice_index(st->recs[m->reqs[i].rec].t_start_ns, t0, S);
        slot[i] = k < nsl ? k : nsl - 1; /* rounding at the last edge */
        off[slot[i] + 1]++;
    }
    for (size_t k = 0; !rc && k < nsl; k++)
        off[k + 1] += off[k];
    for (size_t i = 0; !rc && i < m->n_reqs; i++) /* idx keeps store order within a slice */
        idx[off[slot[i]]++] = i;
    for (size_t k = nsl; !rc && k > 0; k--) /* the fill moved each slice's start to the next one's */
        off[k] = off[k - 1];
    if (!rc)
        off[0] = 0;
    double run_end_s = (double)(t_end - t0) / 1e9;
    for (size_t k = 0; !rc && k < nsl; k++) {
        double a = (double)k * S, b = (double)(k + 1) * S;
        if (k + 1 == nsl && run_end_s < b && run_end_s > a)
            b = run_end_s;
        json_t *sj = slice_json(ctx, k, a, b, idx + off[k], off[k + 1] - off[k], scratch);
        if (!sj || json_array_append_new(arr, sj))
            rc = -1;
    }
    free(off);
    free(idx);
    free(slot);
    free(scratch);
    json_object_set_new(o, "timeslices", arr);
    return rc;
}
