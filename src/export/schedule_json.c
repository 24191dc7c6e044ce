/* export/schedule_json.c — the "schedule" block of <stem>_genperf.json and
 * the figures behind the console's schedule warning: lateness of every
 * scheduled send (sched/ gp_sched_lag_compute), how many requests waited for
 * the --max-concurrency cap, and latency / TTFT measured from the scheduled
 * time beside GenAI-Perf's from-send values — so queueing inside the client
 * (coordinated omission) is never hidden. Closed-loop runs have no schedule
 * and get "schedule": null.
 */
#include "client/record.h"
#include "core/error.h"
#include "export/export.h"
#include "export/export_int.h"
#include "metrics/metrics.h"
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

int gp_export_schedule_summary(const struct gp_record_store *st, struct gp_export_sched *out)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++)
        n += !(st->recs[i].flags & GP_REC_WARMUP) && st->recs[i].t_sched_ns;
    if (!n)
        return 0;
    int64_t *ts = malloc(n * sizeof *ts), *t0 = malloc(n * sizeof *t0);
    if (!ts || !t0) {
        free(ts);
        free(t0);
        return -GP_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct gp_record *r = &st->recs[i];
        if ((r->flags & GP_REC_WARMUP) || !r->t_sched_ns)
            continue;
        ts[k] = (int64_t)(r->t_sched_ns - st->mono0_ns);
        t0[k] = (int64_t)(r->t_start_ns - st->mono0_ns);
        out->cap_delayed += (r->flags & GP_REC_CAP_DELAYED) != 0;
        k++;
    }
    struct gp_error err;
    int rc = gp_sched_lag_compute(ts, t0, n, &out->lag, &err);
    free(ts);
    free(t0);
    out->present = rc == 0;
    return rc;
}

/* p50/p99 of v[0..n) in ms (sorted in place), as {"p50": .., "p99": ..}. */
static json_t *p50_p99(double *v, size_t n)
{
    json_t *o = json_object();
    if (!n) {
        json_object_set_new(o, "p50", json_null());
        json_object_set_new(o, "p99", json_null());
        return o;
    }
    struct gp_stats st;
    gp_stats_compute(v, n, &st); /* sorts v */
    json_object_set_new(o, "p50", json_real(gp_percentile_sorted(v, n, 50)));
    json_object_set_new(o, "p99", json_real(gp_percentile_sorted(v, n, 99)));
    return o;
}

json_t *gp_export_schedule_json(const struct gp_export_ctx *ctx)
{
    const struct gp_record_store *st = ctx->store;
    const struct gp_metrics_result *m = ctx->m;
    struct gp_export_sched s;
    if (gp_export_schedule_summary(st, &s) || !s.present)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "requests", json_integer((json_int_t)s.lag.n));
    json_t *lag = json_object();
    json_object_set_new(lag, "p50_ms", json_real(s.lag.p50_ms));
    json_object_set_new(lag, "p99_ms", json_real(s.lag.p99_ms));
    json_object_set_new(lag, "max_ms", json_real(s.lag.max_ms));
    json_object_set_new(lag, "avg_ms", json_real(s.lag.avg_ms));
    json_object_set_new(o, "lag", lag);
    json_object_set_new(o, "late_over_1ms", json_integer((json_int_t)s.lag.late_1ms));
    json_object_set_new(o, "cap_delayed", json_integer((json_int_t)s.cap_delayed));
    /* latency and TTFT of successful requests, from send (GenAI-Perf's) and
     * from the scheduled time (send + its lag) */
    size_t n = 0;
    double *v = malloc(4 * (m->n_reqs ? m->n_reqs : 1) * sizeof *v);
    if (!v) {
        json_decref(o);
        return NULL;
    }
    double *lat_send = v, *lat_sched = v + m->n_reqs, *ttft_send = v + 2 * m->n_reqs, *ttft_sched = v + 3 * m->n_reqs;
    size_t nt = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        const struct gp_req_metrics *q = &m->reqs[i];
        const struct gp_record *r = &st->recs[q->rec];
        if (!(q->flags & GP_RQ_OK) || !r->t_sched_ns || q->latency_ns < 0)
            continue;
        double late = r->t_start_ns > r->t_sched_ns ? (double)(r->t_start_ns - r->t_sched_ns) : 0;
        lat_send[n] = (double)q->latency_ns / 1e6;
        lat_sched[n] = ((double)q->latency_ns + late) / 1e6;
        n++;
        if (q->ttft_ns >= 0) {
            ttft_send[nt] = (double)q->ttft_ns / 1e6;
            ttft_sched[nt] = ((double)q->ttft_ns + late) / 1e6;
            nt++;
        }
    }
    json_t *fs = json_object(), *fsend = json_object();
    json_object_set_new(fsend, "request_latency_ms", p50_p99(lat_send, n));
    json_object_set_new(fsend, "time_to_first_token_ms", p50_p99(ttft_send, nt));
    json_object_set_new(fs, "request_latency_ms", p50_p99(lat_sched, n));
    json_object_set_new(fs, "time_to_first_token_ms", p50_p99(ttft_sched, nt));
    free(v);
    json_object_set_new(o, "from_send", fsend);
    json_object_set_new(o, "from_schedule", fs);
    json_object_set_new(o, "note", json_string("from_schedule = from_send + (send - due): the client's own queueing "
                                               "(cap, late loop) counted, as an open-loop user would see it"));
    return o;
}
