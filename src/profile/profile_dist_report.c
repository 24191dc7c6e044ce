/* profile/profile_dist_report.c — what rank 0 of an MPI job reports: the
 * scale_out block of <stem>_genperf.json (ranks, loops, clock offsets, the
 * shared start) and the clock-uncertainty warning. Reads the job's state
 * (profile_dist_int.h); owns nothing beyond the JSON it returns.
 */
#include "profile/profile_dist.h"
#include "profile/profile_dist_int.h"

#include "metrics/metrics.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what rank 0 reports ---- */

static json_t *loop_json(const struct gp_client_stats *s, long index, int rank)
{
    json_t *w = json_object();
    json_object_set_new(w, "worker", json_integer(index));
    json_object_set_new(w, "rank", json_integer(rank));
    json_object_set_new(w, "requests", json_integer((json_int_t)(s->n_ok + s->n_failed)));
    json_object_set_new(w, "failed", json_integer((json_int_t)s->n_failed));
    json_object_set_new(w, "busy_fraction", json_real(s->busy_fraction));
    json_object_set_new(w, "max_send_lag_ms", json_real((double)s->max_lag_ns / 1e6));
    return w;
}

/* The shared start: the instant (wall ns, the scale of the records'
 * t_start_ns), the margin, the spread of the ranks' real starts on rank 0's
 * clock, and a bound on the true spread (add each side's clock uncertainty). */
static json_t *start_json(const struct gp_profile_dist *pd)
{
    if (!pd->start_ns || !pd->st_rw)
        return NULL;
    uint64_t lo = 0, hi = 0;
    int64_t unc = 0;
    for (int r = 0; r < pd->size; r++) {
        uint64_t b = pd->rank_stats[r].began_ns;
        if (!b)
            continue; /* a rank that never reached its measured phase (stopped) */
        lo = !lo || b < lo ? b : lo;
        hi = b > hi ? b : hi;
        if (pd->clocks[r].uncertainty_ns > unc)
            unc = pd->clocks[r].uncertainty_ns;
    }
    json_t *m = json_object();
    uint64_t wall = gp_record_wall_ns(pd->st_rw, (uint64_t)pd->start_ns);
    json_object_set_new(m, "start_wall_ns", json_integer((json_int_t)wall));
    json_object_set_new(m, "margin_ns", json_integer(pd->start_margin_ns));
    json_object_set_new(m, "max_skew_ns", json_integer((json_int_t)(hi - lo)));
    json_object_set_new(m, "skew_bound_ns", json_integer((json_int_t)(hi - lo) + 2 * unc));
    return m;
}

json_t *gp_profile_dist_scale_out(const struct gp_profile_dist *pd)
{
    if (pd->size < 2 || pd->rank != 0 || !pd->rank_stats)
        return NULL;
    json_t *o = json_object(), *ws = json_array(), *rs = json_array();
    json_object_set_new(o, "workers", json_integer(pd->workers));
    json_object_set_new(o, "ranks", json_integer(pd->size));
    /* how the other ranks' response bytes reached rank 0: mapped from their
     * memory (same host) or copied over MPI */
    json_object_set_new(o, "gather_mapped_ranks", json_integer(pd->shm_ranks));
    /* the transport genperf named for a one-host job ("" = Open MPI chose) */
    json_object_set_new(o, "mpi_mca_set", json_string(gp_dist_mca_set(pd->d)));
    for (int r = 0; r < pd->size; r++)
        for (long w = 0; w < pd->workers; w++)
            json_array_append_new(ws, loop_json(&pd->loop_stats[(size_t)r * (size_t)pd->workers + (size_t)w],
                                                r * pd->workers + w, r));
    json_t *ms = start_json(pd);
    for (int r = 0; r < pd->size; r++) {
        const struct gp_client_stats *s = &pd->rank_stats[r];
        const struct gp_dist_clock *c = &pd->clocks[r];
        json_t *j = json_object();
        json_object_set_new(j, "rank", json_integer(r));
        json_object_set_new(j, "host", json_string(gp_dist_hostname(pd->d, r)));
        json_object_set_new(j, "offset_ns", json_integer(c->offset_ns));
        json_object_set_new(j, "uncertainty_ns", json_integer(c->uncertainty_ns));
        json_object_set_new(j, "rtt_ns", json_integer(c->rtt_ns));
        json_object_set_new(j, "clock_rounds", json_integer(c->rounds));
        json_object_set_new(j, "requests", json_integer((json_int_t)(s->n_ok + s->n_failed)));
        json_object_set_new(j, "failed", json_integer((json_int_t)s->n_failed));
        json_object_set_new(j, "busy_fraction", json_real(s->busy_fraction));
        if (ms && s->began_ns) {
            uint64_t wall = gp_record_wall_ns(pd->st_rw, s->began_ns);
            json_object_set_new(j, "measure_start_wall_ns", json_integer((json_int_t)wall));
            json_object_set_new(j, "start_late_ns", json_integer((json_int_t)((int64_t)s->began_ns - pd->start_ns)));
        }
        json_array_append_new(rs, j);
    }
    json_object_set_new(o, "per_worker", ws);
    json_object_set_new(o, "per_rank", rs);
    if (ms)
        json_object_set_new(o, "measured_start", ms);
    return o;
}

void gp_profile_dist_clock_warning(const struct gp_profile_dist *pd, const struct gp_metrics_result *mr)
{
    if (pd->size < 2 || pd->rank != 0 || !pd->clocks)
        return;
    const struct gp_stats *m = &mr->stats[GP_M_TTFT];
    const char *what = "TTFT";
    if (!m->present) {
        m = &mr->stats[GP_M_REQUEST_LATENCY];
        what = "request latency";
    }
    if (!m->present)
        return;
    double median_ms = m->p[4]; /* p50 */
    int worst = 0;
    for (int r = 1; r < pd->size; r++)
        if (pd->clocks[r].uncertainty_ns > pd->clocks[worst].uncertainty_ns)
            worst = r;
    double unc_ms = (double)pd->clocks[worst].uncertainty_ns / 1e6;
    if (unc_ms > 0.01 * median_ms)
        fprintf(stderr, "genperf: warning: the clock of rank %d on host %s is known to within +-%.3f ms, more than "
                        "1%% of the median %s (%.3f ms): intervals across ranks (the run window, throughput) are less "
                        "exact than the per-request metrics\n",
                worst, gp_dist_hostname(pd->d, worst), unc_ms, what, median_ms);
}

